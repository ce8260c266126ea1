"""Processing renaming: the one state reduction the explorer applies, and why it is sound.

A processing id (pid) is an index into `State.processings`. The spec uses pids only as names:
it compares them for equality (S1 through `processings[pid].content`, tags against tags,
I3's tensor against placeholders), looks them up, and issues a fresh one as
`len(processings)`. Nothing orders pids or reads a processing no entry, message, attempt or
delivery holds. So renaming the held pids by a bijection onto 0..k-1, in the order a fixed
traversal of the state first meets them, and forgetting the processings nobody holds, gives
a state that every property judges alike and whose successors are the renamed successors of
the original's (the fresh pid k is distinct from every held one in both): the reduced graph
is bisimilar to the unreduced one, action by action.

Tags are renamed with the same map: the spec's tags are pids (`Variant.tag_for`), and the
lemma I1 (tag = processing) must read the same before and after. A tag that names no held
processing is renamed too (to a fresh number above the held ones), so equality between tags
is preserved whatever the variant does with them.

Every engine's receiver (D5's router configuration) is traversed after engine 0's, and a
message keeps the engine it was routed to: the router's choice is state, not a name.

Actions never name a pid, so a path in the reduced graph replays, action by action, on the
unreduced spec from the initial state; the explorer writes every counterexample that way.
`tests/explore/test_explore_reduction.py` compares verdicts, diameters and counterexample
lengths with and without this reduction on small instances.
"""

from __future__ import annotations

from collections.abc import Iterable

from spec import State
from spec.lru import Entry, Ghost, Lru
from spec.state import Delivery, Message, P0Work, Request, Served, WireItem


class _Renamer:
    """Assigns new numbers to pids (and tags) in the order they are first met."""

    def __init__(self) -> None:
        self.table: dict[int, int] = {}

    def __call__(self, pid: int) -> int:
        new = self.table.get(pid)
        if new is None:
            new = self.table[pid] = len(self.table)
        return new

    def optional(self, pid: int | None) -> int | None:
        return None if pid is None else self(pid)


def canonical(state: State) -> State:
    """The representative of `state`'s class: held pids renamed 0..k-1, others forgotten."""
    if _already_canonical(state):
        return state  # keep the original objects: nothing to rename, and cheaper to hash
    rename = _Renamer()
    shadows = tuple(_lru(shadow, rename) for shadow in state.shadows)
    receiver = _lru(state.receiver, rename)
    others = tuple(_lru(other, rename) for other in state.other_receivers)
    to_engine = tuple(_message(m, rename) for m in state.to_engine)
    requests = tuple(_request(r, rename) for r in state.requests)
    delivery = _delivery(state.last_delivery, rename)
    table = rename.table
    count = len(state.processings)
    if any(old >= count for old in table):
        return state  # a tag naming no processing: keep the state as it is (sound: no merge)
    held = sorted(table.items(), key=lambda pair: pair[1])
    return State(
        shadows, receiver, tuple(state.processings[old] for old, _ in held), requests,
        to_engine, state.to_front_end, state.reset_pending, delivery, state.fault, others,
    )


def _already_canonical(state: State) -> bool:
    """True when the held pids, in traversal order, are exactly 0, 1, ..., len(processings)-1
    (first occurrences), so renaming would change nothing. Same traversal as `canonical`.
    While that holds, the pids met so far are 0..fresh-1: a pid below `fresh` was met before,
    `fresh` itself is the next first occurrence, and any larger one breaks the order."""
    fresh = 0
    for cache in (*state.shadows, *state.receivers()):
        for slot in cache:
            if isinstance(slot, Entry):
                for pid in (slot.processing, slot.tag):
                    if pid is not None and pid >= fresh:
                        if pid != fresh:
                            return False
                        fresh += 1
    for message in state.to_engine:
        fresh = _wire_pids(message.items, fresh)
        if fresh < 0:
            return False
    for request in state.requests:
        work = request.work
        if work is not None:
            for pid in work.processed:
                if pid is not None and pid >= fresh:
                    if pid != fresh:
                        return False
                    fresh += 1
            fresh = _wire_pids([w for _, w in work.wire], fresh)
            if fresh < 0:
                return False
    delivery = state.last_delivery
    if delivery is not None:
        fresh = _wire_pids(delivery.message.items, fresh)
        if fresh < 0:
            return False
        for s in delivery.served:
            for pid in (s.tensor, s.placeholders):
                if pid >= fresh:
                    if pid != fresh:
                        return False
                    fresh += 1
    return fresh == len(state.processings)


def _wire_pids(items: Iterable[WireItem], fresh: int) -> int:
    """`_already_canonical`'s walk over wire items from `fresh`: the next first occurrence
    after them, or -1 where a pid breaks the order."""
    for item in items:
        for pid in (item.data, item.placeholders, item.tag):
            if pid is not None and pid >= fresh:
                if pid != fresh:
                    return -1
                fresh += 1
    return fresh


def _lru(cache: Lru, rename: _Renamer) -> Lru:
    """`cache` renamed; an entry whose pids keep their numbers is kept as it is, and so is a
    cache none of whose entries changed (fewer objects built, the same value)."""
    renamed: list[Entry | Ghost] = []
    changed = False
    for slot in cache:
        if isinstance(slot, Entry):
            pid, tag = rename(slot.processing), rename.optional(slot.tag)
            if pid != slot.processing or tag != slot.tag:
                slot, changed = Entry(slot.identity, slot.size, pid, tag), True
        renamed.append(slot)
    return tuple(renamed) if changed else cache


def _wire(item: WireItem, rename: _Renamer) -> WireItem:
    return WireItem(
        item.identity, rename.optional(item.data), rename(item.placeholders),
        rename.optional(item.tag),
    )


def _message(message: Message, rename: _Renamer) -> Message:
    items = tuple(_wire(w, rename) for w in message.items)
    return Message(message.rid, message.front_end, items, message.engine)


def _request(request: Request, rename: _Renamer) -> Request:
    work = request.work
    if work is None:
        return request
    processed = tuple(rename.optional(p) for p in work.processed)
    wire = tuple((index, _wire(w, rename)) for index, w in work.wire)
    return Request(
        request.rid, request.front_end, request.items, request.retries, request.stage,
        request.outcome, request.missed, P0Work(work.hits, processed, work.order, work.done, wire),
    )


def _delivery(delivery: Delivery | None, rename: _Renamer) -> Delivery | None:
    if delivery is None:
        return None
    served = tuple(
        Served(s.rid, s.identity, rename(s.tensor), rename(s.placeholders), s.sent_version)
        for s in delivery.served
    )
    return Delivery(_message(delivery.message, rename), served, delivery.missed)
