"""L4's graph analysis: Tarjan's components against a brute-force reachability check, and
the fairness judgement of a cycle on hand-made graphs (the spec itself has no fair cycle
that leaves a request unfinished: its only drift-free cycles are idle synchronised clears)."""

from __future__ import annotations

import random
from dataclasses import replace

from given_graph import given_graph

from model_checks.explore.graph import Graph, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import Status, judge
from model_checks.explore.lru_judging.liveness import fair_lasso, strongly_connected
from spec import V2, by_id, initial, run, step
from spec.transitions import ClearBoth, P0Handle, Submit


def _reach(successors: list[list[int]], start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        for n in successors[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


def test_components_match_mutual_reachability() -> None:
    rng = random.Random(3)
    for _ in range(40):
        size = rng.randint(1, 12)
        succ = [[rng.randrange(size) for _ in range(rng.randint(0, 3))] for _ in range(size)]
        reach = [_reach(succ, n) for n in range(size)]
        expected = {frozenset(m for m in range(size) if m in reach[n] and n in reach[m])
                    for n in range(size)}
        assert {frozenset(c) for c in strongly_connected(succ)} == expected


def _idle_graph(owed_taken: bool) -> Graph:
    """State 0 holds a submitted request and loops on ClearBoth; P0Handle(0) is owed there.
    Unfair: P0Handle leads out of the cycle, so a behaviour looping forever never takes it.
    Fair (made up, the spec has no such step): P0Handle also leads back to state 0."""
    config = explore_config(V2, ())
    first = next(iter(Submit.candidates(config, initial(config))))
    submitted = step(config, initial(config), first)
    graph = given_graph(config, [submitted, submitted], [0, 1], [-1, 0], [None, P0Handle(0)],
                     [[(ClearBoth(), 0), (P0Handle(0), 0 if owed_taken else 1)], []])
    return graph


def test_unfair_cycle_is_no_counterexample() -> None:
    assert fair_lasso(_idle_graph(owed_taken=False)) is None


def test_fair_cycle_with_an_unfinished_request_is_a_lasso() -> None:
    lasso = fair_lasso(_idle_graph(owed_taken=True))
    assert lasso is not None and lasso.prefix == () and len(lasso.cycle) >= 1


def test_l4_stuck_state_is_a_shortest_replayed_counterexample() -> None:
    never_invalidates = replace(V2, invalidates=False, name="V2-never-invalidates")
    graph = build(explore_config(never_invalidates, ("D3",), max_requests=2))
    judgement = judge(graph, by_id("L4"))
    assert judgement.status is Status.COUNTEREXAMPLE and judgement.trace is not None
    assert by_id("L4").check_trace(judgement.trace) is not None
    assert by_id("L4").check_trace(run(graph.config, judgement.actions[:-1])) is None
