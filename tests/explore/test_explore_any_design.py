"""The one explorer searches any design: a design without reductions of its own moves through
`DesignMoves`, the LRU design through its reductions (`search_core.moves_for`), and
`exploration.explore` (on `graph.build`) finds what a plain breadth-first search of the
`Design` interface finds, judged on every transition, at every state limit: the same states,
transitions, depth, completeness and witnesses, the same actions."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import Any

import pytest

from model_checks.explore.exploration import explore
from model_checks.explore.judgement import JudgedInstance, Judgement, Status
from model_checks.explore.moves import DesignMoves
from model_checks.explore.search_core import Reductions, moves_for
from spec.designs import Design
from spec.designs.base import DesignProperty, Scope
from spec.designs.encoder.design import ENCODER
from spec.designs.lru_design import LRU
from spec.designs.shm.design import SHM


def plain_search(design: Design, config: Any, max_states: int) -> JudgedInstance:
    """Breadth-first over `initial`, `enabled` and `step` with a dict of parent links, every
    property checked on every transition's successor until the state limit cuts it; a
    property it found no break of is proved where it was complete, else undecided."""
    start = design.initial(config)
    parent: dict[Any, tuple[Any, Any] | None] = {start: None}
    depth = {start: 0}
    frontier, found, transitions, complete = deque([start]), {}, 0, True

    def path(state: Any) -> tuple[Any, ...]:
        steps, link = [], parent[state]
        while link is not None:
            state, action = link
            steps.append(action)
            link = parent[state]
        return tuple(reversed(steps))

    def judge(state: Any, actions: tuple[Any, ...]) -> None:
        for prop in design.properties:
            if prop.id in found or (prop.scope is Scope.QUIESCENT
                                    and not design.is_quiescent(config, state)):
                continue
            reasons = prop.check(config, state)
            if reasons:
                found[prop.id] = Judgement(prop.id, Status.COUNTEREXAMPLE, "; ".join(reasons),
                                           actions)

    judge(start, ())
    while frontier and complete:
        state = frontier.popleft()
        for action in design.enabled(config, state):
            after = design.step(config, state, action)
            transitions += 1
            judge(after, (*path(state), action))
            if after in parent:
                continue
            if len(parent) >= max_states:
                complete = False
                break
            parent[after], depth[after] = (state, action), depth[state] + 1
            frontier.append(after)
    unbroken = (Judgement("", Status.PROVED, "") if complete
                else Judgement("", Status.UNDECIDED, "state limit reached"))
    return JudgedInstance(len(parent), transitions, max(depth.values()), complete,
                          tuple(found.get(p.id, dataclasses.replace(unbroken, property_id=p.id))
                                for p in design.properties))


CASES = [
    (SHM, dataclasses.replace(SHM.instance("O1", frozenset({"D3"})), max_requests=2,
                              readers=1)),
    (ENCODER, ENCODER.instance("EC", frozenset({"D7"}))),
]


@pytest.mark.parametrize(("design", "config"), CASES, ids=lambda c: getattr(c, "name", ""))
def test_the_one_explorer_finds_what_a_plain_search_finds_at_every_state_limit(
        design: Design, config: Any) -> None:
    full = explore(design, config)
    assert full.complete and full.witnesses, "the case breaks something"
    assert full == plain_search(design, config, 2_000_000)
    for limit in sorted({1, 2, 3, 5, 8, 13, 21, 34, 55, 89, full.states // 2,
                         full.states - 1}):
        assert explore(design, config, max_states=limit) == plain_search(design, config,
                                                                         limit), limit


def test_each_design_moves_through_its_own_reductions() -> None:
    shm_config = SHM.instance("O1", frozenset())
    assert type(moves_for("shm", shm_config)) is DesignMoves
    lru_config = LRU.instance("V3", frozenset())
    assert type(moves_for("lru", lru_config)) is Reductions


class _Fan:
    """A toy design: from 0, actions 1, 2 and 3 lead to states 1, 2 and 3; only state 3
    breaks its one property, P."""

    name = "fan"
    properties = (DesignProperty("P", "P", "never state 3", Scope.EVERY_STATE,
                                 lambda config, state: ["state 3"] if state == 3 else []),)

    def initial(self, config: Any) -> int:
        return 0

    def enabled(self, config: Any, state: int) -> list[int]:
        return [1, 2, 3] if state == 0 else []

    def step(self, config: Any, state: int, action: int) -> int:
        return action

    def is_quiescent(self, config: Any, state: int) -> bool:
        return True


def test_a_break_past_the_state_limit_is_not_reported() -> None:
    """Planted: the search computes all of state 0's successors, but a limit of 2 states cuts
    it at the transition to state 2; the break at state 3 lies past the cut, unseen by a
    plain search, so it is `unknown`, not `breaks`."""
    fan: Any = _Fan()
    cut = explore(fan, None, max_states=2)
    assert cut == plain_search(fan, None, 2)
    assert not cut.complete and cut.verdict("P") == "unknown"
    assert explore(fan, None, max_states=3).verdict("P") == "breaks"
