"""The reachable state graph of one instance of a design, enumerated breadth-first up to a
state limit, with the states that break each property: what `prove` encodes for Z3.

A graph cut short by its limit says how far it is exhaustive: `exhaustive_depth` is the
largest `d` such that every path of at most `d` steps from the initial state lies in the
graph (every state within `d` steps is in it, and every transition out of a state within
`d - 1` steps). `open_states` are the states whose transitions were not all recorded.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from spec.designs.base import Design, DesignProperty, Scope


@dataclass(frozen=True, slots=True)
class StateGraph:
    """States by index (0 is the initial state), transitions as (source, action, target)
    indices with one action kept per (source, target) pair, and per property id the
    (index, reason) of every state in the graph that breaks it."""

    states: tuple[Any, ...]
    edges: tuple[tuple[int, Any, int], ...]
    depth: tuple[int, ...]
    open_states: frozenset[int]
    exhaustive_depth: int
    bad: dict[str, tuple[tuple[int, str], ...]]

    @property
    def complete(self) -> bool:
        """Every reachable state and every transition is in the graph."""
        return bool(self.states) and not self.open_states


def state_graph(design: Design, config: Any, max_states: int) -> StateGraph:
    """Enumerate `config`'s reachable states breadth-first, at most `max_states` of them
    (0: an empty graph, which no checker may read as a pass)."""
    if max_states < 1:
        return StateGraph((), (), (), frozenset(), -1, {p.id: () for p in design.properties})
    start = design.initial(config)
    index: dict[Any, int] = {start: 0}
    depth = [0]
    edges: dict[tuple[int, int], Any] = {}
    open_states: set[int] = set()
    frontier = deque([start])
    while frontier:
        state = frontier.popleft()
        source = index[state]
        for action in design.enabled(config, state):
            after = design.step(config, state, action)
            if after not in index:
                if len(index) >= max_states:
                    open_states.add(source)
                    continue
                index[after] = len(index)
                depth.append(depth[source] + 1)
                frontier.append(after)
            edges.setdefault((source, index[after]), action)
    states = tuple(index)
    return StateGraph(states, tuple((s, a, t) for (s, t), a in edges.items()), tuple(depth),
                      frozenset(open_states), _exhaustive_depth(depth, open_states),
                      {p.id: _breaking(design, config, states, p) for p in design.properties})


def _exhaustive_depth(depth: list[int], open_states: set[int]) -> int:
    """Paths of up to this many steps are all in the graph: the shallowest open state's
    depth (every state shallower was expanded in full before it, breadth-first). For a
    complete graph, the deepest state's depth: every path, of any length, is in it."""
    if not open_states:
        return max(depth)
    return min(depth[s] for s in open_states)


def _breaking(design: Design, config: Any, states: tuple[Any, ...], prop: DesignProperty
              ) -> tuple[tuple[int, str], ...]:
    found = []
    for number, state in enumerate(states):
        if prop.scope is Scope.QUIESCENT and not design.is_quiescent(config, state):
            continue
        reasons = prop.check(config, state)
        if reasons:
            found.append((number, "; ".join(reasons)))
    return tuple(found)
