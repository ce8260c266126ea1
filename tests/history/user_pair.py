"""A pair a user writes for a threaded server, from docs/conformance.md and docs/history.md:
an `OrderedDict` shadow and a `cachetools.LRUCache` receiver, both bounded in bytes, the
payload wins, no tags (V2), one lock per side. The front end's end-to-end call (`serve`)
probes and updates in one critical section, so concurrent requests never lose a probed hit.
Each side takes the harness's yield hook (`attach`): its lock from the hook, a preemption
point between its steps, evictions reported.

`factory` is the pair as written; `factory_unlocked_reply` removes one lock: the front end's
reply handler (the invalidation of missed identities) runs without it.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import cachetools

from model_checks.conform import adapter as api
from model_checks.history.hooks import Hooks


def nbytes(payload: api.Payload) -> int:
    return sum(t.nbytes for t in payload.values())


class _NoHooks:
    def point(self) -> None:
        pass

    def lock(self) -> AbstractContextManager[Any]:
        return threading.Lock()

    def evicted(self, side: str, identity: str) -> None:
        pass


class Shadow:
    """P0's LRU of (size, placeholders), bounded in bytes; a point between each change of
    the order and the byte count that follows it."""

    def __init__(self, budget: int, hooks: Any) -> None:
        self.budget, self.hooks = budget, hooks
        self.entries: OrderedDict[str, tuple[int, tuple[int, int]]] = OrderedDict()
        self.used = 0

    def touch(self, key: str) -> None:
        if key in self.entries:
            self.entries.move_to_end(key)
            self.hooks.point()

    def get(self, key: str) -> tuple[int, int] | None:
        if key not in self.entries:
            return None
        self.entries.move_to_end(key)
        return self.entries[key][1]

    def pop(self, key: str) -> None:
        size, _ = self.entries.pop(key, (0, (0, 0)))
        self.hooks.point()
        self.used -= size

    def put(self, key: str, size: int, placeholders: tuple[int, int]) -> None:
        self.pop(key)
        if size > self.budget:
            return
        while self.used + size > self.budget:
            old, (freed, _) = self.entries.popitem(last=False)
            self.hooks.evicted("p0", old)
            self.hooks.point()
            self.used -= freed
        self.entries[key] = (size, placeholders)
        self.used += size


@dataclass
class Sender:
    """P0. `locked_reply` False: `handle_reply` runs without the lock (the planted bug)."""

    setup: api.Setup
    index: int
    locked_reply: bool = True
    epoch: int = 0
    hooks: Any = field(default_factory=_NoHooks)
    ids: itertools.count[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.lock = self.hooks.lock()
        self.cache = Shadow(self.setup.budget, self.hooks)

    def attach(self, hooks: Hooks) -> None:
        self.hooks, self.lock = hooks, hooks.lock()
        self.cache.hooks = hooks

    def _probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        missing = tuple(i.identity for i in items if i.identity not in self.cache.entries
                        and i.media is None)
        if missing:
            return api.ClientRejected(missing)
        return items, {i.identity: self.setup.process(i.media) for i in items
                       if i.identity not in self.cache.entries and i.media is not None}

    def _update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        items, processed = probed  # type: ignore[misc]
        for item in items:
            self.cache.touch(item.identity)
        wire = []
        for item in items:
            hit = self.cache.get(item.identity)
            if hit is not None:
                wire.append(api.WireItem(item.identity, None, hit, None))
                continue
            if item.identity not in processed:
                return api.Fault("p0-assert", f"{item.identity} was probed as a hit, gone")
            payload, placeholders = processed[item.identity]
            self.cache.put(item.identity, nbytes(payload), placeholders)
            wire.append(api.WireItem(item.identity, payload, placeholders, None))
        return api.WireMessage(self.epoch << 32 | next(self.ids), tuple(wire))

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        with self.lock:
            return self._probe(items)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        with self.lock:
            return self._update(probed)

    def serve(self, engine: Any, items: tuple[api.ItemIn, ...]
              ) -> api.Served | api.Missed | api.ClientRejected | api.Fault:
        """Probe and update in one critical section, then the engine, then the reply."""
        with self.lock:
            probed = self._probe(items)
            if isinstance(probed, api.ClientRejected):
                return probed
            message = self._update(probed)
        if not isinstance(message, api.WireMessage):
            return message
        delivered: api.Delivered = engine.receive(message)
        if not isinstance(delivered, api.Fault):
            missed = delivered.identities if isinstance(delivered, api.Missed) else ()
            self.handle_reply(message.request_id, missed)
        return delivered

    def abandon(self, request_id: int) -> None:
        del request_id

    def _invalidate(self, missed: tuple[str, ...]) -> None:
        for identity in missed:
            self.cache.pop(identity)

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id
        if not self.locked_reply:
            self._invalidate(missed)
            return
        with self.lock:
            self._invalidate(missed)

    def clear(self) -> None:
        with self.lock:
            self.cache.entries.clear()
            self.cache.used = 0

    def restart(self) -> None:
        with self.lock:
            self.epoch += 1
            self.cache = Shadow(self.setup.budget, self.hooks)

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        with self.lock:
            return tuple(api.ShadowEntry(k, size, value, None)
                         for k, (size, value) in self.cache.entries.items())


class _Receiving(cachetools.LRUCache):  # type: ignore[type-arg]
    """cachetools' LRU whose evictions are reported, with a point after each."""

    hooks: Any = _NoHooks()

    def popitem(self) -> tuple[Any, Any]:
        key, value = super().popitem()
        self.hooks.evicted("p1", key)
        self.hooks.point()
        return key, value


@dataclass
class Receiver:
    """P1 over `cachetools.LRUCache` sized by payload bytes; a payload replaces the entry."""

    setup: api.Setup
    hooks: Any = field(default_factory=_NoHooks)

    def __post_init__(self) -> None:
        self.lock = self.hooks.lock()
        self.cache = _Receiving(maxsize=self.setup.budget, getsizeof=nbytes)
        self.cache.hooks = self.hooks

    def attach(self, hooks: Hooks) -> None:
        self.hooks, self.lock = hooks, hooks.lock()
        self.cache.hooks = hooks

    def receive(self, message: api.WireMessage) -> api.Delivered:
        with self.lock:
            for item in message.items:
                if item.identity in self.cache:
                    self.cache[item.identity]  # a lookup refreshes the entry
            inputs, missed = [], []
            for item in message.items:
                tensors = item.payload
                if tensors is not None:
                    self.cache.pop(item.identity, None)
                    if nbytes(tensors) <= self.cache.maxsize:
                        self.cache[item.identity] = tensors
                else:
                    tensors = self.cache.get(item.identity)
                if tensors is None:
                    missed.append(item.identity)
                else:
                    inputs.append(api.ModelInput(item.identity, tensors, item.placeholders))
            if missed:
                return api.Missed(tuple(missed))
            return api.Served(tuple(inputs))

    def clear(self) -> None:
        with self.lock:
            self.cache.clear()

    def restart(self) -> None:
        with self.lock:
            self.cache = _Receiving(maxsize=self.setup.budget, getsizeof=nbytes)
            self.cache.hooks = self.hooks

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        with self.lock:
            return tuple(api.ReceiverEntry(k, nbytes(v), v, None)
                         for k, v in self.cache.items())

    def close(self) -> None:
        pass


@dataclass
class UserPair:
    name: str = "ordereddict-cachetools-pair"
    locked_reply: bool = True

    def supports(self, variant: str) -> bool:
        return variant == "V2"

    def front_end(self, setup: api.Setup, index: int) -> Sender:
        return Sender(setup, index, self.locked_reply)

    def engine(self, setup: api.Setup) -> Receiver:
        return Receiver(setup)


def factory() -> UserPair:
    return UserPair()


def factory_unlocked_reply() -> UserPair:
    return UserPair("ordereddict-cachetools-pair-unlocked-reply", locked_reply=False)
