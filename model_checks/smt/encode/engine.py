"""P1Receive as a relation, mirroring spec/transitions/engine.py: P1 takes one message (the
oldest, or any under D1), touches every item's identity (where the variant touches first),
resolves the items in resolution order (references first in V3, a reference to the identity
of the message's other payload after it), then serves every item or reports the missed
identities (V0: crashes; one flag per identity where a request may name one twice).

Each item is resolved at a position of the resolution order; with two items the position's item
index is symbolic (`swap`: the second item is resolved first), so one resolution formula serves
both orders.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from model_checks.smt.encode import lru
from model_checks.smt.encode.args import Args, Relation, Step
from model_checks.smt.encode.relations import per_engine
from model_checks.smt.encode.slots import (
    item_exists,
    oldest_routed,
    read,
    req_item,
    step_base,
    write,
)
from model_checks.smt.encode.symbols import (
    NONE_PID,
    DeliveryCode,
    Encoding,
    FaultCode,
    Params,
    SymState,
    content_bytes,
    item,
    msg_name,
    receiver_side,
    rep_name,
    stamp,
)
from spec import Drift, MissHandling
from spec import transitions as t


@dataclass(frozen=True)
class WireItem:
    """One item of the message taken: identity, payload pid (-1: a reference), placeholders'
    pid, their version, the tag, and whether the request has this item at all."""

    ident: z3.ArithRef
    data: z3.ArithRef
    ph: z3.ArithRef
    ver: z3.ArithRef
    tag: z3.ArithRef
    exists: z3.BoolRef


@dataclass(frozen=True)
class Resolved:
    """An item's outcome: the tensor's pid and version, missed, and an eviction hang."""

    tensor: z3.ArithRef
    tver: z3.ArithRef
    missed: z3.BoolRef
    hang: z3.BoolRef


def _wire_item(enc: Encoding, s: SymState, rid: z3.ArithRef, j: int) -> WireItem:
    def field(name: str) -> z3.ExprRef:
        return read(s, enc, msg_name, item(name, j), rid)

    return WireItem(req_item(s, enc, "id", rid, j), field("data"), field("ph"), field("ver"),
                    field("tag"), item_exists(enc, s, rid, j))


def _choose(cond: z3.BoolRef, a: WireItem, b: WireItem) -> WireItem:
    return WireItem(*(z3.If(cond, x, y) for x, y in zip(
        (a.ident, a.data, a.ph, a.ver, a.tag, a.exists),
        (b.ident, b.data, b.ph, b.ver, b.tag, b.exists), strict=True)))


def _resolve(enc: Encoding, p: Params, s: SymState, w: WireItem,
             clock: z3.ArithRef, side: str) -> tuple[SymState, Resolved]:
    """One item: a payload per the variant's payload rule, a reference from the cache (the
    receiver `side` of the engine handling the message)."""
    variant = enc.variant
    size = content_bytes(p.receiver_bytes, w.ident, w.ver)
    limits = lru.Limits(p.budget, variant.receiver_lru, enc.k)
    put_state, hang = lru.put(s, side, (w.ident, size, w.data, w.ver, w.tag), clock, limits)
    if not variant.drop_before_replace:
        put_state = lru.merge(size > p.budget, s, put_state)
        hang = z3.And(size <= p.budget, hang)
    cached, after_get = lru.get(s, side, w.ident, clock, enc.k)
    found = cached.present
    if variant.payload_wins:
        payload = (put_state, w.data, w.ver, hang)
    else:
        payload = (lru.merge(found, after_get, put_state), z3.If(found, cached.pid, w.data),
                   z3.If(found, cached.ver, w.ver), z3.And(z3.Not(found), hang))
    usable = z3.And(found, cached.tag == w.tag) if variant.tagged else found
    is_payload = w.data != NONE_PID
    n = lru.merge(is_payload, payload[0], after_get)
    return n, Resolved(z3.If(is_payload, payload[1], cached.pid),
                       z3.If(is_payload, payload[2], cached.ver),
                       z3.And(z3.Not(is_payload), z3.Not(usable)),
                       z3.And(is_payload, payload[3]))


def _positions(enc: Encoding, wires: list[WireItem]) -> tuple[z3.BoolRef, list[WireItem]]:
    """The resolution order: (swap, the wire item at each position)."""
    if enc.m == 1 or not enc.variant.references_first:
        return z3.BoolVal(False), wires
    first, second = wires
    swap = z3.And(second.exists, first.data != NONE_PID, second.data == NONE_PID)
    if enc.variant.references_after_own_payload:
        # a reference to the identity the first item's payload carries stays after it
        swap = z3.And(swap, first.ident != second.ident)
    return swap, [_choose(swap, second, first), _choose(swap, first, second)]


def _per_item(enc: Encoding, swap: z3.BoolRef, at_position: list[z3.ExprRef], j: int
              ) -> z3.ExprRef:
    """The value computed for request item j, from the values computed per position."""
    if enc.m == 1:
        return at_position[0]
    return z3.If(swap, at_position[1 - j], at_position[j])


def _by_identity(enc: Encoding, s: SymState, rid: z3.ArithRef, flags: list[z3.BoolRef]
                 ) -> list[z3.BoolRef]:
    """Per item: whether its identity is reported. The spec's reply lists identities, so an
    item is flagged when any item of the same identity is (a request naming one identity
    twice may miss one occurrence only)."""
    if not enc.bounds.duplicates:
        return flags
    ids = [req_item(s, enc, "id", rid, j) for j in range(enc.m)]
    return [z3.Or([z3.And(flags[i], item_exists(enc, s, rid, j), ids[i] == ids[j])
                   for i in range(enc.m)]) for j in range(enc.m)]


@per_engine(t.P1Receive)
def p1_receive(engine: int) -> Relation:
    """Engine `engine` takes request rid's message (one routed to it: the oldest of those, or
    any under D1) and handles every item of it with its own receiver."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return _p1_receive(enc, p, s, a, engine)

    return relation


@per_engine(t.P1ReceiveOwnPayload)
def p1_receive_own_payload(engine: int) -> Relation:
    """D9, the receiver that serves a reference missing the cache from an earlier payload of
    its own message (`spec...engine.own_payload_pairs`): as `p1_receive`, enabled where the
    message's second resolved item is a reference to the first's identity (and tag, where
    tagged) and the first a payload; in a tagged variant that reference, if it misses, gets
    the payload's tensor (untagged, the step is `p1_receive`'s)."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return _p1_receive(enc, p, s, a, engine, own_payloads=True)

    return relation


def _own_pair(enc: Encoding, ordered: list[WireItem]) -> z3.BoolRef:
    """Whether the second resolved item is a reference the first resolved item's payload
    carries (both exist; same identity; same tag where tagged)."""
    if enc.m == 1:
        return z3.BoolVal(False)
    first, second = ordered
    same = [first.ident == second.ident]
    if enc.variant.tagged:
        same.append(first.tag == second.tag)
    return z3.And(first.exists, second.exists, first.data != NONE_PID,
                  second.data == NONE_PID, *same)


def _p1_receive(enc: Encoding, p: Params, s: SymState, a: Args, engine: int,
                own_payloads: bool = False) -> Step:
    variant = enc.variant
    side = receiver_side(engine)
    pending = read(s, enc, msg_name, "pend", a.rid)
    chosen = pending if enc.enables(Drift.D1) else oldest_routed(enc, s, a.rid)
    guard = z3.And(a.rid >= 0, a.rid < enc.r, chosen,
                   read(s, enc, msg_name, "eng", a.rid) == engine)
    wires = [_wire_item(enc, s, a.rid, j) for j in range(enc.m)]
    work = step_base(s)
    write(work, enc, msg_name, a.rid, pend=z3.BoolVal(False))
    if variant.touches_first:
        for j, w in enumerate(wires):
            touched = lru.touch(work, side, w.ident, stamp(s["clock"], j), variant.receiver_lru,
                                enc.k)
            work = lru.merge(w.exists, touched, work)
    swap, ordered = _positions(enc, wires)
    own = _own_pair(enc, ordered) if own_payloads else z3.BoolVal(False)
    if own_payloads:
        guard = z3.And(guard, own)
    results: list[Resolved] = []
    for position, w in enumerate(ordered):
        after, resolved = _resolve(enc, p, work, w, stamp(s["clock"], enc.m + position), side)
        work = lru.merge(w.exists, after, work)
        if position == 1 and own_payloads and variant.tagged:  # served from its own payload
            from_own = z3.And(own, resolved.missed)
            resolved = Resolved(z3.If(from_own, results[0].tensor, resolved.tensor),
                                z3.If(from_own, results[0].tver, resolved.tver),
                                z3.And(resolved.missed, z3.Not(own)), resolved.hang)
        results.append(Resolved(resolved.tensor, resolved.tver, z3.And(w.exists, resolved.missed),
                                z3.And(w.exists, resolved.hang)))
    missed = [_per_item(enc, swap, [r.missed for r in results], j) for j in range(enc.m)]
    any_missed = z3.Or(missed)
    _deliver(enc, work, s, a.rid, _Resolution(swap, results, any_missed))
    n = _reply(enc, work, s, a.rid, missed)
    hung = step_base(s)
    hung["fault"] = z3.IntVal(FaultCode.HANG)
    return guard, lru.merge(z3.Or([r.hang for r in results]), hung, n)


@dataclass(frozen=True)
class _Resolution:
    """A receive's items resolved: whether the two items' positions are swapped (`swap`),
    each position's result, and whether any item missed."""

    swap: z3.BoolRef
    results: list[Resolved]
    any_missed: z3.BoolRef


def _deliver(enc: Encoding, n: SymState, s: SymState, rid: z3.ArithRef,
             resolution: _Resolution) -> None:
    """The last delivery: every item served, or the miss (in place)."""
    swap, results, any_missed = resolution.swap, resolution.results, resolution.any_missed
    n["ld_rid"] = rid
    n["ld_kind"] = z3.If(any_missed, z3.IntVal(DeliveryCode.MISSED),
                         z3.IntVal(DeliveryCode.SERVED))
    for j in range(enc.m):
        served = {
            "ld_tensor": _per_item(enc, swap, [r.tensor for r in results], j),
            "ld_tver": _per_item(enc, swap, [r.tver for r in results], j),
            "ld_ph": read(s, enc, msg_name, item("ph", j), rid),
            "ld_pver": read(s, enc, msg_name, item("ver", j), rid),
            "ld_sent": req_item(s, enc, "ver", rid, j),
        }
        for name, value in served.items():
            key = item(name, j)
            if not n[key].eq(value):
                n[key] = z3.If(any_missed, s[key], value)


def _reply(enc: Encoding, n: SymState, s: SymState, rid: z3.ArithRef,
           missed: list[z3.BoolRef]) -> SymState:
    """The reply listing the reported identities (V0: a miss crashes the engine)."""
    any_missed = z3.Or(missed)
    if enc.variant.reports_misses:
        reported = list(missed)
        if enc.variant.miss_handling is MissHandling.REPORT_FIRST:
            reported = [z3.And(m, *[z3.Not(e) for e in missed[:j]]) for j, m in enumerate(missed)]
        reported = _by_identity(enc, s, rid, reported)
        replied = dict(n)
        write(replied, enc, rep_name, rid, pend=z3.BoolVal(True), seq=s["clock"],
              **{item("missed", j): reported[j] for j in range(enc.m)})
        return replied
    crashed = dict(n)
    crashed["fault"] = z3.IntVal(FaultCode.ENGINE_CRASH)
    replied = dict(n)
    write(replied, enc, rep_name, rid, pend=z3.BoolVal(True), seq=s["clock"],
          **{item("missed", j): z3.BoolVal(False) for j in range(enc.m)})
    return lru.merge(any_missed, crashed, replied)
