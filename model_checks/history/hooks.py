"""The yield hook: what the concurrent harness gives a side so that it can place preemption
points between an implementation's steps, and report its evictions.

A side (front end or engine) that offers `attach(hooks)` (`Scheduled`) gets a `Hooks`
after it is built and after each of its restarts: it calls `hooks.point()` between its
steps, takes its locks from `hooks.lock()` (a lock the schedule knows: waiting for it gives
the turn to another thread) and may call `hooks.evicted(side, identity)` when its cache
evicts (`side` is "p0" or "p1"), which the history then records per call. The hook is
optional: a side without `attach` runs traced under the same schedule
(`model_checks.history.preempt`: a point at each line of its code, its locks the
schedule's), reporting no evictions.

The reference's sides get the hook from this module (`install_reference`), through the seams
reference/ declares (`reference.extension`): their caches' locks become the schedule's, and
each cache's order (the `OrderedDict` behind its LRU, `extension.order_of`) becomes a
`PointedOrder`, which places a point in each of its moves and removals, reports every
`popitem` (the LRU's eviction step) as an eviction and every access as a hint of when the
call was at that side.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from model_checks.history.schedule import Scheduler

if TYPE_CHECKING:
    from reference.guarded import GuardedCache


@dataclass
class Hooks:
    """The hook one side gets: preemption points and locks of `scheduler` (None: no
    schedule, plain locks) and `report` for evictions."""

    scheduler: Scheduler | None
    report: Callable[[str, str], None]
    touched: Callable[[str], None] = lambda side: None

    def point(self) -> None:
        if self.scheduler is not None:
            self.scheduler.point()

    def lock(self) -> AbstractContextManager[Any]:
        return self.scheduler.lock() if self.scheduler is not None else threading.Lock()

    def evicted(self, side: str, identity: str) -> None:
        self.report(side, identity)

    def effect(self, side: str) -> None:
        """The current call read or changed `side`'s cache ("p0" or "p1"): a hint of
        when (`Call.hints`)."""
        self.touched(side)


@runtime_checkable
class Scheduled(Protocol):
    """Optional, on a side: take the harness's yield hook (called after build and restart)."""

    def attach(self, hooks: Hooks) -> None: ...


class PointedOrder(OrderedDict[Any, Any]):
    """An LRU's order with a preemption point in every move and removal; `popitem` (the
    eviction step) is reported. The point comes after the dict changed and before the LRU's
    byte count follows it: the window an unlocked caller races in."""

    hooks: Hooks
    side: str

    def move_to_end(self, key: Any, last: bool = True) -> None:
        self.hooks.point()
        super().move_to_end(key, last)
        self.hooks.effect(self.side)

    def __contains__(self, key: object) -> bool:
        self.hooks.effect(self.side)
        return super().__contains__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        self.hooks.effect(self.side)
        return super().get(key, default)

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.hooks.effect(self.side)

    def pop(self, key: Any, *default: Any) -> Any:
        value = super().pop(key, *default)
        self.hooks.effect(self.side)
        self.hooks.point()
        return value

    def popitem(self, last: bool = True) -> tuple[Any, Any]:
        key, value = super().popitem(last)
        self.hooks.evicted(self.side, str(key))
        self.hooks.effect(self.side)
        self.hooks.point()
        return key, value


def _pointed(cache: GuardedCache[Any], hooks: Hooks, side: str) -> None:
    """The cache's locks and order, as the schedule's (the cache is the reference's)."""
    from reference.extension import lru_of, order_of, use_lock, use_order

    use_lock(cache, hooks.lock())
    lru = lru_of(cache)
    order = PointedOrder(order_of(lru))
    order.hooks, order.side = hooks, side
    use_order(lru, order)


def install_reference(side: object, hooks: Hooks) -> bool:
    """Hook a reference side (the reference adapter's, the asyncio one's or a mutant's):
    True if `side` is one, False (nothing changed) otherwise."""
    from reference import Engine, FrontEnd
    from reference.aio import AsyncFrontEnd
    from reference.extension import use_lock

    front_end = getattr(side, "front_end", None)
    if isinstance(front_end, AsyncFrontEnd):
        front_end = front_end.front_end
    if isinstance(front_end, FrontEnd):
        use_lock(front_end, hooks.lock())
        _pointed(front_end.sender, hooks, "p0")
        return True
    engine = getattr(side, "engine", None)
    if isinstance(engine, Engine):
        _pointed(engine.receiver, hooks, "p1")
        return True
    return False


def attach(side: object, hooks: Hooks) -> bool:
    """Give `side` the hook: its own `attach`, or the reference's glue; False if it takes
    none (it then runs traced: `model_checks.history.preempt`)."""
    if isinstance(side, Scheduled):
        side.attach(hooks)
        return True
    return install_reference(side, hooks)
