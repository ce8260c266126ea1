"""The cyclic collector is paused while the explorer builds and judges, and restored after,
with what the block allocated counted as old."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from model_checks.explore import collector, graph, moves
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging import judge
from model_checks.explore.lru_judging.state_checks import state_properties
from spec import V1


def test_paused_turns_the_collector_off_and_back_on() -> None:
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled(), "a nested block turned the collector on for the outer one"
    assert gc.isenabled()


def test_paused_restores_the_collector_after_an_exception() -> None:
    with pytest.raises(KeyError), collector.paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_the_block_s_objects_leave_it_as_old_ones() -> None:
    """The first collection after the block does not traverse what the block allocated:
    those objects leave it in the oldest generation."""
    assert gc.isenabled()
    with collector.paused():
        held = [[number] for number in range(2000)]
    assert gc.get_count()[0] < len(held)
    assert any(o is held[0] for o in gc.get_objects(generation=2))


def test_the_oldness_check_sees_young_objects() -> None:
    """The same block without moving its objects (a planted variant of `paused`): they are
    young, and the check above fails."""
    assert gc.isenabled()
    gc.disable()
    try:
        held = [[number] for number in range(2000)]
    finally:
        gc.enable()
    assert gc.get_count()[0] >= len(held)
    assert not any(o is held[0] for o in gc.get_objects(generation=2))


def test_paused_leaves_a_disabled_collector_disabled() -> None:
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


@contextmanager
def _watching() -> Iterator[list[bool]]:
    """Records, at every state-property check of a search, whether the collector ran."""
    seen: list[bool] = []
    original = moves.StateChecks.see

    def see(self: moves.StateChecks, index: int, state: moves.State) -> None:
        seen.append(gc.isenabled())
        original(self, index, state)

    moves.StateChecks.see = see  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        moves.StateChecks.see = original  # type: ignore[method-assign]


def test_build_and_judge_run_without_the_collector_and_restore_it() -> None:
    config = explore_config(V1, (), max_requests=1)
    with _watching() as seen:
        judge.judge_all(graph.build(config))
    assert seen and not any(seen)
    assert gc.isenabled()


def test_the_watch_sees_a_search_that_runs_with_the_collector() -> None:
    config = explore_config(V1, (), max_requests=1)
    with _watching() as seen:  # the same search, outside `build`: the watch can fail
        g = graph.Graph(config, True)
        g.checks = moves.StateChecks(config, state_properties(config))
        graph._Search(g, graph._Expansion(), True).run()
    assert seen and all(seen), "a search outside `build` runs with the collector on"
