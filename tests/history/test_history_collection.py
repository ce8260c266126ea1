"""A traced schedule runs with the garbage collector out of the way (`preempt.no_collection`):
garbage made before it is collected, and its finalizers run, before the schedule starts, and
no collection runs during it, so a finalizer of the implementation's never adds traced lines
(preemption points) that the seed does not decide."""

from __future__ import annotations

import gc

from model_checks.history.preempt import no_collection


class Cycle:
    """An object in a reference cycle, which only the collector frees; it says when."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        self.me = self

    def __del__(self) -> None:
        self.log.append("finalized")


def test_earlier_garbage_is_finalized_before_the_schedule_and_none_during_it() -> None:
    log: list[str] = []
    Cycle(log)
    with no_collection():
        log.append("schedule starts")
        assert not gc.isenabled()
        Cycle(log)
        for _ in range(10_000):  # allocations that would trigger a collection
            [[]]  # noqa: B018
        log.append("schedule ends")
    assert gc.isenabled()
    assert log == ["finalized", "schedule starts", "schedule ends"]
    gc.collect()
    assert log[-1] == "finalized"


def test_a_collector_left_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with no_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
