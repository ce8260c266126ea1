"""The front end's trusted path: a request validated once at ``FrontEnd``'s boundary drives
its own sender cache under one shared lock (``FrontEnd._trusted``), and does exactly what the
public, validating path does.

Checked here: the lock acquisitions an all-hit request takes (two, where the public path
takes four), that a sender subclass or a swapped lock gets the public path (what it
overrides runs), and, differentially, that both paths give the same messages, shadows and
counters over random requests with misses, reuse, replies, withdrawals and clears."""

from __future__ import annotations

import random
import threading
from typing import Any

from ref_helpers import ITEM_BYTES, SerialProcessor, snapshot

from reference import (
    Engine,
    FrontEnd,
    MissingMediaError,
    MultiModalCacheMissError,
    Request,
    RequestItem,
    SenderCache,
    TagSource,
    WireItem,
    serve,
)
from reference.pipeline import deliver


class CountingLock:
    """A lock that counts its acquisitions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def acquire(self) -> bool:
        self.count += 1
        return self._lock.acquire()

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> CountingLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def counted(front_end: FrontEnd) -> CountingLock:
    lock = CountingLock()
    front_end._lock = lock  # type: ignore[assignment]
    front_end.sender._lock = lock  # type: ignore[assignment]
    return lock


def request(*identities: str) -> Request:
    return Request(tuple(RequestItem(identity, index) for index, identity in
                         enumerate(identities)))


def test_an_all_hit_request_takes_two_lock_acquisitions() -> None:
    front_end = FrontEnd(8 * ITEM_BYTES, SerialProcessor(), tags=TagSource.for_tests(1))
    for identities in (("a",), ("a", "b", "c")):
        front_end.prepare(request(*identities))  # recorded: every later item hits
        lock = counted(front_end)
        front_end.update(front_end.probe(request(*identities)))
        assert lock.count == 2
        front_end._lock = front_end.sender._lock = threading.Lock()  # type: ignore[assignment]


class Overriding(SenderCache):
    """A sender whose update is overridden (as a conformance mutant's is)."""

    calls = 0

    def update(self, outgoing: Any, process: Any = None) -> tuple[WireItem, ...]:
        Overriding.calls += 1
        return super().update(outgoing, process)


def test_a_sender_subclass_gets_the_public_path() -> None:
    front_end = FrontEnd(8 * ITEM_BYTES, SerialProcessor(), tags=TagSource.for_tests(1))
    front_end._sender = Overriding(8 * ITEM_BYTES, tags=TagSource.for_tests(2))
    front_end.prepare(request("a"))
    front_end.prepare(request("a"))
    assert Overriding.calls == 2


class Untrusted(SenderCache):
    """The reference sender under another class: the front end takes the public path."""


def play(front_end: FrontEnd, engine: Engine, rng: random.Random) -> list[object]:
    """Random requests through ``front_end``: what each step returned or raised."""
    seen: list[object] = []
    for _ in range(300):
        identities = rng.sample("abcdefg", rng.randint(1, 4))
        items = tuple(RequestItem(i, None if rng.random() < 0.1 else rng.randint(0, 2))
                      for i in identities)
        kind = rng.random()
        try:
            if kind < 0.6:
                inputs = serve(front_end, engine, Request(items))
                seen.append([(i.identity, i.placeholders) for i in inputs])
            elif kind < 0.8:
                message = front_end.prepare(Request(items))
                seen.append([(w.identity, w.is_reference, w.tag) for w in message.items])
                if rng.random() < 0.5:
                    front_end.withdraw(message)
                else:
                    deliver(front_end, engine, message)
            elif kind < 0.9:
                engine.clear()
            else:
                front_end.clear()
        except (MissingMediaError, MultiModalCacheMissError) as error:
            seen.append((type(error).__name__, error.identities))
        seen.append((snapshot(front_end.sender)[0], front_end.sender.stats()))
    return seen


def test_the_trusted_path_does_what_the_public_path_does() -> None:
    runs = []
    for trusted in (True, False):
        front_end = FrontEnd(5 * ITEM_BYTES, SerialProcessor(), tags=TagSource.for_tests(1))
        if not trusted:
            front_end._sender = Untrusted(5 * ITEM_BYTES, tags=TagSource.for_tests(1))
        assert (front_end._trusted() is not None) == trusted
        runs.append(play(front_end, Engine(5 * ITEM_BYTES), random.Random(7)))
    assert runs[0] == runs[1]
