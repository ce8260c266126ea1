"""`run`: every task through a backend, results in submission order, progress as they finish."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, cast

from model_checks.executor.backends import Backend
from model_checks.executor.progress import Progress
from model_checks.executor.tasks import Done, Failed, Task

T = TypeVar("T")


def run(
    tasks: Sequence[Task[T]], backend: Backend, progress: Progress | None = None
) -> list[Done[T] | Failed]:
    """One result per task, `results[i]` for `tasks[i]`, whatever order they finished in."""
    if progress is not None:
        progress.started(len(tasks), backend.where)
    results: list[Done[T] | Failed | None] = [None] * len(tasks)
    for index, result in backend.results(tasks):
        if results[index] is not None:
            raise RuntimeError(f"{backend.where} returned task {tasks[index].label} twice")
        results[index] = cast("Done[T] | Failed", result)
        if progress is not None:
            progress.finished(result)
    if progress is not None:
        progress.closed()
    lost = [task.label for task, result in zip(tasks, results, strict=True) if result is None]
    if lost:
        raise RuntimeError(f"{backend.where} lost {len(lost)} task(s): {', '.join(lost)}")
    return [r for r in results if r is not None]


def sweep(
    tasks: Sequence[Task[T]], *, dask: str | None = None, processes: int = 2,
    title: str | None = None, describe: Callable[[Done[T]], str] | None = None,
) -> list[Done[T] | Failed]:
    """The one-call form: `tasks` on the Dask scheduler at `dask` (a `ClusterError` if it cannot
    be used) or on `processes` local processes, with a progress line per task under `title`
    (None: silent), `describe(done)` its text (`LineProgress`); results in submission order,
    as `run`."""
    from model_checks.executor.backends import backend_for
    from model_checks.executor.progress import LineProgress

    backend = backend_for(dask, processes)
    try:
        return run(tasks, backend, LineProgress(title, describe) if title is not None else None)
    finally:
        backend.close()
