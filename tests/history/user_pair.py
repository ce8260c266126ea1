"""A pair a user writes for a threaded server, from docs/conformance.md and docs/history.md:
an `OrderedDict` shadow and a `cachetools.LRUCache` receiver, both bounded in bytes, the
payload wins, no tags (V2), one lock per side. The front end's end-to-end call (`serve`)
probes and updates in one critical section, so concurrent requests never lose a probed hit.
Each side takes the harness's yield hook (`attach`): its lock from the hook, a preemption
point between its steps, evictions reported.

`factory` is the pair as written; `factory_unlocked_reply` removes one lock: the front end's
reply handler (the invalidation of missed identities) runs without it.

The shadow's LRU, the probe, the update and the engine's answer are
`tests/conform/ordered_pair.py`'s, with the points and eviction reports added.
"""

from __future__ import annotations

import itertools
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import cachetools

from model_checks.conform import adapter as api
from model_checks.history.hooks import Hooks
from tests.conform.ordered_pair import ByteLru, delivery, nbytes, probe_items, update_wire


class _NoHooks:
    def point(self) -> None:
        pass

    def lock(self) -> AbstractContextManager[Any]:
        return threading.Lock()

    def evicted(self, side: str, identity: str) -> None:
        pass


class Shadow(ByteLru):
    """P0's LRU of (size, placeholders), bounded in bytes; a point between each change of
    the order and the byte count that follows it, each eviction reported."""

    def __init__(self, budget: int, hooks: Any) -> None:
        super().__init__(budget)
        self.hooks = hooks

    def _point(self) -> None:
        self.hooks.point()

    def _evicted(self, key: str) -> None:
        self.hooks.evicted("p0", key)


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
        return probe_items(self.cache, self.setup.process, items)

    def _update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        wire = update_wire(self.cache, probed)
        if isinstance(wire, api.Fault):
            return wire
        return api.WireMessage(self.epoch << 32 | next(self.ids), wire)

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
            self.cache.clear()

    def restart(self) -> None:
        with self.lock:
            self.epoch += 1
            self.cache = Shadow(self.setup.budget, self.hooks)

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        with self.lock:
            return tuple(api.ShadowEntry(k, size, value, None)  # type: ignore[arg-type]
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
            resolved = []
            for item in message.items:
                tensors = item.payload
                if tensors is not None:
                    self.cache.pop(item.identity, None)
                    if nbytes(tensors) <= self.cache.maxsize:
                        self.cache[item.identity] = tensors
                else:
                    tensors = self.cache.get(item.identity)
                resolved.append((item, tensors))
            return delivery(resolved)

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
