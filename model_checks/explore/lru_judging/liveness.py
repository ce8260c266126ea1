"""L4 on the whole state graph: stuck states, and fair cycles that never complete.

L4 assumes finitely many drift events, the client's R retries, and weak fairness of the
protocol's own work (`spec.properties.liveness.FAIR_DELIVERY`: an owed step, one whose
`is_obligation()` holds, that stays enabled is eventually taken). Under it, an infinite
behaviour ends, after its last drift event, inside one strongly connected component of the
graph without drift-event edges. So L4 fails exactly when

1. a reachable quiescent state fails the spec's L4 check (a crash, a hang, a request out of
   retries): quiescent means nothing is owed, so a fair behaviour may stop or idle there,
   and these outcomes are final; the breadth-first order gives a shortest path to one; or
2. a reachable, drift-free, strongly connected component is fair (every step owed in all of
   its states is taken by one of its edges) and holds an unfinished request: a behaviour can
   cycle through it forever, fairly, without completing that request (a lasso: a path to the
   component, then a closed walk through all of its states).

Weak fairness is judged on whole components: a sub-cycle takes fewer steps and is enabled in
no fewer states' worth of obligations, so a component that is unfair has no fair sub-cycle.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from model_checks.explore.graph import Graph
from spec import Action, Outcome, Trace, by_id


@dataclass(frozen=True)
class Lasso:
    """A path to a fair cycle, then the cycle itself (closed: it ends where it starts)."""

    prefix: tuple[Action, ...]
    cycle: tuple[Action, ...]
    reason: str


def stuck_state(graph: Graph) -> tuple[int, str] | None:
    """The first (so shallowest) state the spec's L4 check fails on its own: quiescent, and a
    fault or a request that did not end as L4 requires."""
    l4 = by_id("L4")
    owed, codes = graph.action_flags(is_owed), graph.edge_action
    for index, state in enumerate(graph.states):
        if any(owed[codes[k]] for k in graph.edge_range(index)):
            continue  # an owed step is enabled (it is an edge): not quiescent, L4 holds here
        violation = l4.check_trace(Trace(graph.config, state))
        if violation is not None:
            return index, violation.reason
    return None


def strongly_connected(successors: Sequence[Sequence[int]]) -> list[list[int]]:
    """Tarjan's algorithm, iterative: the strongly connected components of a graph given as
    successor lists (every node, singletons included)."""
    count = len(successors)
    number = [-1] * count
    low = [0] * count
    on_stack = [False] * count
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(count):
        if number[root] != -1:
            continue
        work = [(root, 0)]
        number[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, position = work[-1]
            if position < len(successors[node]):
                work[-1] = (node, position + 1)
                child = successors[node][position]
                if number[child] == -1:
                    number[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack[child] = True
                    work.append((child, 0))
                elif on_stack[child]:
                    low[node] = min(low[node], number[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == number[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
    return components


def fair_lasso(graph: Graph) -> Lasso | None:
    """A fair, drift-free cycle holding an unfinished request, reached by a shortest path."""
    drift, owes = graph.action_flags(is_drift), graph.action_flags(is_owed)
    for members in candidates(graph):
        if not _fair(graph, members, owes, drift):
            continue
        entry = min(members)
        return Lasso(tuple(graph.path_to(entry)), _closed_walk(graph, members, entry),
                     "a fair cycle with no drift event never completes a request")
    return None


def candidates(graph: Graph) -> Iterator[set[int]]:
    """The drift-free strongly connected components with a cycle and an unfinished request
    (where a fair lasso may lie), by least member."""
    drift = graph.action_flags(is_drift)
    codes, targets = graph.edge_action, graph.edge_target
    drift_free = [[targets[k] for k in graph.edge_range(index) if not drift[codes[k]]]
                  for index in range(graph.size)]
    for component in sorted(strongly_connected(drift_free), key=lambda c: min(c)):
        if len(component) == 1 and component[0] not in drift_free[component[0]]:
            continue  # a single state with no self-loop: no cycle
        members = set(component)
        if _unfinished(graph, members):
            yield members


def is_drift(action: Action) -> bool:
    return action.drift_event() is not None


def is_owed(action: Action) -> bool:
    return action.is_obligation()  # the action's own class's, never the base class's


def _fair(graph: Graph, members: set[int], owes: list[bool], drift: list[bool]) -> bool:
    """Every step owed in all of the component's states is taken by one of its drift-free
    edges (actions compared by their interned codes; `owes` and `drift` by code)."""
    codes, targets = graph.edge_action, graph.edge_target
    owed_everywhere: set[int] | None = None
    taken: set[int] = set()
    for node in members:
        edges = graph.edge_range(node)
        owed = {codes[k] for k in edges if owes[codes[k]]}
        owed_everywhere = owed if owed_everywhere is None else owed_everywhere & owed
        taken |= {codes[k] for k in edges if targets[k] in members and not drift[codes[k]]}
    return owed_everywhere is None or owed_everywhere <= taken


def _unfinished(graph: Graph, members: set[int]) -> bool:
    return any(
        request.outcome is None or request.outcome is Outcome.MISS
        for node in members for request in graph.states[node].requests
    )


def _closed_walk(graph: Graph, members: set[int], entry: int) -> tuple[Action, ...]:
    """A walk inside the component from `entry` through every member and back to `entry`."""
    walk: list[Action] = []
    here = entry
    for goal in [*sorted(members - {entry}), entry]:
        walk += _path_within(graph, members, here, goal)
        here = goal
    if not walk:  # a single state with a self-loop
        walk = [next(a for a, t in graph.edges[entry] if t == entry and a.drift_event() is None)]
    return tuple(walk)


def _path_within(graph: Graph, members: set[int], start: int, goal: int) -> list[Action]:
    if start == goal:
        return []
    came: dict[int, tuple[int, Action]] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for action, target in graph.edges[node]:
            if target in members and target not in came and action.drift_event() is None:
                came[target] = (node, action)
                if target == goal:
                    path = []
                    while target != start:
                        target, action = came[target]
                        path.append(action)
                    return path[::-1]
                queue.append(target)
    raise AssertionError("a strongly connected component is connected")
