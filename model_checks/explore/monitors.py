"""L1-L3 as monitors: small automata run in product with the state graph.

The spec states L1-L3 as functions of a whole finite trace (`spec.properties.liveness`). Each
of them reads the trace left to right and keeps a small memory: L1 the (front end, identity)
pairs owed a resend, L3 the requests whose miss it watches; L2 reads one state at a time. A
`Monitor` is that memory made explicit: `start` gives it for the initial state, `advance`
the memory after one step and the reason the step violates the property, if it does. The
explorer searches the product of the state graph with the monitor breadth-first, so the first
violation it meets is a shortest one, and every violation is replayed through the spec's own
trace check before it is reported.

Restating the spec's monitors is a second statement of each property, so it is held to the
first by a differential test: on random walks of every variant and environment, a monitor
flags a prefix exactly when the spec's trace check does
(`tests/explore/test_explore_monitors.py`). A property the explorer has no monitor for is
reported undecided, never judged by guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spec import Action, Config, Stage, State, Trace, by_id
from spec.transitions import P0ReceiveReply, P1Receive

Memory = Any  # hashable; each monitor documents its own
Advance = Callable[[Config, State, Action, State, Memory], tuple[Memory, str | None]]


@dataclass(frozen=True)
class Monitor:
    property_id: str
    start: Memory
    advance: Advance
    premise: Callable[[State, Action, State], bool]
    """True on the steps that make the property's premise true (a miss taken by P0): a
    property whose premise no reachable step meets holds vacuously."""
    premise_reason: str
    state_local: bool = False
    """True when the property, as the spec states it, reads one state at a time: judged on
    every state (the breadth-first order gives a shortest path), with no product."""


def _sent_message(before: State, after: State) -> tuple[int, tuple[tuple[str, bool], ...]] | None:
    """(front end, (identity, carries data) per item) of the message a step sent, if any:
    the step that moved some request to IN_FLIGHT put it last on the channel to P1."""
    for request in after.requests:
        old = before.requests[request.rid] if request.rid < len(before.requests) else None
        if request.stage is Stage.IN_FLIGHT and (old is None or old.stage is not Stage.IN_FLIGHT):
            message = after.to_engine[-1]
            return message.front_end, tuple((w.identity, w.data is not None)
                                            for w in message.items)
    return None


def _miss_taken(before: State, action: Action) -> tuple[int, int, tuple[str, ...]] | None:
    """(rid, front end, identities) when the step is P0 taking a miss reply."""
    if isinstance(action, P0ReceiveReply) and before.to_front_end[0].missed:
        reply = before.to_front_end[0]
        return reply.rid, reply.front_end, reply.missed
    return None


def _takes_miss(before: State, action: Action, after: State) -> bool:
    return _miss_taken(before, action) is not None


# -- L1: memory = frozenset of (front end, identity) owed a payload --------------------------


def _advance_l1(
    config: Config, before: State, action: Action, after: State, owed: frozenset[tuple[int, str]]
) -> tuple[frozenset[tuple[int, str]], str | None]:
    taken = _miss_taken(before, action)
    if taken is not None:
        _, front_end, missed = taken
        owed = owed | {(front_end, h) for h in missed}
    sent = _sent_message(before, after)
    if sent is None:
        return owed, None
    front_end, items = sent
    for identity, has_data in items:
        if (front_end, identity) in owed:
            owed = owed - {(front_end, identity)}
            if not has_data:
                why = f"front end {front_end} sent {identity!r} as a reference after its miss"
                return owed, why
    return owed, None


# -- L3: memory = frozenset of rids whose miss is watched (no drift event since) --------------


def _advance_l3(
    config: Config, before: State, action: Action, after: State, watching: frozenset[int]
) -> tuple[frozenset[int], str | None]:
    if action.drift_event() is not None:
        watching = frozenset()
    taken = _miss_taken(before, action)
    if taken is not None:
        watching = watching | {taken[0]}
    if isinstance(action, P1Receive) and after.last_delivery is not None:
        rid = after.last_delivery.message.rid
        if rid in watching:
            watching = watching - {rid}
            if after.last_delivery.missed:
                return watching, f"request {rid}: the retry missed again with no drift event"
    return watching, None


# -- L2: a property of single states as the spec states it; memory unused ---------------------


def _advance_state_local(prop_id: str) -> Advance:
    prop = by_id(prop_id)

    def advance(
        config: Config, before: State, action: Action, after: State, memory: None
    ) -> tuple[None, str | None]:
        violation = prop.check_trace(Trace(config, after))
        return None, None if violation is None else violation.reason

    return advance


def _delivery_missed(before: State, action: Action, after: State) -> bool:
    return after.last_delivery is not None and bool(after.last_delivery.missed)


MONITORS: dict[str, Monitor] = {
    "L1": Monitor("L1", frozenset(), _advance_l1, _takes_miss,
                  "no miss is reachable: P0 never takes a miss reply, so nothing is owed"),
    "L2": Monitor("L2", None, _advance_state_local("L2"), _delivery_missed,
                  "no miss is reachable: P1 never reports an item missing", state_local=True),
    "L3": Monitor("L3", frozenset(), _advance_l3, _takes_miss,
                  "no miss is reachable: P0 never takes a miss reply, so no recovery is owed"),
}
"""The trace properties judged by a monitor, by id. L4 is judged by graph analysis
(`model_checks.explore.liveness`)."""
