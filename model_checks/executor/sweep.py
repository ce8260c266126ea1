"""`run`: every job through a backend, results in submission order, progress as they finish."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar, cast

from model_checks.executor.backends import Backend
from model_checks.executor.jobs import Done, Failed, Job
from model_checks.executor.progress import Progress

T = TypeVar("T")


def run(
    jobs: Sequence[Job[T]], backend: Backend, progress: Progress | None = None
) -> list[Done[T] | Failed]:
    """One result per job, `results[i]` for `jobs[i]`, whatever order they finished in."""
    if progress is not None:
        progress.started(len(jobs), backend.where)
    results: list[Done[T] | Failed | None] = [None] * len(jobs)
    for index, result in backend.results(jobs):
        if results[index] is not None:
            raise RuntimeError(f"{backend.where} returned job {jobs[index].label} twice")
        results[index] = cast("Done[T] | Failed", result)
        if progress is not None:
            progress.finished(result)
    if progress is not None:
        progress.closed()
    lost = [job.label for job, result in zip(jobs, results, strict=True) if result is None]
    if lost:
        raise RuntimeError(f"{backend.where} lost {len(lost)} job(s): {', '.join(lost)}")
    return [r for r in results if r is not None]


def sweep(
    jobs: Sequence[Job[T]], *, dask: str | None = None, processes: int = 2,
    title: str | None = None,
) -> list[Done[T] | Failed]:
    """The one-call form: `jobs` on the Dask scheduler at `dask` (a `ClusterError` if it cannot
    be used) or on `processes` local processes, with a progress line per job under `title`
    (None: silent); results in submission order, as `run`."""
    from model_checks.executor.backends import backend_for
    from model_checks.executor.progress import LineProgress

    backend = backend_for(dask, processes)
    try:
        return run(jobs, backend, LineProgress(title) if title is not None else None)
    finally:
        backend.close()
