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

Two reductions apply when `reduce` is set: processing renaming (`canonical.py`) and identity
symmetry (`symmetry.py`, only where some identities are interchangeable). The second moves
identities, which actions name, so the graph keeps per edge the renaming it applied
(`renamings`, `via_renaming`) and `path_to` maps every path back to the unreduced spec.

Partial-order reduction is opt-in: `expand` (`model_checks.explore.reduction`) chooses which
enabled actions of a state to expand, and `build` applies the cycle proviso to its choice
(`_proviso`). `max_depth` stops expanding at a depth (a bounded search, never complete).

The inner loop calls `action.apply` on the state with its last delivery cleared, computed once
per state, instead of `spec.step` per action: `step` is exactly "check `is_enabled`, then
apply to the cleared state", and `enabled` has just established `is_enabled` for each action
it lists (`tests/explore/test_explore_symmetry.py::test_the_fast_step_is_spec_step`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from model_checks.explore.canonical import canonical
from model_checks.explore.symmetry import (
    Groups,
    Renaming,
    canonical_identities,
    concrete_actions,
    interchangeable,
    inverse,
    rename_state,
)
from spec import Action, Config, State, enabled, initial


def fingerprint(state: State) -> str:
    """A stable 64-bit digest of a state (its repr is valid Python and canonical)."""
    return hashlib.blake2b(repr(state).encode(), digest_size=8).hexdigest()


class StateLimitExceeded(Exception):
    """The graph has more states than the resource limit allows."""


@dataclass
class Graph:
    """states[i]: the (reduced) state i; depth[i]; parent[i] and via[i]: the predecessor and
    the action of a shortest path (-1 and None for the initial state 0); edges[i]: every
    (action, successor) of state i, in `enabled`'s order, the action as taken from state i;
    under identity symmetry, renamings[i][k] is the identity renaming that maps edge k's real
    successor onto states[target] (None: none), and via_renaming[i] that of the tree edge."""

    config: Config
    reduced: bool
    states: list[State] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    via: list[Action | None] = field(default_factory=list)
    edges: list[list[tuple[Action, int]]] = field(default_factory=list)
    complete: bool = True
    steps_taken: int = 0
    symmetric: bool = False
    max_states: int = 2_000_000
    partial: int = 0  # states expanded with fewer than all their enabled actions
    renamings: list[list[Renaming | None]] = field(default_factory=list)
    via_renaming: list[Renaming | None] = field(default_factory=list)
    _undone: dict[tuple[int, Renaming], State] = field(default_factory=dict, repr=False)

    @property
    def diameter(self) -> int:
        """The largest breadth-first depth: every state is within this many steps."""
        return max(self.depth, default=0)

    def path_to(self, index: int) -> list[Action]:
        """The actions of a shortest path from the initial state to state `index`, as the
        unreduced spec takes them (identity renamings undone)."""
        steps: list[tuple[Action, Renaming | None]] = []
        while index > 0:
            action = self.via[index]
            assert action is not None
            steps.append((action, self.via_renaming[index] if self.symmetric else None))
            index = self.parent[index]
        steps.reverse()
        return concrete_actions(steps) if self.symmetric else [a for a, _ in steps]

    def renaming(self, index: int, position: int) -> Renaming | None:
        """The identity renaming of edge `position` of state `index` (None: none)."""
        return self.renamings[index][position] if self.symmetric else None

    def real_successor(self, index: int, position: int) -> State:
        """The successor edge `position` of state `index` reaches, in state `index`'s names:
        its target with the edge's identity renaming undone (memoised: every monitor's
        product search crosses the same edges)."""
        target = self.edges[index][position][1]
        renaming = self.renaming(index, position)
        if renaming is None:
            return self.states[target]
        key = (target, renaming)
        real = self._undone.get(key)
        if real is None:
            real = self._undone[key] = rename_state(self.states[target], inverse(renaming))
        return real


def build(
    config: Config, *, reduce: bool = True, symmetry: bool | None = None,
    max_states: int = 2_000_000, expand: Expand | None = None, max_depth: int | None = None,
    depth_proviso: bool = True,
) -> Graph:
    """Every state reachable from `initial(config)`, breadth-first. `symmetry` (default: as
    `reduce`) applies identity symmetry where the configuration has interchangeable
    identities. `expand(state, enabled)`: the actions to expand (a subset, kept only where
    the breadth-first cycle proviso `_proviso` holds, unless `depth_proviso` is false
    because `expand` ensures a cycle proviso itself); `max_depth`: states at that depth are
    not expanded."""
    groups = interchangeable(config) if (reduce if symmetry is None else symmetry) else ()
    rename_pids: Callable[[State], State] = canonical if reduce else _identity
    graph = Graph(config, reduce, symmetric=bool(groups), max_states=max_states)
    index: dict[State, int] = {}

    def add(state: State, parent: int, action: Action | None, depth: int,
            renaming: Renaming | None) -> int:
        number = len(graph.states)
        graph.states.append(state)
        graph.depth.append(depth)
        graph.parent.append(parent)
        graph.via.append(action)
        graph.edges.append([])
        if groups:
            graph.renamings.append([])
            graph.via_renaming.append(renaming)
        return number

    start, renaming = canonical_identities(rename_pids(initial(config)), groups)
    assert renaming is None, "the initial state names no identity"
    index[start] = add(start, -1, None, 0, None)
    frontier = 0
    while frontier < len(graph.states):
        state, depth = graph.states[frontier], graph.depth[frontier]
        out = graph.edges[frontier]
        cleared = state if state.last_delivery is None else replace(state, last_delivery=None)
        actions = enabled(config, state)
        if max_depth is not None and depth >= max_depth:
            graph.complete = graph.complete and not actions
            actions = []
        chosen = expand(state, actions) if expand is not None and actions else actions
        made = {a: _successor(config, cleared, a, rename_pids, groups) for a in chosen}
        if len(chosen) < len(actions):
            if not depth_proviso or _proviso(graph, index, depth, made):
                actions = chosen
                graph.partial += 1
            else:
                made.update((a, _successor(config, cleared, a, rename_pids, groups))
                            for a in actions if a not in made)
        for action in actions:
            successor, renaming = made[action]
            graph.steps_taken += 1
            fresh = len(graph.states)
            target = index.setdefault(successor, fresh)  # one hash of the state, not two
            if target == fresh:
                if fresh >= max_states:
                    graph.complete = False
                    return graph
                add(successor, frontier, action, depth + 1, renaming)
            out.append((action, target))
            if groups:
                graph.renamings[frontier].append(renaming)
        frontier += 1
    return graph


Expand = Callable[[State, list[Action]], list[Action]]


def _successor(config: Config, cleared: State, action: Action,
               rename_pids: Callable[[State], State], groups: Groups,
               ) -> tuple[State, Renaming | None]:
    successor = rename_pids(action.apply(config, cleared))
    return canonical_identities(successor, groups) if groups else (successor, None)


def _proviso(graph: Graph, index: dict[State, int], depth: int,
             made: dict[Action, tuple[State, Renaming | None]]) -> bool:
    """The cycle proviso, breadth-first: a reduced expansion is kept only if every chosen
    successor is new or one level deeper. Then every edge out of a reduced state goes one
    level down, so every cycle of the reduced graph passes through a fully expanded state
    and no action is postponed around it forever."""
    for successor, _ in made.values():
        known = index.get(successor)
        if known is not None and graph.depth[known] <= depth:
            return False
    return True


def _identity(state: State) -> State:
    return state
