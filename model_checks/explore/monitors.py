"""L1-L3 as monitors: small automata run in product with the state graph.

The spec states L1-L3 as functions of a whole finite trace (`spec.properties.liveness`). Each
of them reads the trace left to right and keeps a small memory: L1 the (request, identity)
pairs its retry owes a payload and those another payload excused, L2 what each request's last
miss listed, L3 the requests whose miss at P1 it watches. A
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

from spec import Action, Config, State
from spec.observations import miss_taken, sent_message
from spec.transitions import P1Receive

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
    rename: Callable[[Memory, dict[str, str]], Memory] = lambda memory, names: memory
    """The memory with its identities renamed (identity symmetry, `symmetry.py`): the
    default is for a memory that names no identity."""
    obligation: Callable[[State, Action, State, Memory], bool] | None = None
    """Where the premise depends on the monitor's memory: true on the steps at which the
    property's conclusion is judged (used instead of `premise` in the product search)."""


def _takes_miss(before: State, action: Action, after: State) -> bool:
    return miss_taken(before, action) is not None


# -- L1: memory = (owed, excused): frozensets of (rid, identity) ------------------------------
# owed: the retry of rid owes identity's payload; excused: a message of the same front end
# carried that payload since the miss (the retry may then send a reference).

L1Memory = tuple[frozenset[tuple[int, str]], frozenset[tuple[int, str]]]


def _advance_l1(
    config: Config, before: State, action: Action, after: State, memory: L1Memory
) -> tuple[L1Memory, str | None]:
    owed, excused = memory
    taken = miss_taken(before, action)
    if taken is not None:
        rid, missed = taken.rid, taken.missed
        owed = owed | {(rid, h) for h in missed}
        excused = excused - {(rid, h) for h in missed}
    sent = sent_message(before, after)
    if sent is None:
        return (owed, excused), None
    rid, front_end = sent.rid, sent.front_end
    items = tuple((w.identity, w.data is not None) for w in sent.items)
    why = None
    for identity, has_data in items:
        key = (rid, identity)
        if key in owed:
            owed = owed - {key}
            if not has_data and key not in excused and why is None:
                why = f"the retry of request {rid} sent {identity!r} as a reference"
        excused = excused - {key}
    payloads = {identity for identity, has_data in items if has_data}
    excused = excused | {
        (r, h) for r, h in owed
        if r != rid and h in payloads and after.requests[r].front_end == front_end
    }
    return (owed, excused), why


# -- L2: memory = frozenset of (rid, identities its last miss reply listed) -------------------


def _advance_l2(
    config: Config, before: State, action: Action, after: State,
    listed: frozenset[tuple[int, tuple[str, ...]]],
) -> tuple[frozenset[tuple[int, tuple[str, ...]]], str | None]:
    taken = miss_taken(before, action)
    if taken is None:
        return listed, None
    rid, missed = taken.rid, taken.missed
    previous = next((ids for r, ids in listed if r == rid), ())
    again = sorted(set(previous).intersection(missed))
    listed = frozenset((r, ids) for r, ids in listed if r != rid) | {(rid, missed)}
    if again:
        return listed, f"request {rid}: its retry was answered with a miss for {again}"
    return listed, None


# -- L3: memory = frozenset of rids whose miss at P1 is watched (no drift event since) --------


def _advance_l3(
    config: Config, before: State, action: Action, after: State, watching: frozenset[int]
) -> tuple[frozenset[int], str | None]:
    if action.drift_event() is not None:
        watching = frozenset()
    if isinstance(action, P1Receive) and after.last_delivery is not None:
        rid = after.last_delivery.message.rid
        missed = bool(after.last_delivery.missed)
        if rid in watching:
            watching = watching - {rid}
            if missed:
                return watching, f"request {rid}: the retry missed again with no drift event"
        if missed:
            watching = watching | {rid}
    return watching, None


def _rename_l1(memory: L1Memory, names: dict[str, str]) -> L1Memory:
    owed, excused = memory
    return (frozenset((r, names.get(h, h)) for r, h in owed),
            frozenset((r, names.get(h, h)) for r, h in excused))


def _rename_l2(
    listed: frozenset[tuple[int, tuple[str, ...]]], names: dict[str, str]
) -> frozenset[tuple[int, tuple[str, ...]]]:
    return frozenset((r, tuple(names.get(h, h) for h in ids)) for r, ids in listed)


def _delivery_missed(before: State, action: Action, after: State) -> bool:
    return after.last_delivery is not None and bool(after.last_delivery.missed)


def _watched_retry_delivered(
    before: State, action: Action, after: State, watching: frozenset[int]
) -> bool:
    """L3 judges a step only where P1 takes a request whose miss it watches (no drift event
    since): without such a step L3 cannot fail, whatever misses happen. V0's engine crashes
    at its miss (the fault is absorbing), so no retry ever follows one there."""
    if action.drift_event() is not None or not isinstance(action, P1Receive):
        return False
    return after.last_delivery is not None and after.last_delivery.message.rid in watching


MONITORS: dict[str, Monitor] = {
    "L1": Monitor("L1", (frozenset(), frozenset()), _advance_l1, _takes_miss,
                  "no miss is reachable: P0 never takes a miss reply, so nothing is owed",
                  rename=_rename_l1),
    "L2": Monitor("L2", frozenset(), _advance_l2, _takes_miss,
                  "no miss is reachable: P0 never takes a miss reply, so no retry is answered",
                  rename=_rename_l2),
    "L3": Monitor("L3", frozenset(), _advance_l3, _delivery_missed,
                  "no retry reaches P1 after a miss with no drift event in between (where P1 "
                  "misses, the engine crashes or a drift event comes first), so no recovery "
                  "is judged", obligation=_watched_retry_delivered),
}
"""The trace properties judged by a monitor, by id. L4 is judged by graph analysis
(`model_checks.explore.liveness`)."""
