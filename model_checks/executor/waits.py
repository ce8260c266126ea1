"""Bounded waits on a Dask cluster: every wait for a task, and every fetch of a finished
task's value, is asked for in polls, with a guard called between polls that raises to give up.

Why: a task can finish and its worker die before its value is fetched; the scheduler then
runs the task again, which needs a worker, so an unbounded `result()` (or an unbounded wait
for the next finished task) waits for ever on a cluster with no worker left. Every wait on a
cluster goes through here: the sweeps' backend (`cluster.DaskCluster.results`) and the
explorer's distributed searches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from model_checks.executor.cluster import DaskCluster

Poll = Callable[[], None]
"""A guard, called once per poll that found nothing; it raises to give up."""


def workers(cluster: DaskCluster) -> list[str]:
    """The addresses of the workers the scheduler knows now."""
    return list(cluster.client.scheduler_info(n_workers=-1)["workers"])


def as_finished(cluster: DaskCluster, futures: Sequence[Any], poll_seconds: float,
                on_poll: Poll) -> Iterator[Any]:
    """Each of `futures` once, as it finishes (those found finished together in submission
    order), waiting at most `poll_seconds` at a time and calling `on_poll` after each wait
    that found none."""
    from distributed import wait

    position = {future.key: n for n, future in enumerate(futures)}
    pending = set(futures)
    while pending:
        try:
            with cluster.client.as_current():  # `wait` asks for the current client
                done, not_done = wait(list(pending), timeout=poll_seconds,
                                      return_when="FIRST_COMPLETED")
        except TimeoutError:
            on_poll()
            continue
        yield from sorted(done, key=lambda future: position[future.key])
        pending = set(not_done)


def fetch(future: Any, poll_seconds: float, on_poll: Poll) -> Any:
    """The value of a finished task's `future`, asked for every `poll_seconds`, calling
    `on_poll` between asks. A task's own error is raised as `result()` raises it."""
    while True:
        try:
            return future.result(timeout=poll_seconds)
        except TimeoutError:
            on_poll()


class NoWorkerGuard:
    """A guard that gives up (`error(message)` raised) once the scheduler has had no worker
    for `limit_seconds` in a row, counted in polls of `poll_seconds`."""

    def __init__(self, cluster: DaskCluster, poll_seconds: float, limit_seconds: float,
                 error: Callable[[str], Exception]) -> None:
        self.cluster = cluster
        self.poll_seconds = poll_seconds
        self.limit_seconds = limit_seconds
        self.error = error
        self.idle_seconds = 0.0

    def poll(self) -> None:
        idle = not workers(self.cluster)
        self.idle_seconds = self.idle_seconds + self.poll_seconds if idle else 0.0
        if self.idle_seconds >= self.limit_seconds:
            raise self.error(f"no Dask worker left at {self.cluster.address} for "
                             f"{self.limit_seconds:g} s with tasks unfinished")
