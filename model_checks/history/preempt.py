"""Preemption inside code that calls no hook: line tracing and the implementation's own locks
made the schedule's.

A side that takes no yield hook (`hooks.attach`) still runs under the seeded `Scheduler`:

- every `threading.Lock` and `threading.RLock` reachable from the side's attributes (the side,
  the objects it holds, theirs, ...) becomes a lock of the schedule (`install_locks`), so a
  thread waiting for one gives the turn away instead of blocking the run; the harness looks
  again after each restart (a rebuilt side has new locks);
- `LineTracer`, installed with `sys.settrace` in every scheduled thread, makes each line the
  implementation executes a preemption point: a frame is traced when its code lies outside
  the standard library and the harness (`model_checks`, `spec`) and outside `torch`; every
  other frame runs untraced, at full speed.

So the races of any pure-Python implementation (a missing lock, a read-modify-write across
two lines) are reachable at line granularity, and the schedule stays a function of the seed
(bounded preemptions, as the scheduler's; `no_collection` keeps the garbage collector out of a
traced schedule). `LineTracer.ran` counts the lines run per file:
the report says which code ran under the controlled scheduler. Limits: code in C extensions
runs as one step; a lock the side creates per call, or keeps in a module global, is not
found (a thread blocked on it stops the run: `ScheduleStuck`); a `threading.Condition` is not
replaced.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sysconfig
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from model_checks.history.schedule import SchedLock, Scheduler

_LOCK_TYPES = (type(threading.Lock()), type(threading.RLock()))


def _dirs(paths: set[str]) -> tuple[str, ...]:
    return tuple(sorted(os.path.join(os.path.realpath(p), "") for p in paths))


def harness_roots() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The directories of code never traced: (the harness's and torch's, the standard
    library's, site-packages below it: a virtual environment's library directory holds the
    standard library's compiled part and the installed packages, which are traced)."""
    import torch

    import model_checks
    import spec

    paths = sysconfig.get_paths()
    harness = {str(Path(m.__file__).parent) for m in (model_checks, spec, torch)
               if m.__file__ is not None}
    return (_dirs(harness), _dirs({paths[k] for k in ("stdlib", "platstdlib")}),
            _dirs({paths[k] for k in ("purelib", "platlib")}))


class ImplementationFiles:
    """Whether code of a file is the implementation's: not the harness's, torch's or the
    standard library's (`harness_roots`), nor generated (``<string>``); cached per file."""

    def __init__(self) -> None:
        self.harness, self.stdlib, self.sites = harness_roots()
        self._known: dict[str, bool] = {}

    def __call__(self, filename: str) -> bool:
        known = self._known.get(filename)
        if known is None:
            real = os.path.realpath(filename)
            harness = real.startswith(self.harness) or (
                real.startswith(self.stdlib) and not real.startswith(self.sites))
            known = not filename.startswith("<") and not harness
            self._known[filename] = known
        return known


class LineTracer:
    """A `sys.settrace` function: each line of a traced frame is a preemption point of
    `scheduler`; `ran` counts traced lines per file."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.traced = ImplementationFiles()
        self.ran: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "call" and self.traced(frame.f_code.co_filename):
            return self._line
        return None

    def _line(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "line":
            with self._lock:
                self.ran[frame.f_code.co_filename] += 1
            self.scheduler.point()
        return self._line

    def files(self) -> list[tuple[str, int]]:
        """The files whose lines ran traced, with their line counts, most first, each as a
        path relative to site-packages or the working directory where it lies below it."""
        return [(self.short(name), n) for name, n in self.ran.most_common()]

    def short(self, filename: str) -> str:
        real = os.path.realpath(filename)
        for root in (*self.traced.sites, os.path.join(os.getcwd(), "")):
            if real.startswith(root):
                return real.removeprefix(root)
        return real


def install_locks(side: object, scheduler: Scheduler, depth: int = 6) -> int:
    """Replace every `threading.Lock`/`RLock` reachable from `side`'s attributes (to
    `depth`) by a lock of `scheduler` (reentrant for an RLock); the number replaced."""
    seen: set[int] = set()
    return _replace(side, scheduler, depth, seen)


def _replace(holder: object, scheduler: Scheduler, depth: int, seen: set[int]) -> int:
    if depth < 0 or id(holder) in seen or not walkable(holder):
        return 0
    seen.add(id(holder))
    replaced = 0
    for name, value in list(attributes_of(holder)):
        if isinstance(value, _LOCK_TYPES):
            reentrant = isinstance(value, type(threading.RLock()))
            try:
                object.__setattr__(holder, name, SchedLock(scheduler, reentrant=reentrant))
            except (AttributeError, TypeError):
                continue  # a read-only attribute: the lock stays real
            replaced += 1
        elif isinstance(value, (list, tuple)):
            replaced += sum(_replace(v, scheduler, depth - 1, seen) for v in value)
        elif isinstance(value, dict):
            replaced += sum(_replace(v, scheduler, depth - 1, seen) for v in value.values())
        else:
            replaced += _replace(value, scheduler, depth - 1, seen)
    return replaced


def walkable(value: object) -> bool:
    """An object of a class with attributes, not the harness's locks, not a tensor."""
    module = type(value).__module__ or ""
    if module == "builtins" or module.startswith(("torch", "threading", "_thread")):
        return False
    return hasattr(value, "__dict__") or hasattr(type(value), "__slots__")


def attributes_of(value: object) -> list[tuple[str, object]]:
    found = list(getattr(value, "__dict__", {}).items())
    for cls in type(value).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if isinstance(name, str) and hasattr(value, name) and not name.startswith("__"):
                found.append((name, getattr(value, name)))
    return found


@contextlib.contextmanager
def no_collection() -> Iterator[None]:
    """Garbage collected before a traced schedule and not during it. Why: a collection runs
    the finalizers of earlier objects wherever an allocation count happens to be reached, and
    a finalizer in the implementation's code runs traced lines, preemption points that the
    seed does not decide: the same seed would give another history."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
