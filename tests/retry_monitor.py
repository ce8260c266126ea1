"""The retry claims of `model_checks.kernel.retries` as monitors over the spec's runs, for the
tests: `undisturbed_retry_missed` is the undisturbed-attempt theorem as a trace monitor
(`advance` its step) and `search` runs it over every reachable state of an instance;
`resend_missed` is the first-resend claim's core (a resend P1 answers with a miss) and
`search_resends` runs it likewise; `standing_drift_run` is the standing-drift family's run;
`claimed_environment` is the environment a claim allows for one variant."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from model_checks.kernel.retries import Claim
from spec import V2, Config, Content, ItemSize, Trace, Variant, enabled, environment, initial, step
from spec.state import ClientItem, State
from spec.transitions import (
    Action,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
    P1Receive,
    Retry,
    Submit,
)


def _own(action: Action, rid: int, before: State) -> bool:
    """The step belongs to request rid: P0 handles its attempt, the client retries it, P1
    takes its message, or P0 takes its reply."""
    if isinstance(action, P0Handle | P0HandleRejected | P0Process | P0UpdateItem | Retry):
        return action.rid == rid
    if isinstance(action, P1Receive):
        at = before.queue_of(action.engine)[action.index]
        return before.to_engine[at].rid == rid
    if isinstance(action, P0ReceiveReply):
        return before.to_front_end[0].rid == rid
    return False


def claimed_environment(claim: Claim, variant: str) -> tuple[str, ...]:
    """The environment `claim` allows for `variant` (one of its `variants`): its narrower one
    for that variant, else the claim's."""
    return dict(claim.narrower).get(variant, claim.environment)


def disturbed(action: Action, rid: int, before: State, after: State) -> bool:
    """A step that disturbs request rid's attempt: a drift event, or another request's step
    (or any other step) that changes a shadow or a receiver."""
    if action.drift_event() is not None:
        return True
    return caches_changed(before, after) and not _own(action, rid, before)


def caches_changed(before: State, after: State) -> bool:
    """The step changed a shadow or a receiver (any engine's): the caches' contents or their
    LRU order, compared by value."""
    return before.shadows != after.shadows or before.receivers() != after.receivers()


Memory = tuple[tuple[int, bool, bool, bool], ...]
"""The monitor's bookkeeping, per request seen (sorted by rid): whether its previous attempt
missed, and whether the windows of its previous and current attempts are undisturbed."""


def advance(memory: Memory, before: State, action: Action,
            after: State) -> tuple[Memory, bool | None]:
    """The monitor's step: its new memory, and, at a delivery that follows an undisturbed
    missed attempt of the same request, whether it missed (None at any other step)."""
    rows = {rid: [missed, prev, cur] for rid, missed, prev, cur in memory}
    for rid, row in rows.items():
        if disturbed(action, rid, before, after):
            row[1] = row[2] = False
    outcome = None
    delivery = after.last_delivery if isinstance(action, P1Receive) else None
    if delivery is not None:
        row = rows.setdefault(delivery.message.rid, [False, False, False])
        if row[0] and row[1]:
            outcome = bool(delivery.missed)
        row[0] = bool(delivery.missed)
    if len(after.to_engine) > len(before.to_engine):  # an attempt sent: its window opens
        row = rows.setdefault(after.to_engine[-1].rid, [False, False, False])
        row[1], row[2] = row[2], True
    return tuple((rid, r[0], r[1], r[2]) for rid, r in sorted(rows.items())), outcome


def recoveries(trace: Trace) -> Iterator[tuple[int, bool]]:
    """Each delivery of an attempt that follows an undisturbed missed attempt of the same
    request: its step and whether it missed (the theorem says never)."""
    memory: Memory = ()
    for number, before, action, after in trace.transitions():
        memory, outcome = advance(memory, before, action, after)
        if outcome is not None:
            yield number, outcome


def undisturbed_retry_missed(trace: Trace) -> int | None:
    """The first step at which an attempt that follows an undisturbed missed attempt is
    delivered and misses (the theorem violated); None if there is none."""
    return next((number for number, missed in recoveries(trace) if missed), None)


@dataclass(frozen=True)
class Search:
    """An exhaustive search of an instance for the theorem: the (state, memory) pairs
    visited, how many deliveries reached its premise, and a run that violates it (empty if
    none)."""

    states: int
    premises: int
    violation: tuple[Action, ...]


Watch = Callable[[Memory, State, Action, State], tuple[Memory, bool, bool]]
"""A monitor for `_breadth_first`: from the memory and one step, the new memory, whether the
step is a premise (counted), and whether it is the violation searched for."""


def search(config: Config, max_states: int = 200_000) -> Search:
    """Every reachable (state, monitor memory) of `config`, breadth-first; raises
    OverflowError past `max_states` (an instance too large to answer)."""
    def watch(memory: Memory, before: State, action: Action,
              after: State) -> tuple[Memory, bool, bool]:
        memory, outcome = advance(memory, before, action, after)
        return memory, outcome is not None, bool(outcome)

    return _breadth_first(config, max_states, watch)


def _breadth_first(config: Config, max_states: int, watch: Watch) -> Search:
    """Every reachable (state, memory) of `config` under `watch`, until a step it reports
    as the violation (its path returned); raises OverflowError past `max_states`."""
    start: tuple[State, Memory] = (initial(config), ())
    parent: dict[tuple[State, Memory], tuple[tuple[State, Memory], Action] | None] = {
        start: None}
    queue, premises = deque([start]), 0
    while queue:
        node = queue.popleft()
        for action in enabled(config, node[0]):
            after = step(config, node[0], action)
            memory, premise, found = watch(node[1], node[0], action, after)
            premises += premise
            nxt = (after, memory)
            if nxt in parent:
                continue
            parent[nxt] = (node, action)
            if found:
                return Search(len(parent), premises, path_to(parent, nxt))
            if len(parent) > max_states:
                raise OverflowError(f"more than {max_states} states")
            queue.append(nxt)
    return Search(len(parent), premises, ())


# -- the first resend --------------------------------------------------------------------------

def resend_missed(before: State, action: Action, after: State) -> bool:
    """The step is P1 answering a resend (an attempt with `retries > 0`) with a miss: a
    request has one attempt at a time, so the message P1 took is its request's current
    attempt's."""
    delivery = after.last_delivery if isinstance(action, P1Receive) else None
    if delivery is None or not delivery.missed:
        return False
    return after.requests[delivery.message.rid].retries > 0


def search_resends(config: Config, max_states: int = 200_000) -> Search:
    """Every reachable state of `config`, breadth-first, until a step where a resend misses
    (`resend_missed`; `premises` counts the resends P1 took); raises OverflowError past
    `max_states`."""
    def watch(memory: Memory, before: State, action: Action,
              after: State) -> tuple[Memory, bool, bool]:
        return (), _took_resend(action, after), resend_missed(before, action, after)

    return _breadth_first(config, max_states, watch)


def _took_resend(action: Action, after: State) -> bool:
    delivery = after.last_delivery if isinstance(action, P1Receive) else None
    return delivery is not None and after.requests[delivery.message.rid].retries > 0


# -- the standing-drift family -----------------------------------------------------------------


def standing_drift_config(retries: int, variant: Variant = V2) -> Config:
    """Size skew alone: identity s recorded at 1 byte by P0, 3 bytes at P1 (over the budget
    of 2, so P1 never caches it); the client retries up to `retries` times."""
    return Config(identities=("s",), budget=2, variant=variant, environment=environment("D9"),
                  sizes=(ItemSize(Content("s", 0), 1, 3),), max_retries=retries,
                  max_requests=retries + 3, max_items=1)


def standing_drift_run(retries: int) -> tuple[Action, ...]:
    """Request 1 misses `retries` + 1 times: before each attempt, another request re-sends
    s's payload and P0 re-records s, and the attempt references it."""
    data, ref = (ClientItem("s", 0, True),), (ClientItem("s", 0, False),)
    steps: list[Action] = [Submit(data), P0Handle(0), P1Receive(0), P0ReceiveReply(),
                           Submit(ref), P0Handle(1), P1Receive(0), P0ReceiveReply()]
    for attempt in range(retries):
        other = attempt + 2
        steps += [Submit(data), P0Handle(other), P1Receive(0), P0ReceiveReply(),
                  Retry(1), P0Handle(1), P1Receive(0), P0ReceiveReply()]
    return tuple(steps)


def path_to(parent: Mapping[Any, tuple[Any, Any] | None], node: Any) -> tuple[Any, ...]:
    """The actions from the initial state to `node`, walked back along the search's parent
    links (the initial state's link is `None`): a shortest path, the search being
    breadth-first and recording a state only on its first visit."""
    steps: list[Any] = []
    link = parent[node]
    while link is not None:
        node, step = link
        steps.append(step)
        link = parent[node]
    return tuple(reversed(steps))
