"""Where tasks run. A backend yields (submission index, result) as each task finishes, every
index exactly once; `executor.run` puts them back in submission order.

`LocalProcesses(n)`: n processes of this machine (one: this process, no pool), the tasks of
larger `Task.cost` started first. A pool whose
worker process dies (killed, out of memory) is restarted with the unfinished tasks, at most
`RESTARTS` times, like a cluster rescheduling a dead worker's tasks; after that they fail.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from model_checks.executor.tasks import Done, Failed, Indexed, Task, call, preload, start_order


class Backend(Protocol):
    @property
    def where(self) -> str:
        """Where the tasks run, for progress lines: "2 local processes", a scheduler address."""
        ...

    def results(self, tasks: Sequence[Task[Any]]) -> Iterator[Indexed]: ...

    def close(self) -> None: ...


class LocalProcesses:
    RESTARTS = 3

    def __init__(self, processes: int = 2) -> None:
        if processes < 1:
            raise ValueError(f"got {processes} processes, expected at least 1")
        self.processes = processes

    @property
    def where(self) -> str:
        n = self.processes
        return "this process" if n == 1 else f"{n} local processes"

    def close(self) -> None:
        """Nothing to release: each sweep's pool is closed when the sweep ends."""

    def results(self, tasks: Sequence[Task[Any]]) -> Iterator[Indexed]:
        if self.processes == 1 or len(tasks) <= 1:
            for index, task in enumerate(tasks):
                yield index, call(task)
            return
        preload()  # here, so that every worker process of every pool inherits it
        waiting = dict(enumerate(tasks))
        for _ in range(self.RESTARTS + 1):
            yield from self._pool(waiting)
            if not waiting:
                return
        for index, task in sorted(waiting.items()):
            yield index, Failed(task.label, f"a worker process died {self.RESTARTS + 1} times "
                                "while this task was unfinished")

    def _pool(self, waiting: dict[int, Task[Any]]) -> Iterator[Indexed]:
        """Run `waiting` in one pool, removing each task as it finishes; returns early (tasks
        left in `waiting`) if the pool breaks."""
        workers = min(self.processes, len(waiting))
        with ProcessPoolExecutor(max_workers=workers) as pool:
            indices = list(waiting)
            tasks = [waiting[index] for index in indices]
            futures: dict[Future[Done[Any] | Failed], int] = {
                pool.submit(call, tasks[n]): indices[n] for n in start_order(tasks)
            }
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=futures.__getitem__):
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        continue
                    index = futures[future]
                    del waiting[index]
                    yield index, result
                if any(isinstance(f.exception(), BrokenProcessPool) for f in finished):
                    return


def backend_for(dask: str | None, processes: int) -> Backend:
    """The cluster at `dask` if given (connected and checked now: `ClusterError` if it cannot
    be used), else `processes` local processes."""
    if dask is None:
        return LocalProcesses(processes)
    from model_checks.executor.cluster import DaskCluster

    return DaskCluster(dask)
