"""A task, its two kinds of result, and the call that turns one into the other on a worker.

A task must be a pure function of its arguments: a backend may run it anywhere, and run it
again when the worker that had it died (Dask reschedules it), so the same task must give the
same value wherever and however often it runs. Tasks write no files: they return what is to be
written, and the submitting process writes it (a cluster worker's disk is not ours).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
import pickle
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Task(Generic[T]):
    """`function(*arguments)`, named `label` in progress lines and errors. `function` must be
    importable by name (module level) and `arguments` picklable."""

    label: str
    function: Callable[..., T]
    arguments: tuple[Any, ...] = ()
    cost: float = 0.0
    """An estimate of the task's work, for scheduling only: a backend starts the tasks of
    larger cost first, so that a long task does not start last and run alone while the other
    workers idle. It never changes a result, nor the order `executor.run` returns them in."""


def start_order(tasks: Sequence[Task[Any]]) -> list[int]:
    """The indices of `tasks`, larger cost first, submission order among equal costs."""
    return sorted(range(len(tasks)), key=lambda index: (-tasks[index].cost, index))


@dataclass(frozen=True)
class Done(Generic[T]):
    """A task's value; `seconds` its wall time, `cpu_seconds` the CPU time (user + system) of
    the process that ran it (what the task costs whatever else the machine runs)."""

    label: str
    value: T
    seconds: float
    cpu_seconds: float = 0.0


@dataclass(frozen=True)
class Failed:
    """A task that raised (or whose worker could not run it): `error` is one line, `detail`
    the traceback as the worker printed it."""

    label: str
    error: str
    detail: str = ""
    seconds: float = 0.0
    cpu_seconds: float = 0.0


Result = Done[T] | Failed

Indexed = tuple[int, Done[Any] | Failed]
"""A task's result with the task's index in its sweep (backends yield results as they finish)."""

_ONE_TASK_AT_A_TIME = threading.Lock()
"""Hypothesis and z3 keep process-wide state (shrink deadlines, z3's main context): a worker
that runs several threads (`dask worker --nthreads N`) still runs our tasks one at a time per
process."""


PRELOAD = (
    "model_checks.conform_command",
    "model_checks.mutant_run.checkers",
    "model_checks.mutant_run.history_mutants",
    "model_checks.mutant_run.slip_mutants",
    "model_checks.replay_command",
    "model_checks.simulate.command",
    "model_checks.smt.command",
    "model_checks.cli",
)
"""The modules every task's process starts with, wherever it runs. Why: Hypothesis draws
constants from every module of ours loaded in the process (its "local constants", read from
`sys.modules`), so a search's examples, and with 100 examples even its verdict, depend on what
the process imported. This is the set the command line imported eagerly before it loaded the
checkers lazily (the committed results were made with it): measured, V1 under every drift
source finds S3 with it and not without it. The reference mutants' definitions are named
too: the mutant registry loads them lazily, and their constants belong to the set."""


@functools.cache
def preload() -> None:
    """Import PRELOAD (once per process; a pool's workers inherit it from their parent)."""
    for module in PRELOAD:
        importlib.import_module(module)


def call(task: Task[T], source: str | None = None) -> Done[T] | Failed:
    """Run `task` in a child forked from this process for the task alone, and return its result.
    Why: a solver's answer can depend on what ran before it in the same process (z3's models
    differ with the terms earlier queries created), so every task starts from the state of a
    process that has run no task, wherever it runs and whatever ran there before. (`os.fork`,
    not `multiprocessing`: a Dask worker under a nanny is a daemon, which multiprocessing
    forbids to have children.) The child dies with the process that forked it
    (`die_with_parent`)."""
    with _ONE_TASK_AT_A_TIME:
        preload()
        readable, writable = os.pipe()
        parent = os.getpid()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's coverage is not collected
            try:
                die_with_parent(parent)
                os.close(readable)
                with os.fdopen(writable, "wb") as out:
                    out.write(_pickled(run_here(task, source)))
            finally:
                os._exit(0)
        os.close(writable)
        with os.fdopen(readable, "rb") as received:
            data = received.read()
        _, status, usage = os.wait4(child, 0)
        cpu = usage.ru_utime + usage.ru_stime
        if not data:
            return Failed(task.label, f"the task's process died ({_status(status)})",
                          cpu_seconds=cpu)
        result: Done[T] | Failed = pickle.loads(data)
        return dataclasses.replace(result, cpu_seconds=cpu)


PR_SET_PDEATHSIG = 1
"""Linux's prctl option: the signal a process gets when the thread that forked it ends."""


def die_with_parent(parent: int) -> None:
    """In a task's child process: be killed (SIGKILL) when `parent`, the process that forked it,
    dies. Why: a worker killed mid-task (a Dask worker, a pool's process) must not leave its
    task running on, burning CPU for a result nobody reads and holding the worker's sockets
    open (the scheduler would see the worker leave only at its heartbeat timeout, minutes
    later, and rerun its tasks only then). The forking thread waits for the child until it
    ends, so the signal comes only with the parent's death. Linux only (prctl); elsewhere
    a killed worker's task runs to its end."""
    if sys.platform != "linux":
        return
    import ctypes

    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(9)


def _pickled(result: Done[T] | Failed) -> bytes:
    try:
        return pickle.dumps(result)
    except Exception as error:
        return pickle.dumps(Failed(result.label, f"the task's value cannot be sent back: "
                                   f"{one_line(error)}"))


def _status(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit code {os.waitstatus_to_exitcode(status)}"


def run_here(task: Task[T], source: str | None = None) -> Done[T] | Failed:
    """Run `task` in this process; an exception becomes `Failed`. With `source` (the submitting
    process's source digest), a worker whose sources differ refuses the task: its results could
    differ from a local run's."""
    if source is not None:
        from model_checks.executor.sources import source_digest

        mine = source_digest()
        if mine != source:
            return Failed(task.label, f"this worker's sources differ from the submitter's "
                          f"(digest {mine[:12]}, expected {source[:12]})")
    start = time.perf_counter()
    try:
        value = task.function(*task.arguments)
    except Exception as error:  # reported as the task's result, the others go on
        return Failed(task.label, one_line(error), traceback.format_exc(),
                      time.perf_counter() - start)
    return Done(task.label, value, time.perf_counter() - start)


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def values(results: Sequence[Done[T] | Failed]) -> list[T]:
    """The values of tasks that all succeeded; the first failure raises `TaskFailed`."""
    out = []
    for result in results:
        if isinstance(result, Failed):
            raise TaskFailed(result)
        out.append(result.value)
    return out


class TaskFailed(RuntimeError):
    """A task failed where the caller needs every value."""

    def __init__(self, failed: Failed) -> None:
        super().__init__(f"task {failed.label} failed: {failed.error}")
        self.failed = failed
