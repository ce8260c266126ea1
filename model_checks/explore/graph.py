"""The reachable state graph of one configuration, built breadth-first over the spec itself.

`build` calls `spec.enabled` and `spec.step` and nothing else to move; states are numbered in
the order breadth-first search discovers them, so state i's depth is never below state j's
for i > j, and the parent pointers give a shortest path to every state. States are kept
whole in one dictionary (frozen, hashable dataclasses; Python's salted `hash` is fine inside
one process, and nothing here crosses a process boundary: a worker builds and judges a whole
graph and returns records). `fingerprint` is the stable digest used where a state must be
named across processes or runs.

A resource limit (`max_states`), never a clock, bounds the search: a graph that hits it is
marked incomplete, and nothing built on it is reported as proved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from model_checks.explore.canonical import canonical
from spec import Action, Config, State, enabled, initial, step


def fingerprint(state: State) -> str:
    """A stable 64-bit digest of a state (its repr is valid Python and canonical)."""
    return hashlib.blake2b(repr(state).encode(), digest_size=8).hexdigest()


class StateLimitExceeded(Exception):
    """The graph has more states than the resource limit allows."""


@dataclass
class Graph:
    """states[i]: the (reduced) state i; depth[i]; parent[i] and via[i]: the predecessor and
    the action of a shortest path (-1 and None for the initial state 0); edges[i]: every
    (action, successor) of state i, in `enabled`'s order."""

    config: Config
    reduced: bool
    states: list[State] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    via: list[Action | None] = field(default_factory=list)
    edges: list[list[tuple[Action, int]]] = field(default_factory=list)
    complete: bool = True
    steps_taken: int = 0

    @property
    def diameter(self) -> int:
        """The largest breadth-first depth: every state is within this many steps."""
        return max(self.depth, default=0)

    def path_to(self, index: int) -> list[Action]:
        """The actions of a shortest path from the initial state to state `index`."""
        actions: list[Action] = []
        while index > 0:
            action = self.via[index]
            assert action is not None
            actions.append(action)
            index = self.parent[index]
        actions.reverse()
        return actions


def build(config: Config, *, reduce: bool = True, max_states: int = 2_000_000) -> Graph:
    """Every state reachable from `initial(config)`, breadth-first."""
    normal: Callable[[State], State] = canonical if reduce else _identity
    graph = Graph(config, reduce)
    index: dict[State, int] = {}

    def add(state: State, parent: int, action: Action | None, depth: int) -> int:
        number = len(graph.states)
        index[state] = number
        graph.states.append(state)
        graph.depth.append(depth)
        graph.parent.append(parent)
        graph.via.append(action)
        graph.edges.append([])
        return number

    add(normal(initial(config)), -1, None, 0)
    frontier = 0
    while frontier < len(graph.states):
        state, depth = graph.states[frontier], graph.depth[frontier]
        out = graph.edges[frontier]
        for action in enabled(config, state):
            successor = normal(step(config, state, action))
            graph.steps_taken += 1
            target = index.get(successor)
            if target is None:
                if len(graph.states) >= max_states:
                    graph.complete = False
                    return graph
                target = add(successor, frontier, action, depth + 1)
            out.append((action, target))
        frontier += 1
    return graph


def _identity(state: State) -> State:
    return state
