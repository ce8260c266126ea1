"""Thread safety: hammer the caches and the front end from several threads, then check.

Each public method holds the cache's lock for its whole duration, so whatever the
interleaving, the caches' invariants hold afterwards and every handed-out item is consistent.
To make a missing lock visible, the caches' LRU is replaced by one that yields the GIL in the
middle of its multi-step operations (between the "does it fit?" check and each eviction, and
before dropping a replaced entry); with the locks removed, these tests fail.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

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


class YieldingLru(ByteLru[str, object]):
    """A ByteLru that lets other threads run inside its multi-step operations."""

    def _drop_existing(self, key: str) -> None:
        time.sleep(0)
        super()._drop_existing(key)

    def _evict_one(self) -> None:
        time.sleep(0)
        super()._evict_one()


def yielding(cache: SenderCache | ReceiverCache) -> None:
    cache._lru = YieldingLru(cache.budget)  # type: ignore[assignment]


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
