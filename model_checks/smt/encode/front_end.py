"""P0's pipeline as relations, mirroring spec/transitions/front_end.py step for step.

`process` is the spec's `process_attempt` (probe front end fe's shadow, run the processor on
the missed items), `update_next` its `update_next_item` (the first call touches every item and
fixes the update order; each call does one item's get-and-update; the last one sends). P0Handle
composes them in one step; under D6, P0Process and P0UpdateItem are separate steps and the
attempt's work (the pids processed, how many items are updated, their order) is kept in the
request's slots. In the composed pipeline that work is a Python value instead: `done` is then a
known number, which keeps the M=1 queries as small as a hand-written handle.

P0's handling of a reply (`p0_receive_reply`) is here too. Every action of front end fe is its
own relation (fe is fixed, not symbolic), so each reads and writes one shadow side only; each
is registered per front end for its spec class (`relations`).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from model_checks.smt.encode import lru
from model_checks.smt.encode.args import Args, Relation, Step
from model_checks.smt.encode.relations import per_front_end
from model_checks.smt.encode.slots import (
    item_exists,
    oldest,
    read,
    req,
    req_item,
    set_req,
    stage_is,
    step_base,
    store_req,
    write,
)
from model_checks.smt.encode.symbols import (
    NONE_PID,
    Encoding,
    FaultCode,
    OutcomeCode,
    Params,
    StageCode,
    SymState,
    constants,
    content_bytes,
    item,
    msg_name,
    pick,
    rep_name,
    req_name,
    shadow_side,
    stamp,
)
from spec import transitions as t


@dataclass(frozen=True)
class Work:
    """An attempt between probe and send: the pid processed per item (-1: a probed hit), how
    many items are updated (`done`: a number in the composed pipeline, a term under D6) and
    whether the second item goes first (`swap`)."""

    procs: tuple[z3.ArithRef, ...]
    done: int | z3.ArithRef
    swap: z3.BoolRef


def _is_first(work: Work) -> z3.BoolRef:
    return z3.BoolVal(work.done == 0) if isinstance(work.done, int) else work.done == 0


def _with_request(enc: Encoding, s: SymState, rid: z3.ArithRef, **fields: z3.ExprRef) -> SymState:
    n = dict(s)
    set_req(n, enc, rid, **fields)
    return n


def _faulted(s: SymState, fault: FaultCode) -> SymState:
    n = dict(s)
    n["fault"] = z3.IntVal(fault)
    return n


def _client_error(enc: Encoding, s: SymState, rid: z3.ArithRef) -> SymState:
    return _with_request(enc, s, rid, stage=z3.IntVal(StageCode.DONE),
                         outcome=z3.IntVal(OutcomeCode.CLIENT_ERROR))


def bypasses_shadow(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    """V4: request rid's attempt is a resend (`retries > 0`), which reads nothing from the
    shadow (`spec...front_end.bypasses_shadow`): every item is processed, recorded afresh and
    sent as a payload, in request order."""
    if not enc.variant.resends_bypass_shadow:
        return z3.BoolVal(False)
    return req(s, enc, "retries", rid) > 0


def process(enc: Encoding, s: SymState, rid: z3.ArithRef, fe: int) -> tuple[SymState, Work]:
    """Probe, and process the missed items (every item of a resend that bypasses the shadow);
    a missed item without media is a client error."""
    side = shadow_side(fe)
    exists = [item_exists(enc, s, rid, j) for j in range(enc.m)]
    ids = [req_item(s, enc, "id", rid, j) for j in range(enc.m)]
    bypass = bypasses_shadow(enc, s, rid)
    missed = [z3.And(exists[j], z3.Or(bypass, z3.Not(lru.present(s, side, ids[j], enc.k))))
              for j in range(enc.m)]
    error = z3.Or([z3.And(missed[j], z3.Not(req_item(s, enc, "data", rid, j)))
                   for j in range(enc.m)])
    nproc = s["nproc"]
    procs = []
    for j in range(enc.m):
        procs.append(z3.If(missed[j], nproc, z3.IntVal(NONE_PID)))
        nproc = z3.If(missed[j], nproc + 1, nproc)
    ok = dict(s)
    ok["nproc"] = nproc
    store_req(ok, enc, rid, stage=z3.IntVal(StageCode.PROCESSED), done=z3.IntVal(0),
           **{item("proc", j): procs[j] for j in range(enc.m)})
    work = Work(tuple(procs), 0, z3.BoolVal(False))
    return lru.merge(error, _client_error(enc, s, rid), ok), work


def _unprocessable_late_miss(
    enc: Encoding, s: SymState, rid: z3.ArithRef, side: str, work: Work
) -> z3.BoolRef:
    """V3: a probed hit sent UUID-only is gone before the update (nothing to reprocess)."""
    if not enc.variant.late_miss_reprocess:
        return z3.BoolVal(False)
    return z3.Or([
        z3.And(item_exists(enc, s, rid, j), work.procs[j] == NONE_PID,
               z3.Not(req_item(s, enc, "data", rid, j)),
               z3.Not(lru.present(s, side, req_item(s, enc, "id", rid, j), enc.k)))
        for j in range(enc.m)
    ])


def _touch_all(enc: Encoding, s: SymState, rid: z3.ArithRef, side: str) -> SymState:
    for j in range(enc.m):
        touched = lru.touch(s, side, req_item(s, enc, "id", rid, j), stamp(s["clock"], j),
                            enc.variant.shadow_lru, enc.k)
        s = lru.merge(item_exists(enc, s, rid, j), touched, s)
    return s


def _order(enc: Encoding, s: SymState, rid: z3.ArithRef, side: str, work: Work) -> z3.BoolRef:
    """Whether the second item is updated first: references first, decided by presence when
    the update starts (`spec...update_order`), kept afterwards; a resend that bypasses the
    shadow goes in request order (all payloads)."""
    if enc.m == 1 or not enc.variant.references_first:
        return z3.BoolVal(False)
    present = [lru.present(s, side, req_item(s, enc, "id", rid, j), enc.k) for j in range(2)]
    decided = z3.And(item_exists(enc, s, rid, 1), z3.Not(present[0]), present[1],
                     z3.Not(bypasses_shadow(enc, s, rid)))
    return z3.If(_is_first(work), decided, work.swap)


def _index(enc: Encoding, work: Work, swap: z3.BoolRef) -> z3.ArithRef:
    """The request index of the item this update handles."""
    if enc.m == 1:
        return z3.IntVal(0)
    first = z3.If(swap, z3.IntVal(1), z3.IntVal(0))
    return z3.If(_is_first(work), first, 1 - first)


def update_next(
    enc: Encoding, p: Params, s: SymState, rid: z3.ArithRef, fe: int, work: Work
) -> tuple[SymState, Work]:
    """One item's shadow update of a processed attempt (the caller guards the stage); the
    first also checks V3's unprocessable late miss and touches every item; the last sends."""
    variant, side, first = enc.variant, shadow_side(fe), _is_first(work)
    early_error = z3.And(first, _unprocessable_late_miss(enc, s, rid, side, work))
    t = s
    if variant.touches_first:
        t = lru.merge(first, _touch_all(enc, s, rid, side), s)
    swap = _order(enc, t, rid, side, work)
    index = _index(enc, work, swap)
    def of_item(field_name: str) -> z3.ExprRef:
        return pick([req_item(s, enc, field_name, rid, j) for j in range(enc.m)], index)

    ident, ver, has_data = of_item("id"), of_item("ver"), of_item("data")
    when = stamp(s["clock"], enc.m + (work.done if isinstance(work.done, int) else 0))
    cached, after_hit = lru.get(t, side, ident, when, enc.k)
    # a resend that bypasses the shadow never reads it: no get, every item a fresh record
    hit = z3.And(cached.present, z3.Not(bypasses_shadow(enc, s, rid)))
    processed = pick(list(work.procs), index)
    lost = z3.And(z3.Not(hit), processed == NONE_PID)
    reprocess = z3.And(lost, z3.BoolVal(variant.late_miss_reprocess))
    pid = z3.If(reprocess, t["nproc"], processed)
    recorded = dict(t)
    recorded["nproc"] = z3.If(reprocess, t["nproc"] + 1, t["nproc"])
    tag = pid if variant.tagged else z3.IntVal(NONE_PID)
    size = content_bytes(p.shadow_bytes, ident, ver)
    limits = lru.Limits(p.budget, variant.shadow_lru, enc.k)
    recorded, hang = lru.put(recorded, side, (ident, size, pid, ver, tag), when, limits)
    after = lru.merge(hit, after_hit, recorded)
    wire = {"data": z3.If(hit, z3.IntVal(NONE_PID), pid), "ph": z3.If(hit, cached.pid, pid),
            "ver": z3.If(hit, cached.ver, ver), "tag": z3.If(hit, cached.tag, tag)}
    _write_wire(enc, after, rid, index, wire)
    sent, progressed = _advance(enc, after, rid, work, swap)
    if variant.late_miss_reprocess:
        failed = _client_error(enc, t, rid)
        missing = z3.And(lost, z3.Not(has_data))
    else:
        # P0's assertion fails this request only: the touches and the items updated before
        # it stay in the shadow (`t`), and nothing is sent.
        failed = _with_request(enc, t, rid, stage=z3.IntVal(StageCode.DONE),
                               outcome=z3.IntVal(OutcomeCode.P0_ASSERT))
        missing = lost
    result = lru.merge(z3.And(z3.Not(hit), hang), _faulted(t, FaultCode.HANG), sent)
    result = lru.merge(missing, failed, result)
    result = lru.merge(early_error, _client_error(enc, s, rid), result)
    return result, progressed


def _write_wire(enc: Encoding, s: SymState, rid: z3.ArithRef, index: z3.ArithRef,
                wire: dict[str, z3.ExprRef]) -> None:
    fixed = constants(enc)
    for j in range(enc.m):
        this = index == j if enc.m > 1 else z3.BoolVal(True)
        for field_name, value in wire.items():
            name = item(field_name, j)
            if msg_name(0, name) in fixed:
                continue
            old = read(s, enc, msg_name, name, rid)
            write(s, enc, msg_name, rid, **{name: z3.If(this, value, old)})


def _advance(
    enc: Encoding, s: SymState, rid: z3.ArithRef, work: Work, swap: z3.BoolRef
) -> tuple[SymState, Work]:
    """Count the item done; after the last item, send the message."""
    done = work.done + 1
    finished = req(s, enc, "n", rid) <= done
    sent = dict(s)
    write(sent, enc, msg_name, rid, pend=z3.BoolVal(True), seq=s["clock"])
    set_req(sent, enc, rid, stage=z3.IntVal(StageCode.IN_FLIGHT))
    updating = dict(s)
    store_req(updating, enc, rid, stage=z3.IntVal(StageCode.UPDATING),
           done=z3.IntVal(done) if isinstance(done, int) else done, swap=swap)
    return lru.merge(finished, sent, updating), Work(work.procs, done, swap)


def _mid_pipeline(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    stage = req(s, enc, "stage", rid)
    return z3.Or(stage == StageCode.PROCESSED, stage == StageCode.UPDATING)


def handle(enc: Encoding, p: Params, s: SymState, rid: z3.ArithRef, fe: int) -> SymState:
    """The whole pipeline in one step (`spec...handle_attempt`), from a submitted attempt."""
    state, work = process(enc, s, rid, fe)
    for _ in range(enc.m):
        active = z3.And(state["fault"] == FaultCode.NONE, _mid_pipeline(enc, state, rid))
        after, progressed = update_next(enc, p, state, rid, fe, work)
        state = lru.merge(active, after, state)
        work = progressed
    return state


def _of_front_end(enc: Encoding, s: SymState, rid: z3.ArithRef, fe: int) -> z3.BoolRef:
    return req(s, enc, "fe", rid) == fe


def _routable(enc: Encoding, a: Args) -> z3.BoolRef:
    """The router's choice is an engine (D5's router configuration; always with one engine,
    whose messages all go to engine 0)."""
    if enc.engines == 1:
        return z3.BoolVal(True)
    return z3.And(a.eng >= 0, a.eng < enc.engines)


def _routed(enc: Encoding, s: SymState, rid: z3.ArithRef, a: Args) -> SymState:
    """The message this step sent (if it is pending now) goes to engine `a.eng`."""
    if enc.engines == 1:
        return s
    routed = dict(s)
    pending = read(s, enc, msg_name, "pend", rid)
    write(routed, enc, msg_name, rid, eng=z3.If(pending, a.eng, read(s, enc, msg_name, "eng", rid)))
    return routed


def _sends_next(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    """The next update of rid's attempt is its last (`spec...front_end.sends_next`)."""
    n, stage = req(s, enc, "n", rid), req(s, enc, "stage", rid)
    return z3.Or(z3.And(stage == StageCode.PROCESSED, n == 1),
                 z3.And(stage == StageCode.UPDATING, req(s, enc, "done", rid) + 1 == n))


@per_front_end(t.P0Handle)
def p0_handle(fe: int) -> Relation:
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        guard = z3.And(stage_is(enc, s, a.rid, StageCode.SUBMITTED),
                       _of_front_end(enc, s, a.rid, fe), _routable(enc, a))
        return guard, step_base(_routed(enc, handle(enc, p, s, a.rid, fe), a.rid, a))
    return relation


@per_front_end(t.P0HandleRejected)
def p0_handle_rejected(fe: int) -> Relation:
    """D2: the whole pipeline, then the message is dropped and the request rejected."""
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        guard, after = p0_handle(fe)(enc, p, s, a)
        sent = z3.And(after["fault"] == FaultCode.NONE,
                      req(after, enc, "stage", a.rid) == StageCode.IN_FLIGHT)
        rejected = dict(after)
        write(rejected, enc, msg_name, a.rid, pend=z3.BoolVal(False))
        set_req(rejected, enc, a.rid, stage=z3.IntVal(StageCode.DONE),
                outcome=z3.IntVal(OutcomeCode.REJECTED))
        return guard, lru.merge(sent, rejected, after)
    return relation


@per_front_end(t.P0HandleRejectedUndo)
def p0_handle_rejected_undo(fe: int) -> Relation:
    """D2, the front end that undoes: as `p0_handle_rejected`, then every shadow entry
    holding a processing the message carried as a payload is dropped
    (`spec...front_end.undo_recorded`)."""
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        guard, after = p0_handle(fe)(enc, p, s, a)
        sent = z3.And(after["fault"] == FaultCode.NONE,
                      req(after, enc, "stage", a.rid) == StageCode.IN_FLIGHT)
        undone = dict(after)
        side = shadow_side(fe)
        for j in range(enc.m):
            ident = req_item(after, enc, "id", a.rid, j)
            data = read(after, enc, msg_name, item("data", j), a.rid)
            recorded = z3.And(item_exists(enc, after, a.rid, j), data != NONE_PID,
                              lru.present(after, side, ident, enc.k),
                              lru.field_of(after, side, "pid", ident, enc.k) == data)
            undone = lru.merge(recorded, lru.pop(undone, side, ident, enc.k), undone)
        write(undone, enc, msg_name, a.rid, pend=z3.BoolVal(False))
        set_req(undone, enc, a.rid, stage=z3.IntVal(StageCode.DONE),
                outcome=z3.IntVal(OutcomeCode.REJECTED))
        return guard, lru.merge(sent, undone, after)
    return relation


@per_front_end(t.P0Process)
def p0_process(fe: int) -> Relation:
    """D6: probe and process only; the work is kept in the request's slots."""
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        guard = z3.And(stage_is(enc, s, a.rid, StageCode.SUBMITTED),
                       _of_front_end(enc, s, a.rid, fe))
        state, _ = process(enc, s, a.rid, fe)
        return guard, step_base(state)
    return relation


@per_front_end(t.P0UpdateItem)
def p0_update_item(fe: int) -> Relation:
    """D6: one item's update of a processed attempt, its work read from the request's slots."""
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        guard = z3.And(valid_and_mid(enc, s, a.rid), _of_front_end(enc, s, a.rid, fe))
        if enc.engines > 1:  # the engine matters only where this update sends
            guard = z3.And(guard, z3.Or(a.eng == 0, z3.And(_routable(enc, a),
                                                           _sends_next(enc, s, a.rid))))
        work = Work(
            tuple(req_item(s, enc, "proc", a.rid, j) for j in range(enc.m)),
            req(s, enc, "done", a.rid), req(s, enc, "swap", a.rid),
        )
        state, _ = update_next(enc, p, s, a.rid, fe, work)
        return guard, step_base(_routed(enc, state, a.rid, a))
    return relation


@per_front_end(t.P0ReceiveReply)
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


def valid_and_mid(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    """Request rid exists and is between probe and send."""
    return z3.Or(stage_is(enc, s, rid, StageCode.PROCESSED),
                 stage_is(enc, s, rid, StageCode.UPDATING))


def front_end_idle(enc: Encoding, s: SymState, fe: int) -> z3.BoolRef:
    """No request of front end fe is between probe and send (always true without D6)."""
    if not enc.split:
        return z3.BoolVal(True)
    return z3.And([
        z3.Not(z3.And(r < s["nreq"], s[req_name(r, "fe")] == fe,
                      z3.Or(s[req_name(r, "stage")] == StageCode.PROCESSED,
                            s[req_name(r, "stage")] == StageCode.UPDATING)))
        for r in range(enc.r)
    ])

