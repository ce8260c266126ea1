"""Seeded schedules of real threads, one running at a time (as Shuttle and Loom do).

Every thread the `Scheduler` runs waits for its turn; the one running gives the turn away
only at a **preemption point** (`point`: where the adapter's yield hook placed one, between
an implementation's steps), at a **call boundary** (`boundary`: between a client's calls),
when it blocks on a scheduler lock (`SchedLock`, the hook's lock: a `threading.Lock`
replacement that blocks by giving the turn away) or when it ends. At a point, the seeded
generator preempts with probability `chance` while fewer than `preemptions` preemptions have
been made (bounded preemptions: most concurrency bugs need few); at a boundary it picks any
ready thread. So a run is a function of the seed: the same seed, the same schedule, the same
history (the clock is the scheduler's logical one, `tick`).

A thread that blocks outside the scheduler (a real lock held by a preempted thread) would
stop the run: `run` then raises `ScheduleStuck` after its join limit, and every lock the
adapter's hook offers must be the scheduler's. A cycle of scheduler locks is a deadlock,
reported as such (`Deadlock`).
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

JOIN_SECONDS = 60.0
"""How long `run` waits for its threads: a safety net against a thread blocked outside the
scheduler, never a bound on the search (a healthy run ends long before)."""


class Deadlock(RuntimeError):
    """Every unfinished thread waits for a scheduler lock."""


class ScheduleStuck(RuntimeError):
    """A thread blocked outside the scheduler (a lock it does not know)."""


@dataclass
class Scheduler:
    """One turn among the threads of `run`, passed on at points, boundaries, blocks, ends."""

    seed: int
    preemptions: int = 8
    chance: float = 0.25
    clock: int = 0
    preempted: int = 0
    errors: list[BaseException] = field(default_factory=list)
    tracer: Callable[..., Any] | None = None
    """A `sys.settrace` function installed in every thread the scheduler runs (the
    preemption points of code without a yield hook: `model_checks.history.preempt`)."""
    monitor: Any = None
    """Told of every outermost acquisition and release of the schedule's locks, and of each
    attempt to take one before it waits (`acquiring(lock)`, `acquired(lock)`,
    `released(lock)`: `model_checks.history.watch.Watcher`)."""

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        self._cond = threading.Condition()
        self._turn: int | None = None
        self._ready: set[int] = set()
        self._blocked: set[int] = set()
        self._deadlock: str | None = None
        self._local = threading.local()

    def tick(self) -> int:
        """The next value of the logical clock (strictly increasing)."""
        with self._cond:
            self.clock += 1
            return self.clock

    def _me(self) -> int | None:
        return getattr(self._local, "index", None)

    def run(self, bodies: Sequence[Callable[[], None]], names: Sequence[str]) -> None:
        """Run `bodies` in threads named `names`, one at a time, under the schedule; errors a
        body raised are kept in `errors` (a `Deadlock` too)."""
        threads = [threading.Thread(target=self._body, args=(n, b), name=name, daemon=True)
                   for n, (b, name) in enumerate(zip(bodies, names, strict=True))]
        with self._cond:
            self._ready = set(range(len(threads)))
            self._turn = self._pick(sorted(self._ready)) if threads else None
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(JOIN_SECONDS)
            if thread.is_alive():
                raise ScheduleStuck(f"{thread.name} did not finish: it blocked outside the "
                                    "scheduler (a lock the yield hook does not provide)")

    def _pick(self, candidates: list[int]) -> int:
        return candidates[self._rng.randrange(len(candidates))]

    def _body(self, index: int, body: Callable[[], None]) -> None:
        self._local.index = index
        with self._cond:
            self._wait_turn(index)
        if self.tracer is not None:
            sys.settrace(self.tracer)
        try:
            body()
        except BaseException as error:  # kept for the harness, never lost
            self.errors.append(error)
        finally:
            sys.settrace(None)
            with self._cond:
                self._ready.discard(index)
                self._pass_on()

    def _wait_turn(self, index: int) -> None:
        while self._turn != index:
            if self._deadlock is not None:
                raise Deadlock(self._deadlock)
            self._cond.wait()

    def _pass_on(self) -> None:
        """Give the turn to a ready thread (the caller holds `_cond`); none ready while some
        are blocked is a deadlock."""
        ready = sorted(self._ready)
        if ready:
            self._turn = self._pick(ready)
        else:
            self._turn = None
            if self._blocked:
                self._deadlock = f"threads {sorted(self._blocked)} wait for each other's locks"
        self._cond.notify_all()

    def point(self) -> None:
        """A preemption point: maybe give the turn to another ready thread (bounded)."""
        me = self._me()
        if me is None:
            return
        with self._cond:
            others = sorted(self._ready - {me})
            if not others or self.preempted >= self.preemptions:
                return
            if self._rng.random() >= self.chance:
                return
            self.preempted += 1
            self._turn = self._pick(others)
            self._cond.notify_all()
            self._wait_turn(me)

    def boundary(self) -> None:
        """Between a client's calls: any ready thread (this one included) runs next."""
        me = self._me()
        if me is None:
            return
        with self._cond:
            self._turn = self._pick(sorted(self._ready))
            self._cond.notify_all()
            self._wait_turn(me)

    def block(self, release: Callable[[], bool]) -> None:
        """Wait, giving the turn away, until `release()` (called under the scheduler's
        condition) is true."""
        me = self._me()
        with self._cond:
            while not release():
                if me is None:
                    raise Deadlock("a thread outside the schedule waits for a held lock")
                self._ready.discard(me)
                self._blocked.add(me)
                self._pass_on()
                self._wait_turn(me)

    def wake(self) -> None:
        """A lock was released: every blocked thread is ready again (it retries)."""
        with self._cond:
            self._ready |= self._blocked
            self._blocked.clear()

    def lock(self) -> SchedLock:
        return SchedLock(self)


class SchedLock:
    """A lock of the schedule: `with lock:` as a `threading.Lock` (as a `threading.RLock`
    where `reentrant`); waiting gives the turn away."""

    def __init__(self, scheduler: Scheduler, reentrant: bool = False) -> None:
        self._scheduler = scheduler
        self._owner: int | None = None
        self._reentrant = reentrant
        self._count = 0

    def _free(self) -> bool:
        return self._owner is None

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        """Take the lock; with `blocking` False, only if it is free now (`timeout` is
        ignored: the schedule has no clock)."""
        del timeout
        me = threading.get_ident()
        if self._reentrant and self._owner == me:
            self._count += 1
            return True
        if self._scheduler.monitor is not None:
            self._scheduler.monitor.acquiring(self)
        if not blocking and not self._free():
            return False
        self._scheduler.block(self._free)
        self._owner, self._count = me, 1
        if self._scheduler.monitor is not None:
            self._scheduler.monitor.acquired(self)
        return True

    def release(self) -> None:
        self._count -= 1
        if self._count > 0:
            return
        self._owner = None
        self._scheduler.wake()
        if self._scheduler.monitor is not None:
            self._scheduler.monitor.released(self)

    def locked(self) -> bool:
        return self._owner is not None

    def __enter__(self) -> SchedLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
