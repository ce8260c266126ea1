"""Each spec action as one relation: a guard and the complete next state (explicit frame).

A relation returns `(guard, next)` where `next` gives every state variable's value after the
step; variables the action does not touch are copied (the frame), so nothing is left free.
`transition` combines the actions the environment enables, selected by the step's action code,
exactly as `spec.machine.step` dispatches on the action: a faulted state has no successor.

P0's pipeline lives in `front_end`, P1's handling of a message in `engine`; this module has the
client (Submit, Retry), P0's handling of a reply, the clears and restarts, and the registry. An
action of a front end is registered once per front end (its argument is then fixed). P1Receive's
spec argument, the message's index in the channel, is the number of pending messages older than
the chosen one (see `decode`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from model_checks.smt.encode import lru
from model_checks.smt.encode.args import Args, Relation, Step, args_at
from model_checks.smt.encode.engine import p1_receive
from model_checks.smt.encode.front_end import (
    front_end_idle,
    p0_handle,
    p0_handle_rejected,
    p0_process,
    p0_update_item,
)
from model_checks.smt.encode.slots import (
    item_exists,
    no_message,
    oldest,
    read,
    req,
    req_item,
    set_req,
    step_base,
    store_req,
    unfinished,
    valid_rid,
    write,
)
from model_checks.smt.encode.symbols import (
    DeliveryCode,
    Encoding,
    FaultCode,
    OutcomeCode,
    Params,
    StageCode,
    SymState,
    constants,
    content_bytes,
    item,
    receiver_side,
    rep_name,
    shadow_side,
)
from spec import Drift
from spec.transitions import (
    Action,
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1Reset,
    P1Restart,
    Retry,
    Submit,
)

__all__ = ["ACTIONS", "Args", "args_at", "available", "code_of", "initial", "transition"]


def _submitted_items(enc: Encoding, a: Args) -> z3.BoolRef:
    """Submit's items are well formed: 1..M of them, known distinct identities, known
    versions; without D8, those that fit the budget fit it together (`request_fits_unless_d8`
    needs the sizes, so it is checked in `submit`)."""
    facts: list[z3.BoolRef] = [a.sn >= 1, a.sn <= enc.m]
    for j in range(enc.m):
        used = a.sn > j if j else z3.BoolVal(True)
        facts.append(z3.Implies(used, z3.And(a.sid[j] >= 0, a.sid[j] < enc.k,
                                             a.sver[j] >= 0, a.sver[j] < enc.versions)))
        facts += [z3.Implies(z3.And(used, a.sn > i), a.sid[i] != a.sid[j]) for i in range(j)]
    return z3.And(facts)


def _fits_unless_d8(enc: Encoding, p: Params, a: Args) -> z3.BoolRef:
    if enc.m == 1 or enc.enables(Drift.D8):
        return z3.BoolVal(True)
    sizes = [content_bytes(p.shadow_bytes, a.sid[j], a.sver[j]) for j in range(enc.m)]
    counted = [z3.If(z3.And(a.sn > j, sizes[j] <= p.budget), sizes[j], 0)
               for j in range(enc.m)]
    return z3.Sum(counted) <= p.budget


def submit(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    """Submit(items, front_end) as request nreq."""
    guard = z3.And(
        s["nreq"] < enc.r,
        unfinished(enc, s) < enc.bounds.max_in_flight,
        a.sfe >= 0, a.sfe < enc.front_ends,
        _submitted_items(enc, a), _fits_unless_d8(enc, p, a),
    )
    n = step_base(s)
    fields: dict[str, z3.ExprRef] = {
        "fe": a.sfe, "n": a.sn, "retries": z3.IntVal(0), "stage": z3.IntVal(StageCode.SUBMITTED),
        "outcome": z3.IntVal(OutcomeCode.NONE),
    }
    for j in range(enc.m):
        fields |= {item("id", j): a.sid[j], item("ver", j): a.sver[j],
                   item("data", j): a.sdata[j], item("missed", j): z3.BoolVal(False)}
    store_req(n, enc, s["nreq"], **fields)
    n["nreq"] = s["nreq"] + 1
    return guard, n


def p0_receive_reply(fe: int) -> Relation:
    """P0 (front end fe) takes the oldest reply (its request is `rid`); a miss drops the
    reported identities from fe's shadow (if the variant invalidates) and ends the attempt as
    retryable."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        guard = z3.And(a.rid >= 0, a.rid < enc.r, oldest(enc, s, rep_name, a.rid),
                       req(s, enc, "fe", a.rid) == fe)
        reported = [z3.And(item_exists(enc, s, a.rid, j),
                           read(s, enc, rep_name, item("missed", j), a.rid))
                    for j in range(enc.m)]
        missed = z3.Or(reported)
        n = step_base(s)
        write(n, enc, rep_name, a.rid, pend=z3.BoolVal(False))
        if enc.variant.invalidates:
            for j, flag in enumerate(reported):
                ident = req_item(s, enc, "id", a.rid, j)
                n = lru.merge(flag, lru.pop(n, shadow_side(fe), ident, enc.k), n)
        outcome = z3.If(missed, z3.IntVal(OutcomeCode.MISS), z3.IntVal(OutcomeCode.SUCCESS))
        flags = {item("missed", j): z3.If(missed, reported[j], req_item(s, enc, "missed", a.rid, j))
                 for j in range(enc.m)}
        set_req(n, enc, a.rid, stage=z3.IntVal(StageCode.DONE), outcome=outcome, **flags)
        return guard, n

    return relation


def retry(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    """The client resends a missed request with media attached to every item."""
    guard = z3.And(
        valid_rid(enc, s, a.rid),
        req(s, enc, "outcome", a.rid) == OutcomeCode.MISS,
        req(s, enc, "retries", a.rid) < enc.bounds.max_retries,
    )
    n = step_base(s)
    items: dict[str, z3.ExprRef] = {}
    for j in range(enc.m):
        items |= {item("data", j): z3.BoolVal(True), item("missed", j): z3.BoolVal(False)}
    set_req(n, enc, a.rid, retries=req(s, enc, "retries", a.rid) + 1,
            stage=z3.IntVal(StageCode.SUBMITTED), outcome=z3.IntVal(OutcomeCode.NONE), **items)
    return guard, n


def _shadows_cleared(enc: Encoding, s: SymState) -> SymState:
    for side in enc.shadows:
        s = lru.clear(s, side, enc.k)
    return s


def _all_idle(enc: Encoding, s: SymState) -> z3.BoolRef:
    return z3.And([front_end_idle(enc, s, fe) for fe in range(enc.front_ends)])


def _receivers_cleared(enc: Encoding, s: SymState) -> SymState:
    for side in enc.receivers:
        s = lru.clear(s, side, enc.k)
    return s


def clear_both(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    guard = z3.And(no_message(enc, s), z3.Not(s["reset"]), _all_idle(enc, s))
    return guard, _receivers_cleared(enc, _shadows_cleared(enc, step_base(s)))


def p1_clear(engine: int) -> Relation:
    """Engine `engine`'s receiver is wiped (D3's P1Clear, D10's P1Restart)."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return z3.BoolVal(True), lru.clear(step_base(s), receiver_side(engine), enc.k)

    return relation


def p0_clear(fe: int) -> Relation:
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return z3.BoolVal(True), lru.clear(step_base(s), shadow_side(fe), enc.k)

    return relation


def p0_restart(fe: int) -> Relation:
    """D10: front end fe restarts between requests (none of its attempts mid-pipeline)."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return front_end_idle(enc, s, fe), lru.clear(step_base(s), shadow_side(fe), enc.k)

    return relation


def p0_clear_for_reset(fe: int) -> Relation:
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        n = lru.clear(step_base(s), shadow_side(fe), enc.k)
        n["reset"] = z3.BoolVal(True)
        return z3.Not(s["reset"]), n

    return relation


def p1_reset(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    """D4's reset reaches P1: every engine's receiver is wiped (it is broadcast)."""
    n = _receivers_cleared(enc, step_base(s))
    n["reset"] = z3.BoolVal(False)
    return s["reset"], n


@dataclass(frozen=True)
class ActionEncoding:
    """One spec action class (with its front end, for a front end's action), its relation,
    and the drift sources that must all be enabled."""

    spec_class: type[Action]
    relation: Relation
    requires: tuple[Drift, ...] = ()
    front_end: int | None = None
    engine: int | None = None  # an engine's action: engine 1 exists in the router only


def _per_front_end(
    spec_class: type[Action], relation_of: Callable[[int], Relation],
    requires: tuple[Drift, ...] = (),
) -> tuple[ActionEncoding, ...]:
    """The action for front end 0, and for front end 1 under D5."""
    return tuple(
        ActionEncoding(spec_class, relation_of(fe), (*requires, *((Drift.D5,) if fe else ())), fe)
        for fe in (0, 1)
    )


def _per_engine(
    spec_class: type[Action], relation_of: Callable[[int], Relation],
    requires: tuple[Drift, ...] = (),
) -> tuple[ActionEncoding, ...]:
    """The action of engine 0, and of engine 1 in D5's router configuration."""
    return tuple(
        ActionEncoding(spec_class, relation_of(e), (*requires, *((Drift.D5,) if e else ())),
                       engine=e)
        for e in (0, 1)
    )


ENCODINGS: dict[type[Action], tuple[ActionEncoding, ...]] = {
    Submit: (ActionEncoding(Submit, submit),),
    P0Handle: _per_front_end(P0Handle, p0_handle),
    P0HandleRejected: _per_front_end(P0HandleRejected, p0_handle_rejected, (Drift.D2,)),
    P0Process: _per_front_end(P0Process, p0_process, (Drift.D6,)),
    P0UpdateItem: _per_front_end(P0UpdateItem, p0_update_item, (Drift.D6,)),
    P1Receive: _per_engine(P1Receive, p1_receive),
    P0ReceiveReply: _per_front_end(P0ReceiveReply, p0_receive_reply),
    Retry: (ActionEncoding(Retry, retry),),
    ClearBoth: (ActionEncoding(ClearBoth, clear_both),),
    P1Clear: _per_engine(P1Clear, p1_clear, (Drift.D3,)),
    P0Clear: _per_front_end(P0Clear, p0_clear, (Drift.D3,)),
    P0ClearForReset: _per_front_end(P0ClearForReset, p0_clear_for_reset, (Drift.D4,)),
    P1Reset: (ActionEncoding(P1Reset, p1_reset, (Drift.D4,)),),
    P1Restart: _per_engine(P1Restart, p1_clear, (Drift.D10,)),
    P0Restart: _per_front_end(P0Restart, p0_restart, (Drift.D10,)),
}
"""Per spec action class, its encodings (one per front end or engine where it has one).
P1Clear and P1Restart have the same effect and differ in the drift source that enables
them."""

ACTIONS: tuple[ActionEncoding, ...] = tuple(e for group in ENCODINGS.values() for e in group)
"""Every encoded action, in `ENCODINGS`' order; the index is the action code."""


def available(enc: Encoding) -> tuple[int, ...]:
    """The codes of the actions the environment enables."""
    return tuple(
        code for code, action in enumerate(ACTIONS)
        if all(enc.enables(d) for d in action.requires)
        and (action.front_end is None or action.front_end < enc.front_ends)
        and (action.engine is None or action.engine < enc.engines)
    )


def code_of(action_class: type[Action], front_end: int = 0, engine: int = 0) -> int:
    """The code of a spec action class (of front end `front_end`, for a front end's action;
    of engine `engine`, for an engine's action)."""
    for code, action in enumerate(ACTIONS):
        if (action.spec_class is action_class and action.front_end in (None, front_end)
                and action.engine in (None, engine)):
            return code
    raise KeyError(f"{action_class.__name__} (front end {front_end}, engine {engine}) is not "
                   "encoded")


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
