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
