"""The Dask backend: tasks go to a running `dask.distributed` scheduler (`dask scheduler`,
`dask worker ADDRESS --nthreads 1`, started as users start them).

Connecting checks, before any task is sent, that the scheduler answers, that a worker has
joined it, and that every worker imports this checkout's sources (the same digest as here),
so that the cluster's results are the local run's. Each task carries the digest too, for a
worker that joins later. A worker that dies mid-sweep loses no task: the scheduler runs its
tasks again elsewhere (tasks are pure, see `tasks`), at once, since the task's own process dies
with it (`tasks.die_with_parent`); results are gathered in submission order.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from model_checks.executor import waits
from model_checks.executor.errors import ClusterError
from model_checks.executor.sources import source_digest
from model_checks.executor.tasks import Failed, Indexed, Task, call, one_line, start_order

CONNECT_SECONDS = 10
"""How long to wait for the scheduler to answer and for a first worker to join it."""

NO_WORKER_SECONDS = 60.0
"""How long a sweep waits with tasks unfinished and no worker at all before it gives up (an
error, never a result: a hang guard)."""

POLL_SECONDS = 1.0
"""How long one wait on the cluster lasts before the hang guard is asked."""

EXTRA = "pip install 'paired-caches[cluster]'"


class DaskCluster:
    def __init__(self, address: str, connect_seconds: float | None = None) -> None:
        connect_seconds = CONNECT_SECONDS if connect_seconds is None else connect_seconds
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError(f"--dask needs dask.distributed: {EXTRA}") from None
        self.address = address
        try:
            self.client = Client(address, timeout=connect_seconds, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: "
                               f"{one_line(error)}") from None
        try:
            self._check_workers(connect_seconds)
        except ClusterError:
            self.client.close()
            raise

    @property
    def where(self) -> str:
        workers = len(self.client.scheduler_info(n_workers=-1)["workers"])
        return f"the Dask cluster at {self.address} ({workers} workers)"

    def _check_workers(self, seconds: float) -> None:
        try:
            self.client.wait_for_workers(1, timeout=seconds)
        except TimeoutError:
            raise ClusterError(f"no Dask worker joined the scheduler at {self.address} within "
                               f"{seconds:g} s (start one: dask worker {self.address} "
                               "--nthreads 1)") from None
        try:
            digests: dict[str, str] = self.client.run(source_digest)
        except Exception as error:
            raise ClusterError(f"a Dask worker at {self.address} cannot import model_checks "
                               f"({one_line(error)}): start workers with this checkout on "
                               "PYTHONPATH or the package installed") from None
        mine = source_digest()
        other = sorted(worker for worker, digest in digests.items() if digest != mine)
        if other:
            raise ClusterError(f"Dask worker(s) {', '.join(other)} run other sources than "
                               "this checkout: restart them from it")

    def results(self, tasks: Sequence[Task[Any]]) -> Iterator[Indexed]:
        """Every task's result as it finishes. Raises `ClusterError` once the scheduler has
        had no worker for `NO_WORKER_SECONDS` with tasks unfinished (never a hang)."""
        digest = source_digest()
        run_id = uuid.uuid4().hex[:8]
        order = start_order(tasks)  # submitted larger cost first, as the scheduler starts them
        futures = [
            self.client.submit(call, tasks[n], digest, key=f"{tasks[n].label}-{run_id}-{n}",
                               pure=False)
            for n in order
        ]
        index = {future.key: n for n, future in zip(order, futures, strict=True)}
        guard = waits.NoWorkerGuard(self, POLL_SECONDS, NO_WORKER_SECONDS, ClusterError)
        try:
            for future in waits.as_finished(self, futures, POLL_SECONDS, guard.poll):
                n = index[future.key]
                try:
                    yield n, waits.fetch(future, POLL_SECONDS, guard.poll)
                except ClusterError:
                    raise
                except Exception as error:  # the scheduler gave up on it (e.g. KilledWorker)
                    yield n, Failed(tasks[n].label, one_line(error))
        finally:
            self.client.cancel(futures)

    def close(self) -> None:
        self.client.close()
