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
from typing import Any, NamedTuple

from spec import Action, Config, State
from spec.observations import miss_taken, sent_message
from spec.state import Delivery, Message, Reply
from spec.transitions import P1Receive

Memory = Any  # hashable; each monitor documents its own


class Step(NamedTuple):
    """What one step `before -> after` did, as the monitors read it: the miss reply P0 took
    (`spec.observations.miss_taken`), the message sent to P1 (`sent_message`), whether the
    action is a drift event, whether it is P1's receive and the delivery it left. Observed
    once per edge of the graph (`observe`), then read by every monitor: a monitor's step
    reads nothing else, except L1, which reads `after`'s requests when a message is sent."""

    taken: Reply | None
    sent: Message | None
    drift: bool
    receive: bool
    delivery: Delivery | None
    after: State
    quiet: bool
    """True when no monitor can move on this step: no miss taken, nothing sent, no drift
    event, no delivery (every monitor keeps its memory and reports nothing)."""


def observe(before: State, action: Action, after: State) -> Step:
    """The step `before -> after` by `action`, as the monitors read it."""
    taken, sent = miss_taken(before, action), sent_message(before, after)
    drift, delivery = action.drift_event() is not None, after.last_delivery
    return Step(taken, sent, drift, isinstance(action, P1Receive), delivery, after,
                taken is None and sent is None and not drift and delivery is None)


Move = Callable[[Config, Step, Memory], tuple[Memory, str | None]]


@dataclass(frozen=True)
class Monitor:
    property_id: str
    start: Memory
    move: Move
    """The memory after one step, and the reason the step violates the property, if it
    does (a quiet step, `Step.quiet`, keeps the memory and violates nothing)."""
    premise: Callable[[Step], bool]
    """True on the steps that make the property's premise true (a miss taken by P0): a
    property whose premise no reachable step meets holds vacuously."""
    premise_reason: str
    state_local: bool = False
    """True when the property, as the spec states it, reads one state at a time: judged on
    every state (the breadth-first order gives a shortest path), with no product."""
    rename: Callable[[Memory, dict[str, str]], Memory] = lambda memory, names: memory
    """The memory with its identities renamed (identity symmetry, `symmetry.py`): the
    default is for a memory that names no identity."""
    rename_rids: Callable[[Memory, dict[int, int]], Memory] = lambda memory, live: memory
    """The memory with the rids of live requests renamed and those of the others dropped
    (request slots renumbered, `slots.py`: no later step names an ended request): the
    default is for a memory that names no request."""
    obligation: Callable[[Step, Memory], bool] | None = None
    """Where the premise depends on the monitor's memory: true on the steps at which the
    property's conclusion is judged (used instead of `premise` in the product search)."""

    def advance(self, config: Config, before: State, action: Action, after: State,
                memory: Memory) -> tuple[Memory, str | None]:
        """The memory after the step `before -> after` by `action`, and the reason it
        violates the property, if it does: `move` on the observed step."""
        return self.move(config, observe(before, action, after), memory)


def _takes_miss(step: Step) -> bool:
    return step.taken is not None


# -- L1: memory = (owed, excused): frozensets of (rid, identity) ------------------------------
# owed: the retry of rid owes identity's payload; excused: a message of the same front end
# carried that payload since the miss (the retry may then send a reference).

L1Memory = tuple[frozenset[tuple[int, str]], frozenset[tuple[int, str]]]


def _advance_l1(config: Config, step: Step, memory: L1Memory) -> tuple[L1Memory, str | None]:
    owed, excused = memory
    taken = step.taken
    if taken is not None:
        rid, missed = taken.rid, taken.missed
        owed = owed | {(rid, h) for h in missed}
        excused = excused - {(rid, h) for h in missed}
    sent = step.sent
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
        if r != rid and h in payloads and step.after.requests[r].front_end == front_end
    }
    return (owed, excused), why


# -- L2: memory = frozenset of (rid, identities its last miss reply listed) -------------------


def _advance_l2(
    config: Config, step: Step, listed: frozenset[tuple[int, tuple[str, ...]]],
) -> tuple[frozenset[tuple[int, tuple[str, ...]]], str | None]:
    taken = step.taken
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
    config: Config, step: Step, watching: frozenset[int]
) -> tuple[frozenset[int], str | None]:
    if step.drift:
        watching = frozenset()
    if step.receive and step.delivery is not None:
        rid = step.delivery.message.rid
        missed = bool(step.delivery.missed)
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


def _rids_l1(memory: L1Memory, live: dict[int, int]) -> L1Memory:
    owed, excused = memory
    return (frozenset((live[r], h) for r, h in owed if r in live),
            frozenset((live[r], h) for r, h in excused if r in live))


def _rids_l2(listed: frozenset[tuple[int, tuple[str, ...]]], live: dict[int, int]
             ) -> frozenset[tuple[int, tuple[str, ...]]]:
    return frozenset((live[r], ids) for r, ids in listed if r in live)


def _rids_l3(watching: frozenset[int], live: dict[int, int]) -> frozenset[int]:
    return frozenset(live[r] for r in watching if r in live)


def _delivery_missed(step: Step) -> bool:
    return step.delivery is not None and bool(step.delivery.missed)


def _watched_retry_delivered(step: Step, watching: frozenset[int]) -> bool:
    """L3 judges a step only where P1 takes a request whose miss it watches (no drift event
    since): without such a step L3 cannot fail, whatever misses happen. V0's engine crashes
    at its miss (the fault is absorbing), so no retry ever follows one there."""
    if step.drift or not step.receive:
        return False
    return step.delivery is not None and step.delivery.message.rid in watching


MONITORS: dict[str, Monitor] = {
    "L1": Monitor("L1", (frozenset(), frozenset()), _advance_l1, _takes_miss,
                  "no miss is reachable: P0 never takes a miss reply, so nothing is owed",
                  rename=_rename_l1, rename_rids=_rids_l1),
    "L2": Monitor("L2", frozenset(), _advance_l2, _takes_miss,
                  "no miss is reachable: P0 never takes a miss reply, so no retry is answered",
                  rename=_rename_l2, rename_rids=_rids_l2),
    "L3": Monitor("L3", frozenset(), _advance_l3, _delivery_missed,
                  "no retry reaches P1 after a miss with no drift event in between (where P1 "
                  "misses, the engine crashes or a drift event comes first), so no recovery "
                  "is judged", obligation=_watched_retry_delivered, rename_rids=_rids_l3),
}
"""The trace properties judged by a monitor, by id. L4 is judged by graph analysis
(`model_checks.explore.lru_judging.liveness`)."""
