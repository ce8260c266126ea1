"""Exhaustive breadth-first search of one instance of a design: every reachable state is
checked against every property (quiescent ones on quiescent states), and each broken
property gets a shortest witness (the actions from the initial state, replayable with
`replay`). A search that stops at its state limit says so and decides nothing it did not
see: a property it found no break of is `unknown`, never `holds`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from model_checks.kernel.parent_links import path_to
from spec.designs.base import Design, DesignProperty, Scope


@dataclass(frozen=True, slots=True)
class Witness:
    """Actions from the initial state to a state that breaks `property_id`, and why it
    breaks: the explorer's is a shortest path, Hypothesis's (`designs.simulate`) its shrunk
    run; `replay` re-runs either."""

    property_id: str
    actions: tuple[Any, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Exploration:
    """What one search saw: `complete` when every reachable state was visited."""

    design: str
    variant: str
    environment: frozenset[str]
    states: int
    transitions: int
    depth: int
    complete: bool
    witnesses: tuple[Witness, ...]

    def verdict(self, property_id: str) -> str:
        """'breaks', 'holds' (every reachable state of this instance) or 'unknown'."""
        if any(w.property_id == property_id for w in self.witnesses):
            return "breaks"
        return "holds" if self.complete and self.states > 0 else "unknown"

    def witness(self, property_id: str) -> Witness | None:
        return next((w for w in self.witnesses if w.property_id == property_id), None)


def explore(design: Design, config: Any, *, max_states: int = 2_000_000,
            variant: str = "", environment: frozenset[str] = frozenset()) -> Exploration:
    """Search `config`'s reachable states breadth-first, at most `max_states` of them."""
    start = design.initial(config)
    parent: dict[Any, tuple[Any, Any] | None] = {start: None}
    depth = {start: 0}
    frontier = deque([start])
    found: dict[str, Witness] = {}
    transitions = 0
    _judge(design, config, start, (), found)
    complete = True
    while frontier:
        state = frontier.popleft()
        for action in design.enabled(config, state):
            after = design.step(config, state, action)
            transitions += 1
            # judged on every transition, visited or not: a state's identity may leave out
            # what only the properties read on arrival (what the step served)
            _judge(design, config, after, (state, action, parent), found)
            if after in parent:
                continue
            if len(parent) >= max_states:
                complete = False
                frontier.clear()
                break
            parent[after] = (state, action)
            depth[after] = depth[state] + 1
            frontier.append(after)
    order = [p.id for p in design.properties]
    return Exploration(design.name, variant, environment, len(parent), transitions,
                       max(depth.values()), complete,
                       tuple(sorted(found.values(), key=lambda w: order.index(w.property_id))))


def _judge(design: Design, config: Any, state: Any, arrival: tuple[Any, ...],
           found: dict[str, Witness]) -> None:
    """Record a witness for each property `state` breaks that has none yet; `arrival` is
    (the state before, the action, the parent table), or () for the initial state."""
    quiescent: bool | None = None
    for prop in design.properties:
        if prop.id in found:
            continue
        if prop.scope is Scope.QUIESCENT:
            if quiescent is None:
                quiescent = design.is_quiescent(config, state)
            if not quiescent:
                continue
        reasons = prop.check(config, state)
        if reasons:
            found[prop.id] = Witness(prop.id, _arrival_path(arrival), "; ".join(reasons))


def _arrival_path(arrival: tuple[Any, ...]) -> tuple[Any, ...]:
    if not arrival:
        return ()
    before, action, parent = arrival
    return (*path_to(parent, before), action)


def replay(design: Design, config: Any, actions: Sequence[Any], prop: DesignProperty
           ) -> list[str]:
    """Run `actions` on the spec (each must be enabled: `step` raises otherwise) and return
    the reasons the final state breaks `prop` (empty: it holds there, or the property is not
    asked of it: a quiescent property of a state that is not)."""
    state = design.initial(config)
    for action in actions:
        state = design.step(config, state, action)
    if prop.scope is Scope.QUIESCENT and not design.is_quiescent(config, state):
        return []  # the property is not asked of this state
    return prop.check(config, state)
