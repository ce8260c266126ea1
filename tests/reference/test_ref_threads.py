"""Thread safety: hammer the caches and the front end from several threads, then check.

Each public method of the caches holds the cache's lock for its whole duration, so whatever
the interleaving, the caches' invariants hold afterwards and every handed-out item is
consistent. To make a missing lock visible, the caches' LRU is replaced by ``CheckingLru``,
which, in EVERY method (the public ones and the eviction loop's steps), first checks that the
calling thread holds the cache's lock (``OwnedLock`` records its owner) and then yields the GIL,
so that other threads run in the middle of each multi-step operation. A cache method left
without its lock is caught at its first call, with or without contention: the mutants at the
end remove the lock from each locked method in turn, and every one is caught.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from ref_helpers import ITEM_BYTES, SerialProcessor, consistent, make_item

from reference import (
    ByteLru,
    Engine,
    FrontEnd,
    MissingMediaError,
    MultiModalCacheMissError,
    Outgoing,
    ReceiverCache,
    Request,
    RequestItem,
    SenderCache,
    WireItem,
    retry,
    serve,
)

THREADS = 4
STEPS = 400


class UnlockedAccess(AssertionError):
    """An LRU method ran in a thread that does not hold its cache's lock."""


class OwnedLock:
    """A threading.Lock that remembers which thread holds it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.owner: int | None = None

    def __enter__(self) -> OwnedLock:
        self._lock.acquire()
        self.owner = threading.get_ident()
        return self

    def __exit__(self, *exc: object) -> None:
        self.owner = None
        self._lock.release()


# Every method of ByteLru that reads or writes its state (``budget`` is fixed at construction).
LRU_METHODS = ("__contains__", "__len__", "get", "get_all", "present", "peek", "size_of",
               "count_as_miss",
               "touch", "put", "put_entry", "pop", "clear", "entries", "items", "stats",
               "check_invariants", "_drop_existing", "_evict_one", "_recount_nodes",
               "_insert")


def _checked(name: str) -> Callable[..., Any]:
    method = getattr(ByteLru, name)

    def run(self: CheckingLru, *args: Any) -> Any:
        if self.lock.owner != threading.get_ident():
            raise UnlockedAccess(f"ByteLru.{name} called without the cache's lock")
        time.sleep(0)  # let other threads run inside the operation
        return method(self, *args)

    run.__name__ = name
    return run


class CheckingLru(ByteLru[str, object]):
    """A ByteLru whose every method checks the lock and yields (see the module docstring)."""

    lock: OwnedLock


for _name in LRU_METHODS:
    setattr(CheckingLru, _name, _checked(_name))


def test_every_state_method_of_the_lru_is_checked() -> None:
    """A method added to ByteLru (or a base of it in reference.lru) later must be added to
    LRU_METHODS (or be state-free)."""
    state_free = {"budget", "bytes_in_use", "__init__"}
    own = [klass for klass in ByteLru.__mro__ if klass.__module__ == ByteLru.__module__]
    methods = {name for klass in own for name, value in vars(klass).items()
               if callable(value) or isinstance(value, property)}
    methods -= {name for name in methods if name.startswith("__") and name not in LRU_METHODS}
    assert methods - state_free == set(LRU_METHODS)


def yielding(cache: SenderCache | ReceiverCache) -> None:
    """Install an OwnedLock and a CheckingLru bound to it (the cache must be empty)."""
    lock = OwnedLock()
    lru = CheckingLru(cache.budget)
    lru.lock = lock
    cache._lock = lock  # type: ignore[assignment]
    cache._lru = lru  # type: ignore[assignment]


def hammer(work: Callable[[random.Random], None]) -> None:
    """Run ``work`` in THREADS threads at once; re-raise the first error any of them hit."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def run(seed: int) -> None:
        rng = random.Random(seed)
        barrier.wait()
        try:
            for _ in range(STEPS):
                work(rng)
        except BaseException as error:  # reported below, in the main thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


KEYS = [f"k{i}" for i in range(12)]


def test_sender_cache_survives_concurrent_mutation() -> None:
    """D6: the real shadow is touched by the front end's threads concurrently."""
    cache = SenderCache(6 * ITEM_BYTES)
    yielding(cache)
    processor = SerialProcessor()

    def work(rng: random.Random) -> None:
        op = rng.randrange(6)
        keys = rng.sample(KEYS, 3)
        if op == 0:
            cache.update([Outgoing(k, make_item(ITEM_BYTES * rng.randint(1, 3)), 1)
                          for k in keys], processor)
        elif op == 1:
            cache.update([Outgoing(k, None, 2) for k in keys], processor)  # late misses
        elif op == 2:
            cache.invalidate(keys)
        elif op == 3:
            cache.touch(keys[0])
            cache.probe(keys)
        elif op == 4:
            cache.get_and_update(keys[0], make_item(ITEM_BYTES))
        elif rng.random() < 0.1:
            cache.clear()
        cache.stats()

    hammer(work)
    cache.check_invariants()
    stats = cache.stats()
    assert stats.bytes_in_use == sum(size for _, size in cache.entries()) <= stats.budget


def test_receiver_cache_survives_concurrent_mutation() -> None:
    cache = ReceiverCache(6 * ITEM_BYTES)
    yielding(cache)

    def work(rng: random.Random) -> None:
        op = rng.randrange(4)
        keys = rng.sample(KEYS, 3)
        if op == 0:
            cache.resolve([WireItem(k, item.payload, item.placeholders, 7) for k in keys
                           for item in [make_item(ITEM_BYTES * rng.randint(1, 3))]])
        elif op == 1:
            result = cache.resolve([WireItem(k, None, make_item().placeholders, 7) for k in keys])
            assert len(result.inputs) + len(result.missed) == 3
        elif op == 2:
            cache.touch(keys[0])
        elif rng.random() < 0.1:
            cache.clear()

    hammer(work)
    cache.check_invariants()


def test_front_ends_and_engine_under_concurrent_requests() -> None:
    """Several threads serve requests through one front end and one engine, with retries;
    every served item is consistent (S1) and both caches keep their invariants."""
    budget = 6 * ITEM_BYTES
    front_end = FrontEnd(budget, SerialProcessor())
    engine = Engine(budget)
    yielding(front_end.sender)
    yielding(engine.receiver)

    def work(rng: random.Random) -> None:
        request = Request(tuple(
            RequestItem(k, None if rng.random() < 0.2 else (rng.randrange(2), ITEM_BYTES))
            for k in rng.sample(KEYS[:6], rng.randint(1, 3))
        ))
        try:
            inputs = retry(lambda r: serve(front_end, engine, r), request, max_retries=3)
        except (MissingMediaError, MultiModalCacheMissError):
            return  # UUID-only misses; a retry budget exhausted under heavy contention
        assert all(map(consistent, inputs))
        if rng.random() < 0.02:
            engine.clear()

    hammer(work)
    front_end.sender.check_invariants()
    engine.receiver.check_invariants()
    assert front_end.outstanding() == ()


# Mutants: each locked method of the caches, in turn, without its lock.

def _unlocked(cls: type[Any], name: str) -> type[Any]:
    """A subclass of ``cls`` whose ``name`` runs with the cache's lock replaced by a no-op."""
    inherited = getattr(cls, name)

    def run(self: Any, *args: Any) -> Any:
        real = self._lock
        self._lock = contextlib.nullcontext()
        try:
            return inherited(self, *args)
        finally:
            self._lock = real

    return type(f"Unlocked{cls.__name__}_{name}", (cls,), {name: run})


def sender_calls(cache: SenderCache) -> Iterator[str]:
    """Every locked public method of the sender cache, each called once; yields its name."""
    cache.update([Outgoing("a", make_item(), 1), Outgoing("b", make_item(), 2)],
                 SerialProcessor())
    yield "update"
    cache.get_and_update("c", make_item())
    yield "get_and_update"
    _ = "a" in cache
    yield "__contains__"
    cache.touch("a")
    yield "touch"
    cache.probe(["a", "z"])
    yield "probe"
    cache.entries()
    yield "entries"
    cache.items()
    yield "items"
    cache.stats()
    yield "stats"
    cache.check_invariants()
    yield "check_invariants"
    cache.invalidate(["a"])
    yield "invalidate"
    cache.clear()
    yield "clear"


def receiver_calls(cache: ReceiverCache) -> Iterator[str]:
    """Every locked public method of the receiver cache, each called once."""
    item = make_item()
    cache.resolve([WireItem("a", item.payload, item.placeholders, 7)])
    yield "resolve"
    cache.get_and_update(WireItem("a", None, item.placeholders, 7))
    yield "get_and_update"
    _ = "a" in cache
    yield "__contains__"
    cache.touch("a")
    yield "touch"
    cache.entries()
    yield "entries"
    cache.items()
    yield "items"
    cache.stats()
    yield "stats"
    cache.check_invariants()
    yield "check_invariants"
    cache.clear()
    yield "clear"


SENDER_LOCKED = ("update", "get_and_update", "__contains__", "touch", "probe", "entries",
                 "items", "stats", "check_invariants", "invalidate", "clear")
RECEIVER_LOCKED = ("resolve", "get_and_update", "__contains__", "touch", "entries", "items",
                   "stats", "check_invariants", "clear")


def test_the_checked_caches_pass_every_locked_method() -> None:
    sender, receiver = SenderCache(6 * ITEM_BYTES), ReceiverCache(6 * ITEM_BYTES)
    yielding(sender)
    yielding(receiver)
    assert tuple(sender_calls(sender)) == SENDER_LOCKED
    assert tuple(receiver_calls(receiver)) == RECEIVER_LOCKED


@pytest.mark.parametrize("name", SENDER_LOCKED)
def test_a_sender_method_without_its_lock_is_caught(name: str) -> None:
    cache = _unlocked(SenderCache, name)(6 * ITEM_BYTES)
    yielding(cache)
    with pytest.raises(UnlockedAccess):
        for called in sender_calls(cache):
            assert called != name, f"{name} ran without its lock unnoticed"


@pytest.mark.parametrize("name", RECEIVER_LOCKED)
def test_a_receiver_method_without_its_lock_is_caught(name: str) -> None:
    cache = _unlocked(ReceiverCache, name)(6 * ITEM_BYTES)
    yielding(cache)
    with pytest.raises(UnlockedAccess):
        for called in receiver_calls(cache):
            assert called != name, f"{name} ran without its lock unnoticed"


def test_an_unlocked_method_is_also_caught_by_the_hammer() -> None:
    """Under contention too: the sender hammer over a cache whose invalidate is unlocked."""
    cache = _unlocked(SenderCache, "invalidate")(6 * ITEM_BYTES)
    yielding(cache)

    def work(rng: random.Random) -> None:
        keys = rng.sample(KEYS, 2)
        cache.update([Outgoing(k, make_item(), 1) for k in keys], SerialProcessor())
        cache.invalidate(keys)

    with pytest.raises(UnlockedAccess):
        hammer(work)
