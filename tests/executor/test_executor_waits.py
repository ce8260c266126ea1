"""Fetching a finished task's value from a Dask cluster is bounded: a task can finish and
its worker die before the value is fetched, and the scheduler then runs it again, which needs
a worker. `waits.fetch` asks in polls and lets the caller's guard give up between them, so a
sweep or a search left without workers fails instead of waiting for ever (the end-to-end
cases: `test_a_sweep_left_without_workers_fails` in test_executor_cluster.py and
`test_a_search_left_without_workers_fails` in test_explore_distributed.py)."""

from __future__ import annotations

import pytest

from model_checks.executor.waits import fetch


class LostResult:
    """A future whose value comes back only after `misses` timed-out asks."""

    def __init__(self, misses: int) -> None:
        self.misses = misses
        self.timeouts: list[float] = []

    def result(self, timeout: float) -> str:
        if len(self.timeouts) < self.misses:
            self.timeouts.append(timeout)
            raise TimeoutError
        return "value"


class GaveUp(Exception):
    pass


def test_fetch_polls_until_the_value_comes_back() -> None:
    future, polls = LostResult(misses=3), []
    assert fetch(future, 0.5, lambda: polls.append(1)) == "value"
    assert future.timeouts == [0.5, 0.5, 0.5] and len(polls) == 3


def test_fetch_gives_up_when_the_guard_does() -> None:
    future = LostResult(misses=10**6)

    def guard() -> None:
        if len(future.timeouts) >= 4:
            raise GaveUp

    with pytest.raises(GaveUp):
        fetch(future, 0.1, guard)
    assert len(future.timeouts) == 4
