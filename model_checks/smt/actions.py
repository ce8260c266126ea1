"""Each spec action as one relation: a guard and the complete next state (explicit frame).

An action function returns `(guard, next)` where `next` gives every state variable's value after
the step; variables the action does not touch are copied (the frame), so nothing is left free.
`transition` combines the actions the environment enables, selected by the step's action code,
exactly as `spec.machine.step` dispatches on the action: a faulted state has no successor.

Per step the arguments are symbolic: `act` (an index into `ACTIONS`), `rid` (P0Handle,
P0HandleRejected, Retry, and the message P1Receive takes), and Submit's item (`sid`, `sver`,
`sdata`). P1Receive's spec argument, the message's index in the channel, is the number of pending
messages older than the chosen one (see `decode`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from model_checks.smt import lru
from model_checks.smt.symbols import (
    NONE_PID,
    DeliveryCode,
    Encoding,
    FaultCode,
    OutcomeCode,
    Params,
    StageCode,
    SymState,
    at,
    constants,
    content_bytes,
    msg_name,
    pick,
    rep_name,
    req_name,
)
from spec import Drift
from spec.transitions import (
    Action,
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0ReceiveReply,
    P0Restart,
    P1Clear,
    P1Receive,
    P1Reset,
    P1Restart,
    Retry,
    Submit,
)


@dataclass(frozen=True)
class Args:
    """The symbolic choices of one step."""

    act: z3.ArithRef
    rid: z3.ArithRef
    sid: z3.ArithRef
    sver: z3.ArithRef
    sdata: z3.BoolRef


def args_at(t: int) -> Args:
    """The choices of the step from state t to state t+1."""
    return Args(z3.Int(at("act", t)), z3.Int(at("rid", t)), z3.Int(at("sid", t)),
                z3.Int(at("sver", t)), z3.Bool(at("sdata", t)))


Relation = Callable[[Encoding, Params, SymState, Args], tuple[z3.BoolRef, SymState]]


def _req(s: SymState, enc: Encoding, field_name: str, rid: z3.ArithRef) -> z3.ExprRef:
    return pick([s[req_name(r, field_name)] for r in range(enc.r)], rid)


def _set_req(s: SymState, enc: Encoding, rid: z3.ArithRef, **values: z3.ExprRef) -> None:
    for r in range(enc.r):
        for field_name, value in values.items():
            key = req_name(r, field_name)
            s[key] = z3.If(rid == r, value, s[key])


def _set_per_rid(
    s: SymState, enc: Encoding, name: Callable[[int, str], str], rid: z3.ArithRef,
    **values: z3.ExprRef,
) -> None:
    for r in range(enc.r):
        for field_name, value in values.items():
            key = name(r, field_name)
            s[key] = z3.If(rid == r, value, s[key])


def _valid_rid(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    return z3.And(rid >= 0, rid < s["nreq"], rid < enc.r)


def unfinished(enc: Encoding, s: SymState) -> z3.ArithRef:
    return z3.Sum([
        z3.If(z3.And(r < s["nreq"], s[req_name(r, "stage")] != StageCode.DONE), 1, 0)
        for r in range(enc.r)
    ])


def _oldest(enc: Encoding, s: SymState, name: Callable[[int, str], str],
            rid: z3.ArithRef) -> z3.BoolRef:
    """The channel item of `rid` is pending and older than every other pending one."""
    mine = pick([s[name(r, "seq")] for r in range(enc.r)], rid)
    return z3.And(
        pick([s[name(r, "pend")] for r in range(enc.r)], rid),
        *[z3.Implies(z3.And(rid != r, s[name(r, "pend")]), mine < s[name(r, "seq")])
          for r in range(enc.r)],
    )


def _step_base(s: SymState) -> SymState:
    """What every step does: advance the clock and forget the last delivery."""
    n = dict(s)
    n["clock"] = s["clock"] + 1
    n["ld_kind"] = z3.IntVal(DeliveryCode.NONE)
    return n


def submit(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    """Submit((ClientItem(sid, sver, sdata),), 0) as request nreq."""
    guard = z3.And(
        s["nreq"] < enc.r,
        unfinished(enc, s) < enc.bounds.max_in_flight,
        a.sid >= 0, a.sid < enc.k, a.sver >= 0, a.sver < enc.versions,
    )
    n = _step_base(s)
    _set_req(n, enc, s["nreq"], id=a.sid, ver=a.sver, data=a.sdata, retries=z3.IntVal(0),
             stage=z3.IntVal(StageCode.SUBMITTED), outcome=z3.IntVal(OutcomeCode.NONE),
             missed=z3.BoolVal(False))
    n["nreq"] = s["nreq"] + 1
    return guard, n


def _handle(enc: Encoding, p: Params, s: SymState, a: Args,
            send: bool) -> tuple[z3.BoolRef, SymState]:
    """P0's pipeline for one attempt of an M=1 request: probe, process on a miss, touch, then
    the item's get-and-update, then send (or, for D2, drop the message and reject)."""
    variant = enc.variant
    guard = z3.And(_valid_rid(enc, s, a.rid),
                   _req(s, enc, "stage", a.rid) == StageCode.SUBMITTED)
    ident = _req(s, enc, "id", a.rid)
    ver = _req(s, enc, "ver", a.rid)
    has_data = _req(s, enc, "data", a.rid)
    hit = lru.present(s, "p0", ident, enc.k)
    base = _step_base(s)
    client_error = dict(base)
    _set_req(client_error, enc, a.rid, stage=z3.IntVal(StageCode.DONE),
             outcome=z3.IntVal(OutcomeCode.CLIENT_ERROR))
    work = dict(base)
    pid = s["nproc"]
    work["nproc"] = z3.If(hit, s["nproc"], s["nproc"] + 1)
    if variant.touches_first:
        work = lru.touch(work, "p0", ident, s["clock"], variant.shadow_lru, enc.k)
    # M = 1: a probed hit is still present here (nothing ran in between), so the spec's late
    # miss (P0 assertion / reprocessing) cannot happen without D6, which is not encoded.
    cached, after_hit = lru.get(work, "p0", ident, s["clock"], enc.k)
    tag = pid if variant.tagged else z3.IntVal(NONE_PID)
    size = content_bytes(p.shadow_bytes, ident, ver)
    after_miss, hang = lru.put(work, "p0", (ident, size, pid, ver, tag), s["clock"], p.budget,
                               variant.shadow_lru, enc.k)
    hang = z3.And(z3.Not(hit), hang)
    updated = lru.merge(hit, after_hit, after_miss)
    data = z3.If(hit, z3.IntVal(NONE_PID), pid)
    ph = z3.If(hit, cached.pid, pid)
    wire_ver = z3.If(hit, cached.ver, ver)
    wire_tag = z3.If(hit, cached.tag, tag)
    if send:
        _set_per_rid(updated, enc, msg_name, a.rid, pend=z3.BoolVal(True), seq=s["clock"],
                     data=data, ph=ph, ver=wire_ver, tag=wire_tag)
        _set_req(updated, enc, a.rid, stage=z3.IntVal(StageCode.IN_FLIGHT))
    else:
        _set_req(updated, enc, a.rid, stage=z3.IntVal(StageCode.DONE),
                 outcome=z3.IntVal(OutcomeCode.REJECTED))
    hung = dict(s)
    hung["fault"] = z3.IntVal(FaultCode.HANG)
    after = lru.merge(hang, hung, updated)
    return guard, lru.merge(z3.And(z3.Not(hit), z3.Not(has_data)), client_error, after)


def p0_handle(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    return _handle(enc, p, s, a, send=True)


def p0_handle_rejected(
    enc: Encoding, p: Params, s: SymState, a: Args
) -> tuple[z3.BoolRef, SymState]:
    return _handle(enc, p, s, a, send=False)


def p1_receive(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    """P1 takes request rid's message (the oldest, or any under D1) and handles its item."""
    variant = enc.variant
    in_order = _oldest(enc, s, msg_name, a.rid)
    pending = pick([s[msg_name(r, "pend")] for r in range(enc.r)], a.rid)
    chosen = pending if enc.enables(Drift.D1) else in_order
    guard = z3.And(a.rid >= 0, a.rid < enc.r, chosen)
    ident = _req(s, enc, "id", a.rid)
    data = pick([s[msg_name(r, "data")] for r in range(enc.r)], a.rid)
    ph = pick([s[msg_name(r, "ph")] for r in range(enc.r)], a.rid)
    tag = pick([s[msg_name(r, "tag")] for r in range(enc.r)], a.rid)
    ver = pick([s[msg_name(r, "ver")] for r in range(enc.r)], a.rid)
    popped = _step_base(s)
    _set_per_rid(popped, enc, msg_name, a.rid, pend=z3.BoolVal(False))
    work = dict(popped)
    if variant.touches_first:
        work = lru.touch(work, "p1", ident, s["clock"], variant.receiver_lru, enc.k)
    # a payload
    size = content_bytes(p.receiver_bytes, ident, ver)
    put_state, hang = lru.put(work, "p1", (ident, size, data, ver, tag), s["clock"], p.budget,
                              variant.receiver_lru, enc.k)
    if not variant.drop_before_replace:
        put_state = lru.merge(size > p.budget, work, put_state)
        hang = z3.And(size <= p.budget, hang)
    cached, after_get = lru.get(work, "p1", ident, s["clock"], enc.k)
    found = cached.present
    if variant.payload_wins:
        payload_state, payload_tensor, payload_tver, payload_hang = put_state, data, ver, hang
    else:
        payload_state = lru.merge(found, after_get, put_state)
        payload_tensor = z3.If(found, cached.pid, data)
        payload_tver = z3.If(found, cached.ver, ver)
        payload_hang = z3.And(z3.Not(found), hang)
    # a reference
    usable = z3.And(found, cached.tag == tag) if variant.tagged else found
    is_payload = data != NONE_PID
    n = lru.merge(is_payload, payload_state, after_get)
    tensor = z3.If(is_payload, payload_tensor, cached.pid)
    tver = z3.If(is_payload, payload_tver, cached.ver)
    missed = z3.And(z3.Not(is_payload), z3.Not(usable))
    rid_ver = _req(s, enc, "ver", a.rid)
    n["ld_rid"] = a.rid
    n["ld_kind"] = z3.If(missed, z3.IntVal(DeliveryCode.MISSED), z3.IntVal(DeliveryCode.SERVED))
    n["ld_tensor"] = z3.If(missed, s["ld_tensor"], tensor)
    n["ld_ph"] = z3.If(missed, s["ld_ph"], ph)
    n["ld_tver"] = z3.If(missed, s["ld_tver"], tver)
    n["ld_pver"] = z3.If(missed, s["ld_pver"], ver)
    n["ld_sent"] = z3.If(missed, s["ld_sent"], rid_ver)
    if variant.reports_misses:
        _set_per_rid(n, enc, rep_name, a.rid, pend=z3.BoolVal(True), seq=s["clock"],
                     missed=missed)
    else:
        crashed = dict(n)
        crashed["fault"] = z3.IntVal(FaultCode.ENGINE_CRASH)
        replied = dict(n)
        _set_per_rid(replied, enc, rep_name, a.rid, pend=z3.BoolVal(True), seq=s["clock"],
                     missed=z3.BoolVal(False))
        n = lru.merge(missed, crashed, replied)
    hung = dict(popped)
    hung["fault"] = z3.IntVal(FaultCode.HANG)
    return guard, lru.merge(z3.And(is_payload, payload_hang), hung, n)


def p0_receive_reply(
    enc: Encoding, p: Params, s: SymState, a: Args
) -> tuple[z3.BoolRef, SymState]:
    """P0 takes the oldest reply (its request is `rid`); a miss drops the identity (if the
    variant invalidates) and ends the attempt as retryable."""
    guard = z3.And(a.rid >= 0, a.rid < enc.r, _oldest(enc, s, rep_name, a.rid))
    missed = pick([s[rep_name(r, "missed")] for r in range(enc.r)], a.rid)
    n = _step_base(s)
    _set_per_rid(n, enc, rep_name, a.rid, pend=z3.BoolVal(False))
    if enc.variant.invalidates:
        n = lru.merge(missed, lru.pop(n, "p0", _req(s, enc, "id", a.rid), enc.k), n)
    outcome = z3.If(missed, z3.IntVal(OutcomeCode.MISS), z3.IntVal(OutcomeCode.SUCCESS))
    _set_req(n, enc, a.rid, stage=z3.IntVal(StageCode.DONE), outcome=outcome, missed=missed)
    return guard, n


def retry(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    guard = z3.And(
        _valid_rid(enc, s, a.rid),
        _req(s, enc, "outcome", a.rid) == OutcomeCode.MISS,
        _req(s, enc, "retries", a.rid) < enc.bounds.max_retries,
    )
    n = _step_base(s)
    _set_req(n, enc, a.rid, data=z3.BoolVal(True), retries=_req(s, enc, "retries", a.rid) + 1,
             stage=z3.IntVal(StageCode.SUBMITTED), outcome=z3.IntVal(OutcomeCode.NONE),
             missed=z3.BoolVal(False))
    return guard, n


def _no_message(enc: Encoding, s: SymState) -> z3.BoolRef:
    return z3.And([z3.Not(s[msg_name(r, "pend")]) for r in range(enc.r)])


def clear_both(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    guard = z3.And(_no_message(enc, s), z3.Not(s["reset"]))
    return guard, lru.clear(lru.clear(_step_base(s), "p0", enc.k), "p1", enc.k)


def p1_clear(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    return z3.BoolVal(True), lru.clear(_step_base(s), "p1", enc.k)


def p0_clear(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    return z3.BoolVal(True), lru.clear(_step_base(s), "p0", enc.k)


def p0_clear_for_reset(
    enc: Encoding, p: Params, s: SymState, a: Args
) -> tuple[z3.BoolRef, SymState]:
    n = lru.clear(_step_base(s), "p0", enc.k)
    n["reset"] = z3.BoolVal(True)
    return z3.Not(s["reset"]), n


def p1_reset(enc: Encoding, p: Params, s: SymState, a: Args) -> tuple[z3.BoolRef, SymState]:
    n = lru.clear(_step_base(s), "p1", enc.k)
    n["reset"] = z3.BoolVal(False)
    return s["reset"], n


@dataclass(frozen=True)
class ActionEncoding:
    """One spec action class, its relation, and the drift source that must be enabled."""

    spec_class: type[Action]
    relation: Relation
    requires: Drift | None


ACTIONS: tuple[ActionEncoding, ...] = (
    ActionEncoding(Submit, submit, None),
    ActionEncoding(P0Handle, p0_handle, None),
    ActionEncoding(P0HandleRejected, p0_handle_rejected, Drift.D2),
    ActionEncoding(P1Receive, p1_receive, None),
    ActionEncoding(P0ReceiveReply, p0_receive_reply, None),
    ActionEncoding(Retry, retry, None),
    ActionEncoding(ClearBoth, clear_both, None),
    ActionEncoding(P1Clear, p1_clear, Drift.D3),
    ActionEncoding(P0Clear, p0_clear, Drift.D3),
    ActionEncoding(P0ClearForReset, p0_clear_for_reset, Drift.D4),
    ActionEncoding(P1Reset, p1_reset, Drift.D4),
    ActionEncoding(P1Restart, p1_clear, Drift.D10),
    ActionEncoding(P0Restart, p0_clear, Drift.D10),
)
"""Every encoded action; the index is the action code. P1Clear and P1Restart (P0Clear and
P0Restart) have the same effect and differ in the drift source that enables them."""


def available(enc: Encoding) -> tuple[int, ...]:
    """The codes of the actions the environment enables."""
    return tuple(
        code for code, action in enumerate(ACTIONS)
        if action.requires is None or enc.enables(action.requires)
    )


def code_of(action_class: type[Action]) -> int:
    for code, action in enumerate(ACTIONS):
        if action.spec_class is action_class:
            return code
    raise KeyError(f"{action_class.__name__} is not encoded")


def transition(enc: Encoding, p: Params, s: SymState, n: SymState, a: Args) -> z3.BoolRef:
    """One step from s to n: some enabled action's guard holds and n is its next state."""
    branches = [(code, *ACTIONS[code].relation(enc, p, s, a)) for code in available(enc)]
    facts: list[z3.BoolRef] = [
        s["fault"] == FaultCode.NONE,
        z3.Or([z3.And(a.act == code, guard) for code, guard, _ in branches]),
    ]
    fixed = constants(enc)
    for name, value in s.items():
        chained = value
        for code, _, after in reversed(branches):
            if after[name] is not value:
                chained = z3.If(a.act == code, after[name], chained)
        equation = n[name] == chained
        if name in fixed:
            # a constant: every action must keep it (checked here, once, by simplification)
            equation = z3.simplify(equation)
            if z3.is_true(equation):
                continue
        facts.append(equation)
    return z3.And(facts)


def initial(enc: Encoding, s: SymState) -> z3.BoolRef:
    """The spec's initial state: empty caches and channels, no requests, no processings."""
    facts: list[z3.BoolRef] = [
        z3.Not(value) for name, value in s.items()
        if "_in_k" in name or "_ghost_k" in name or name.endswith("_pend")
    ]
    facts += [s["clock"] == 1, s["nproc"] == 0, s["nreq"] == 0, z3.Not(s["reset"]),
              s["fault"] == FaultCode.NONE, s["ld_kind"] == DeliveryCode.NONE]
    return z3.And(facts)
