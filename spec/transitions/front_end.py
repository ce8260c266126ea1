"""P0, the front end: probe, process, touch, per-item update, send; and the miss reply.

The per-request pipeline (P0's steps 1-3, docs/protocol.md) is split into `process_attempt`
(probe and processor) and `update_next_item` (one item's shadow update; the first call touches every
identity, the last one sends). `P0Handle` runs the whole pipeline as one step, which is what a
front end that serialises its requests does; under D6 the parts are separate steps so that other
requests interleave between them.

Routing (D5's router configuration, `Config.engines` = 2): the step that sends chooses the
engine the message goes to (`engine`, an action argument, so the choice is nondeterministic and
every checker explores both). This is what vLLM's data-parallel front end does: one API server
(one P0, one shadow) balances each request over the engine cores by their load, and a client's
retry is a new request, balanced again, so it may reach another engine than the one that
reported the miss. The shadow mirrors no single receiver, which is why vLLM enables the IPC
cache only with one engine, or with an external load balancer that gives each engine its own
front end (one pair each); the model shows what goes wrong when the pairing is left on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from spec import lru
from spec.config import Config, Content
from spec.drift import Drift
from spec.state import (
    ClientItem,
    Fault,
    FaultKind,
    Message,
    Outcome,
    P0Work,
    Processing,
    Request,
    Stage,
    State,
    WireItem,
)
from spec.transitions.base import Action, describe


def new_processing(state: State, content: Content) -> tuple[State, int]:
    """Run the processor once: a fresh pid whose tensor and placeholders describe `content`."""
    pid = len(state.processings)
    processing = Processing(content.identity, content.version)
    return state.evolve(processings=(*state.processings, processing)), pid


def process_attempt(config: Config, state: State, rid: int) -> State:
    """Probe the shadow (no reordering) and run the processor on the missed items only.

    A missed item that came without data is a client error: the attempt ends, nothing else
    changes.
    """
    request = state.requests[rid]
    shadow = state.shadows[request.front_end]
    hits = frozenset(
        i.identity for i in request.items
        if lru.probe(shadow, i.identity) and not bypasses_shadow(config, request)
    )
    if any(i.identity not in hits and not i.has_data for i in request.items):
        return state.with_request(
            request.evolve(stage=Stage.DONE, outcome=Outcome.CLIENT_ERROR)
        )
    processed: list[int | None] = []
    for item in request.items:
        if item.identity in hits:
            processed.append(None)
        else:
            state, pid = new_processing(state, item.content)
            processed.append(pid)
    work = P0Work(hits, tuple(processed), ())
    return state.with_request(request.evolve(stage=Stage.PROCESSED, work=work))


def bypasses_shadow(config: Config, request: Request) -> bool:
    """V4: a resend (the client's retry after a miss) reads nothing from the shadow: every item
    is processed and sent as a payload, and recorded afresh. Whatever drifted between the miss
    and the resend (a rejected request re-recording a missed identity, a one-sided clear, P1
    evicting what P0 still holds), the resend then holds no reference P1 could miss."""
    return config.variant.resends_bypass_shadow and request.retries > 0


def update_order(
    config: Config, items: tuple[ClientItem, ...], shadow: lru.Lru | None
) -> tuple[int, ...]:
    """Request order, or (references_first) the items the shadow holds when the update starts
    before the others, each group stable. Deciding by presence at update time, not at probe
    time, keeps every insert (payloads, and late misses reprocessed) after every reference,
    which is also the order P1 will resolve the wire items in. No shadow (a resend that
    bypasses it, all payloads): request order, which is P1's order for payloads."""
    indices = tuple(range(len(items)))
    if not config.variant.references_first or shadow is None:
        return indices
    return tuple(sorted(indices, key=lambda i: not lru.probe(shadow, items[i].identity)))


def update_next_item(config: Config, state: State, rid: int, engine: int = 0) -> State:
    """Update the shadow for the next item in update order; after the last one, send the
    message to engine `engine` (the router's choice; 0 with one engine)."""
    request = state.requests[rid]
    work = request.work
    assert work is not None, "update_next_item needs a processed attempt"
    fe = request.front_end
    if work.done == 0 and _unprocessable_late_miss(config, state, request):
        return state.with_request(request.evolve(stage=Stage.DONE, outcome=Outcome.CLIENT_ERROR))
    if work.done == 0:
        if config.variant.touches_first:
            state = _touch_all(config, state, request)
        shadow = None if bypasses_shadow(config, request) else state.shadows[fe]
        order = update_order(config, request.items, shadow)
        work = P0Work(work.hits, work.processed, order, work.done, work.wire)
        request = request.evolve(work=work)
    index = work.order[work.done]
    try:
        state, wire = _update_item(config, state, request, index)
    except lru.EvictionHang as hang:
        return state.evolve(fault=Fault(FaultKind.HANG, f"P0 (front end {fe}): {hang}"))
    except _LateMiss:
        # The real front end's assertion fails this request only (an internal server error):
        # the touches and the items updated before it stay in the shadow, P1 never sees the
        # request, and the front end goes on with the next one (the pattern of D2).
        failed = request.evolve(stage=Stage.DONE, outcome=Outcome.P0_ASSERT, work=None)
        return state.with_request(failed)
    except _MissingMedia:
        return state.with_request(request.evolve(stage=Stage.DONE, outcome=Outcome.CLIENT_ERROR))
    work = P0Work(work.hits, work.processed, work.order, work.done + 1, (*work.wire, (index, wire)))
    if work.done < len(work.order):
        return state.with_request(request.evolve(stage=Stage.UPDATING, work=work))
    items = tuple(w for _, w in sorted(work.wire, key=lambda pair: pair[0]))
    message = Message(rid, fe, items, engine)
    state = state.evolve(to_engine=(*state.to_engine, message))
    return state.with_request(request.evolve(stage=Stage.IN_FLIGHT, work=None))


def _unprocessable_late_miss(config: Config, state: State, request: Request) -> bool:
    """V3: a probed hit, sent UUID-only, is gone before the update: there is no media to
    reprocess, so the attempt is a client error, decided before anything changes."""
    if not config.variant.late_miss_reprocess or request.work is None:
        return False
    shadow = state.shadows[request.front_end]
    return any(
        pid is None and not item.has_data and not lru.probe(shadow, item.identity)
        for item, pid in zip(request.items, request.work.processed, strict=True)
    )


class _LateMiss(Exception):
    """A probed hit is gone from the shadow and there is no processed data to send."""


class _MissingMedia(Exception):
    """V3: a late miss on an item sent UUID-only (nothing to reprocess): a client error."""


def _touch_all(config: Config, state: State, request: Request) -> State:
    shadow = state.shadows[request.front_end]
    for item in request.items:
        shadow = lru.touch(shadow, item.identity, config.variant.shadow_lru)
    return state.with_shadow(request.front_end, shadow)


def _update_item(
    config: Config, state: State, request: Request, index: int
) -> tuple[State, WireItem]:
    """The sender's get-and-update for one item (the seed's `get_and_update_item`)."""
    assert request.work is not None
    item = request.items[index]
    pid = request.work.processed[index]
    if pid is not None and bypasses_shadow(config, request):
        return _record_and_send(config, state, request.front_end, item, pid)
    entry, shadow = lru.get(state.shadows[request.front_end], item.identity)
    if entry is not None:
        wire = WireItem(item.identity, None, entry.processing, entry.tag)
        return state.with_shadow(request.front_end, shadow), wire
    if pid is None:
        if config.variant.late_miss_reprocess and not item.has_data:
            raise _MissingMedia(item.identity)
        if not config.variant.late_miss_reprocess:
            raise _LateMiss(
                f"P0 (front end {request.front_end}): expected a cached item for "
                f"{item.identity!r} (probed as a hit), found none and have no data"
            )
        state, pid = new_processing(state, item.content)
    return _record_and_send(config, state, request.front_end, item, pid)


def _record_and_send(
    config: Config, state: State, front_end: int, item: ClientItem, pid: int
) -> tuple[State, WireItem]:
    tag = config.variant.tag_for(pid)
    entry = lru.Entry(item.identity, config.shadow_bytes(item.content), pid, tag)
    shadow, _ = lru.put(state.shadows[front_end], entry, config.budget, config.variant.shadow_lru)
    return state.with_shadow(front_end, shadow), WireItem(item.identity, pid, pid, tag)


def handle_attempt(config: Config, state: State, rid: int, engine: int = 0) -> State:
    """The whole pipeline for one attempt, as one step, sending to engine `engine`."""
    return update_every_item(config, process_attempt(config, state, rid), rid, engine)


def update_every_item(config: Config, state: State, rid: int, engine: int = 0) -> State:
    """Every update of request rid's processed attempt, one after the other, until it is sent
    to engine `engine` or ends (a processed attempt that ended already is left as it is)."""
    while state.fault is None and state.requests[rid].stage in (Stage.PROCESSED, Stage.UPDATING):
        state = update_next_item(config, state, rid, engine)
    return state


def _routes(config: Config) -> range:
    """The engines a sending step may choose (the router's choices)."""
    return range(config.engines)


def sends_next(state: State, rid: int) -> bool:
    """True when the next update of request rid's attempt is its last one, the one that sends
    (if it does not fail); only that step's engine choice matters."""
    request = state.requests[rid]
    if request.stage is Stage.PROCESSED:
        return len(request.items) == 1
    return request.work is not None and request.work.done + 1 == len(request.work.order)


def _submitted(state: State) -> Iterator[int]:
    return (r.rid for r in state.requests if r.stage is Stage.SUBMITTED)


@dataclass(frozen=True, slots=True)
class P0Handle(Action):
    """P0 handles a submitted attempt from probe to send in one step (protocol, no drift),
    sending to engine `engine` (the router's choice, D5's router configuration; 0 with one
    engine)."""

    rid: int
    engine: int = 0

    def guard(self, config: Config, state: State) -> bool:
        return self.engine in _routes(config) and _stage_is(state, self.rid, Stage.SUBMITTED)

    def apply(self, config: Config, state: State) -> State:
        return handle_attempt(config, state, self.rid, self.engine)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(rid, e) for rid in _submitted(state) for e in _routes(config))

    # Every candidate passes the guard (which restates what `candidates` selects, for actions
    # built elsewhere): the enabled instances are the candidates themselves.
    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        return cls.candidates(config, state)


describe(P0Handle, "p0_handle", exercises=(Drift.D5,))


@dataclass(frozen=True, slots=True)
class P0HandleRejected(Action):
    """D2: P0 handles the attempt and updates its shadow, then the request is rejected (prompt
    too long, client gone) and never sent: P0 holds keys P1 never saw."""

    rid: int

    def guard(self, config: Config, state: State) -> bool:
        return _stage_is(state, self.rid, Stage.SUBMITTED)

    def apply(self, config: Config, state: State) -> State:
        return self.rejected(handle_attempt(config, state, self.rid))

    def rejected(self, handled: State) -> State:
        """`handled` (P0's whole pipeline for the attempt, `handle_attempt`) with the request
        rejected: the message it sent withdrawn, the request done. An attempt that did not
        reach the send (a fault, a client error) is left as it ended."""
        request = handled.requests[self.rid]
        if handled.fault is not None or request.stage is not Stage.IN_FLIGHT:
            return handled
        after = handled.evolve(to_engine=handled.to_engine[:-1])
        return after.with_request(request.evolve(stage=Stage.DONE, outcome=Outcome.REJECTED))

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(rid) for rid in _submitted(state))

    # Every candidate passes the guard (which restates what `candidates` selects, for actions
    # built elsewhere): the enabled instances are the candidates themselves.
    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        return cls.candidates(config, state)


describe(P0HandleRejected, "p0_handle_rejected", drift=Drift.D2, requires=Drift.D2)


def undo_recorded(state: State, front_end: int, message: Message) -> State:
    """Drop from the front end's shadow every entry the message's attempt recorded: an entry
    holding the processing one of its payloads carries. Touches and evictions are not
    undone (what they removed is gone; order is no content)."""
    shadow = state.shadows[front_end]
    for item in message.items:
        entry = lru.find(shadow, item.identity)
        if item.data is not None and entry is not None and entry.processing == item.data:
            shadow = lru.pop(shadow, item.identity)
    return state.with_shadow(front_end, shadow)


@dataclass(frozen=True, slots=True)
class P0HandleRejectedUndo(P0HandleRejected):
    """D2, the other choice a correct front end may make: as `P0HandleRejected`, and then P0
    undoes its shadow update for the rejected attempt, dropping every entry it recorded
    (`undo_recorded`). Safe in every variant: removing keys from P0 only turns later
    references into payloads. Both choices are in the spec (`enabled` lists both), so every
    property is decided over both, and conformance accepts an implementation making either
    (and says which it observed)."""


    def rejected(self, handled: State) -> State:
        request = handled.requests[self.rid]
        if handled.fault is not None or request.stage is not Stage.IN_FLIGHT:
            return handled
        message = handled.to_engine[-1]
        after = undo_recorded(handled.evolve(to_engine=handled.to_engine[:-1]),
                              request.front_end, message)
        return after.with_request(request.evolve(stage=Stage.DONE, outcome=Outcome.REJECTED))


describe(P0HandleRejectedUndo, "p0_handle_rejected_undo", drift=Drift.D2,
         requires=Drift.D2)


@dataclass(frozen=True, slots=True)
class P0Process(Action):
    """D6: P0 probes and runs the processor for an attempt; its update comes later, after other
    requests may have changed the shadow."""

    rid: int

    def guard(self, config: Config, state: State) -> bool:
        return _stage_is(state, self.rid, Stage.SUBMITTED)

    def apply(self, config: Config, state: State) -> State:
        return process_attempt(config, state, self.rid)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(rid) for rid in _submitted(state))

    # Every candidate passes the guard (which restates what `candidates` selects, for actions
    # built elsewhere): the enabled instances are the candidates themselves.
    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        return cls.candidates(config, state)


describe(P0Process, "p0_process", drift=Drift.D6, requires=Drift.D6)


@dataclass(frozen=True, slots=True)
class P0UpdateItem(Action):
    """D6: P0 updates the shadow for one item of a processed attempt (the first also touches all
    the request's identities; the last sends): two requests' updates interleave item by item."""

    rid: int
    engine: int = 0  # where the last update sends (the router's choice); 0 on other updates

    def guard(self, config: Config, state: State) -> bool:
        updating = _stage_is(state, self.rid, Stage.PROCESSED) or _stage_is(
            state, self.rid, Stage.UPDATING
        )
        if not updating:
            return False
        return self.engine == 0 or (
            self.engine in _routes(config) and sends_next(state, self.rid)
        )

    def apply(self, config: Config, state: State) -> State:
        return update_next_item(config, state, self.rid, self.engine)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        stages = (Stage.PROCESSED, Stage.UPDATING)
        for r in (r for r in state.requests if r.stage in stages):
            engines = _routes(config) if sends_next(state, r.rid) else range(1)
            yield from (cls(r.rid, e) for e in engines)


# `requires`, not `drift`: continuing an attempt is no new drift event; P0Process was.
describe(P0UpdateItem, "p0_update_item", requires=Drift.D6)


@dataclass(frozen=True, slots=True)
class P0ReceiveReply(Action):
    """P0 takes the oldest reply. Success ends the attempt; a miss error ends it as retryable
    and (where the variant invalidates) drops exactly the reported identities from the shadow
    that sent it, before P0 handles anything else (vllm#46747)."""


    def guard(self, config: Config, state: State) -> bool:
        return bool(state.to_front_end)

    def apply(self, config: Config, state: State) -> State:
        reply, rest = state.to_front_end[0], state.to_front_end[1:]
        state = state.evolve(to_front_end=rest)
        request = state.requests[reply.rid]
        if not reply.missed:
            return state.with_request(request.evolve(stage=Stage.DONE, outcome=Outcome.SUCCESS))
        if config.variant.invalidates:
            shadow = state.shadows[reply.front_end]
            for identity in reply.missed:
                shadow = lru.pop(shadow, identity)
            state = state.with_shadow(reply.front_end, shadow)
        done = request.evolve(stage=Stage.DONE, outcome=Outcome.MISS, missed=reply.missed)
        return state.with_request(done)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        yield cls()

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        # The one candidate, guarded, without a generator per state (asked in every state).
        action = cls()
        return iter((action,) if action.guard(config, state) else ())


describe(P0ReceiveReply, "p0_receive_reply")


def _stage_is(state: State, rid: int, stage: Stage) -> bool:
    return 0 <= rid < len(state.requests) and state.requests[rid].stage is stage
