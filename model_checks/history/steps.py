"""A call as spec steps, and whether the spec's steps produce what the call observed.

A `serve` call is a chain of parts, each one spec step (or, for P0, one step or the two
halves of D6): `P0` (the client's submit and P0's probe, processing and update: `P0Handle`;
under D6 `P0Process` now and the whole update later, `P0UpdateItem` until the attempt is
sent, as the lockstep's macro step), `P1` (`P1Receive` of this request's message: any index
but the oldest is D1) and `REPLY` (`P0ReceiveReply` of this request's reply). The spec queues
replies in one order; a front end closes requests by id, so the reply part takes its own
reply wherever it is in the queue (counted and reported as `replies taken out of order`;
replies only invalidate, and removing keys from P0 is always safe). A call that ended
earlier has fewer parts: a client error, P0's assertion or the engine's refusal (D2:
`P0HandleRejected` or `P0HandleRejectedUndo`, the two choices the spec allows) ends at P0,
the engine's crash at P1. `clear` and `restart` are one drift event each (`EVENTS`), allowed
only where the environment has its source.

Progress through a serve call: 0 nothing taken, 1 probed and processed (D6), 2 P0 done,
3 P1 done, 4 the reply taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from model_checks.conform.lru_lockstep.choices import choice_of
from model_checks.history.instance import Instance
from model_checks.history.log import Call, Result
from spec import Drift, State, initial, step
from spec import lru as spec_lru
from spec.state import FaultKind, Outcome, Stage
from spec.transitions import (
    Action,
    InvalidAction,
    P0Clear,
    P0Handle,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P0Process,
    P0ReceiveReply,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1Restart,
    Submit,
)

DONE_AFTER_P0, DONE_AFTER_P1, DONE = 2, 3, 4

EVENTS: dict[tuple[bool, str], type[Action]] = {
    (True, "clear"): P0Clear, (True, "restart"): P0Restart,
    (False, "clear"): P1Clear, (False, "restart"): P1Restart,
}
"""(on a front end?, op) -> the drift event a clear or a restart is."""


@dataclass(frozen=True, slots=True)
class Move:
    """One way forward for one call: the spec steps taken (`actions`), the state after, the
    call's progress after, the request id it was given, and whether its reply was taken out
    of the queue's order."""

    actions: tuple[Action, ...]
    state: State
    progress: int
    rid: int
    reordered: bool = False
    choice: str | None = None
    """The choice the spec allows that this move made (`lockstep.choices.NAMES`), where the
    choices differ here and the call observed which it made (None: no choice, every choice
    gives the same state, or the call did not show it: `Result.shadow_after`)."""


def end_of(call: Call) -> int:
    """The progress at which the call is complete."""
    if call.op != "serve":
        return 1
    result = call.result
    if result.kind in ("rejected", "refused") or (result.kind == "fault"
                                                  and result.fault == "p0-assert"):
        return DONE_AFTER_P0
    if result.kind == "fault":
        return DONE_AFTER_P1  # an engine crash (or a hang) ends at P1 at the latest
    return DONE


def moves(instance: Instance, state: State, call: Call, progress: int, rid: int
          ) -> Iterator[Move]:
    """Every move of `call` from `progress` that the spec takes and whose observations
    match the call's, drift-free first."""
    if call.op != "serve":
        yield from _event(instance, state, call)
    elif progress == 0:
        yield from _start(instance, state, call, rid)
    elif progress == 1:
        yield from _finish_update(instance, state, call, rid)
    elif progress == DONE_AFTER_P0:
        yield from _receive(instance, state, call, rid)
    elif progress == DONE_AFTER_P1:
        yield from _reply(instance, state, rid)


def _step(instance: Instance, state: State, action: Action) -> State | None:
    try:
        return step(instance.config, state, action)
    except InvalidAction:
        return None


def _event(instance: Instance, state: State, call: Call) -> Iterator[Move]:
    kind = EVENTS.get((call.front_end >= 0, call.op))
    if kind is None or call.result.kind != "done":
        return
    action = kind(call.front_end) if call.front_end >= 0 else kind()  # type: ignore[call-arg]
    after = _step(instance, state, action)
    if after is not None:
        yield Move((action,), after, 1, -1)


def submitted(instance: Instance, calls: tuple[Call, ...]
              ) -> tuple[State, tuple[tuple[int, Action], ...], dict[int, int]]:
    """The state from which a history is explained: every serve call's request submitted
    (`Submit`, in log order), so that a request's id is its call's rank among the serve
    calls whatever order the search takes them in, and orders that differ only in when a
    request arrived meet in one search node. Returns the state, the submit steps (call
    number, action) and each serve call's request id."""
    state = initial(instance.config)
    steps: list[tuple[int, Action]] = []
    rids: dict[int, int] = {}
    for call in calls:
        if call.op != "serve":
            continue
        submit = Submit(instance.items[call.number], call.front_end)
        state = step(instance.config, state, submit)
        rids[call.number] = len(state.requests) - 1
        steps.append((call.number, submit))
    return state, tuple(steps), rids


def _start(instance: Instance, state: State, call: Call, rid: int) -> Iterator[Move]:
    if call.result.kind == "refused":
        yield from _refused(instance, state, call, rid)
        return
    handled = _step(instance, state, P0Handle(rid))
    if handled is not None and _p0_matches(call.result, state, handled, rid, call.front_end):
        yield Move((P0Handle(rid),), handled, _after_p0(handled), rid)
    if not instance.config.enables(Drift.D6):
        return
    processed = _step(instance, state, P0Process(rid))
    if processed is None:
        return
    if processed.requests[rid].stage is Stage.DONE:  # a client error at the probe
        if _p0_matches(call.result, state, processed, rid, call.front_end):
            yield Move((P0Process(rid),), processed, DONE_AFTER_P0, rid)
        return
    yield Move((P0Process(rid),), processed, 1, rid)


def _refused(instance: Instance, state: State, call: Call, rid: int) -> Iterator[Move]:
    """A request the engine refused after P0's update (D2): P0 kept what the attempt
    recorded (`P0HandleRejected`) or undid it (`P0HandleRejectedUndo`), the two choices the
    spec allows; its evictions match (the request's own identities aside: an undo drops
    them), and so does the shadow the front end held once it handled the refusal, where
    the call was quiet enough to read it (`Result.shadow_after`)."""
    exempt = frozenset(i.identity for i in state.requests[rid].items)
    observed = call.result.shadow_after
    choices = [(a, _step(instance, state, a))
               for a in (P0HandleRejected(rid), P0HandleRejectedUndo(rid))]
    same = choices[0][1] == choices[1][1]
    for action, after in choices[:1] if same else choices:
        if after is None or after.requests[rid].outcome is not Outcome.REJECTED:
            continue
        shadow = after.shadows[call.front_end]
        if not _evictions_match(call.result.evicted_p0, state.shadows[call.front_end],
                                shadow, exempt):
            continue
        if observed is None or set(observed) == _identities(shadow):
            yield Move((action,), after, DONE_AFTER_P0, rid,
                       choice=None if same or observed is None else choice_of(action))


def _finish_update(instance: Instance, state: State, call: Call, rid: int) -> Iterator[Move]:
    actions: list[Action] = []
    after: State | None = state
    while after is not None and after.fault is None and after.requests[rid].stage in (
            Stage.PROCESSED, Stage.UPDATING):
        actions.append(P0UpdateItem(rid))
        after = _step(instance, after, P0UpdateItem(rid))
    if after is not None and _p0_matches(call.result, state, after, rid, call.front_end):
        yield Move(tuple(actions), after, _after_p0(after), rid)


def _after_p0(state: State) -> int:
    """The progress after P0's part: a hang there ends the call (the spec stops)."""
    return DONE_AFTER_P1 if state.fault is not None else DONE_AFTER_P0


def _identities(cache: spec_lru.Lru) -> set[str]:
    return {e.identity for e in spec_lru.entries(cache)}


def _evictions_match(observed: tuple[str, ...] | None, before: spec_lru.Lru,
                     after: spec_lru.Lru, exempt: frozenset[str] = frozenset()) -> bool:
    if observed is None:
        return True
    return set(observed) - exempt == _identities(before) - _identities(after) - exempt


def _p0_matches(result: Result, before: State, after: State, rid: int, fe: int) -> bool:
    request = after.requests[rid]
    if result.kind == "rejected":
        return request.outcome is Outcome.CLIENT_ERROR
    if result.kind == "fault" and result.fault == "p0-assert":
        return request.outcome is Outcome.P0_ASSERT
    if after.fault is not None:
        return result.kind == "fault" and after.fault.kind is FaultKind.HANG and (
            result.fault == "hang")
    return request.stage is Stage.IN_FLIGHT and _evictions_match(
        result.evicted_p0, before.shadows[fe], after.shadows[fe],
        payload_identities(after, rid))


def _receive(instance: Instance, state: State, call: Call, rid: int) -> Iterator[Move]:
    queue = state.queue_of(0)
    index = next((n for n, at in enumerate(queue) if state.to_engine[at].rid == rid), None)
    if index is None:
        return
    action = P1Receive(index)
    after = _step(instance, state, action)
    if after is not None and _p1_matches(instance, call.result, state, after, rid):
        yield Move((action,), after, DONE_AFTER_P1, rid)


def payload_identities(state: State, rid: int) -> frozenset[str]:
    """Identities this request's message carries data for: their entries are inserted by
    the step itself, so an implementation may report one as evicted (a request over the
    budget evicts its own earlier inserts, D8) or not (a replacement drops the old entry
    first): evictions are compared without them."""
    message = next((m for m in state.to_engine if m.rid == rid), None)
    if message is None:
        return frozenset()
    return frozenset(w.identity for w in message.items if w.data is not None)


def _p1_matches(instance: Instance, result: Result, before: State, after: State,
                rid: int) -> bool:
    if after.fault is not None:
        kinds = {FaultKind.ENGINE_CRASH: "engine-crash", FaultKind.HANG: "hang"}
        return result.kind == "fault" and result.fault == kinds[after.fault.kind]
    exempt = payload_identities(before, rid)
    if not _evictions_match(result.evicted_p1, before.receiver, after.receiver, exempt):
        return False
    delivery = after.last_delivery
    assert delivery is not None and delivery.message.rid == rid
    if result.kind == "missed":
        reply = next((r for r in after.to_front_end if r.rid == rid), None)
        return reply is not None and reply.missed == result.identities
    if result.kind != "served" or delivery.missed:
        return False
    observed = tuple((i.identity, i.tensor, i.placeholders) for i in result.inputs)
    spec = tuple((s.identity, instance.label(after.processings[s.tensor].content),
                  instance.label(after.processings[s.placeholders].content))
                 for s in delivery.served)
    return observed == spec


def _reply(instance: Instance, state: State, rid: int) -> Iterator[Move]:
    at = next((n for n, r in enumerate(state.to_front_end) if r.rid == rid), None)
    if at is None:
        return
    queue = state.to_front_end
    ordered = state if at == 0 else state.evolve(
        to_front_end=(queue[at], *queue[:at], *queue[at + 1:]))
    after = _step(instance, ordered, P0ReceiveReply())
    if after is not None:
        yield Move((P0ReceiveReply(),), after, DONE, rid, reordered=at > 0)
