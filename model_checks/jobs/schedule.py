"""Which of a job's phases run side by side, and when: a phase starts once every phase it waits
for has ended and fewer than `at_once` phases run, the lowest-numbered ready phase first.

A phase that cross-checks the phases before it (`Phase.cross_check`: the matrix's explorer
reads their verdict records) waits for every one of them, as it would in a job run one phase
after another; every other phase waits for none. So the phases of a sweep's tail (one worker
left on one core) share the machine with the next phases instead of leaving a core idle, and
what each phase reads is what it read in order.

Guarantees (`tests/jobs/test_job_schedule.py`): at most `at_once` phases run at any time; no
phase starts before every phase it waits for has ended; every phase runs once, a failed one
(any exit code) included, and the phases waiting for it still run; the results come back
keyed by phase, so the job's summary and records keep the phases' order whatever order they
end in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from model_checks.jobs.phases import Phase

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on: how many phases a job runs at once."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def waits_for(phases: Sequence[Phase]) -> list[frozenset[int]]:
    """For each phase (by its index in `phases`), the indices of the phases it waits for: a
    cross-checking phase every phase before it, any other phase none."""
    return [frozenset(range(index)) if phase.cross_check else frozenset()
            for index, phase in enumerate(phases)]


def side_by_side(count: int, waits: Sequence[frozenset[int]], at_once: int,
                 run: Callable[[int], T]) -> Iterator[tuple[int, T]]:
    """Run `run(index)` for each index below `count`, at most `at_once` at a time (each in a
    thread of its own: `run` waits for a process), starting index `i` only once every index
    of `waits[i]` has ended; yield (index, result) as each ends. An exception `run` raises is
    raised here once the runs already started have ended."""
    if at_once < 1:
        raise ValueError(f"got {at_once} phases at once, expected at least 1")
    for index, before in enumerate(waits):
        if any(other >= count or other == index for other in before):
            raise ValueError(f"phase {index} waits for {sorted(before)}: not another phase")
    waiting = list(range(count))
    ended: set[int] = set()
    running: dict[Future[T], int] = {}
    with ThreadPoolExecutor(max_workers=at_once) as pool:
        while waiting or running:
            for index in list(waiting):
                if len(running) < at_once and waits[index] <= ended:
                    waiting.remove(index)
                    running[pool.submit(run, index)] = index
            if not running:
                raise ValueError(f"phases {waiting} wait for each other")
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in sorted(finished, key=running.__getitem__):
                index = running.pop(future)
                ended.add(index)
                yield index, future.result()
