"""The pair of `user_pair.py` as a serving team writes it, with none of the harness's hooks:
an `OrderedDict` shadow (`ordered_pair.ByteLru`) and a `cachetools.LRUCache` receiver,
bounded in bytes, the payload wins, no tags (V2), one plain `threading.Lock` per side, no
preemption points, no eviction reports, no `attach`. The harness preempts inside it by
tracing its lines and makes its locks the schedule's (`model_checks.history.preempt`).

`factory` is the pair as written; `factory_unlocked(target)` removes the one lock of
`target`, a method that shares state: `fe.serve` (the probe and update, one critical
section), `fe.handle_reply` (the invalidation of missed identities), `fe.clear`,
`engine.receive`, `engine.clear` (`TARGETS`); each has a module-level factory for the
command line (`factory_unlocked_fe_serve`, ...).
"""

from __future__ import annotations

import copy
import itertools
import threading
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import cachetools

from model_checks.conform import adapter as api
from tests.conform.ordered_pair import ByteLru, delivery, nbytes, probe_items, update_wire
from tests.conform.replies import invalidate, missed_of

TARGETS = ("fe.serve", "fe.handle_reply", "fe.clear", "engine.receive", "engine.clear")


@dataclass
class Sender:
    """P0, its lock around every method that reads or changes the shadow but `unlocked`."""

    setup: api.Setup
    index: int
    unlocked: str = ""
    epoch: int = 0
    ids: itertools.count[int] = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.cache = ByteLru(self.setup.budget)

    def _guard(self, method: str) -> AbstractContextManager[Any]:
        return nullcontext() if f"fe.{method}" == self.unlocked else self.lock

    def _update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        wire = update_wire(self.cache, probed)
        if isinstance(wire, api.Fault):
            return wire
        return api.WireMessage(self.epoch << 32 | next(self.ids), wire)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        with self.lock:
            return probe_items(self.cache, self.setup.process, items)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        with self.lock:
            return self._update(probed)

    def serve(self, engine: Any, items: tuple[api.ItemIn, ...]
              ) -> api.Served | api.Missed | api.ClientRejected | api.Fault:
        """Probe and update in one critical section, then the engine, then the reply."""
        with self._guard("serve"):
            probed = probe_items(self.cache, self.setup.process, items)
            if isinstance(probed, api.ClientRejected):
                return probed
            message = self._update(probed)
        if not isinstance(message, api.WireMessage):
            return message
        delivered: api.Delivered = engine.receive(message)
        if not isinstance(delivered, api.Fault):
            self.handle_reply(message.request_id, missed_of(delivered))
        return delivered

    def abandon(self, request_id: int) -> None:
        del request_id

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id
        with self._guard("handle_reply"):
            invalidate(self.cache.pop, missed)

    def clear(self) -> None:
        with self._guard("clear"):
            self.cache.clear()

    def restart(self) -> None:
        with self.lock:
            self.epoch += 1
            self.cache = ByteLru(self.setup.budget)

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        with self.lock:
            return tuple(api.ShadowEntry(k, size, value, None)  # type: ignore[arg-type]
                         for k, (size, value) in self.cache.entries.items())


@dataclass
class Receiver:
    """P1 over `cachetools.LRUCache` sized by payload bytes; a payload replaces the entry."""

    setup: api.Setup
    unlocked: str = ""

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.cache: cachetools.LRUCache[str, api.Payload] = cachetools.LRUCache(
            maxsize=self.setup.budget, getsizeof=nbytes)

    def _guard(self, method: str) -> AbstractContextManager[Any]:
        return nullcontext() if f"engine.{method}" == self.unlocked else self.lock

    def receive(self, message: api.WireMessage) -> api.Delivered:
        with self._guard("receive"):
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
        with self._guard("clear"):
            self.cache.clear()

    def restart(self) -> None:
        with self.lock:
            self.cache = cachetools.LRUCache(maxsize=self.setup.budget, getsizeof=nbytes)

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        """Least recent first, without refreshing anything: `LRUCache` keeps its order
        private and a lookup (`items()`, `get`) refreshes, so the order is read from a copy
        emptied by `popitem` (which takes the least recent), the payloads shared."""
        with self.lock:
            payloads = {k: cachetools.Cache.__getitem__(self.cache, k) for k in self.cache}
            twin = copy.deepcopy(self.cache, {id(v): v for v in payloads.values()})
            order = [twin.popitem()[0] for _ in range(len(payloads))]
            return tuple(api.ReceiverEntry(k, nbytes(payloads[k]), payloads[k], None)
                         for k in order)

    def close(self) -> None:
        pass


@dataclass
class HooklessPair:
    name: str = "hookless-pair"
    unlocked: str = ""

    def supports(self, variant: str) -> bool:
        return variant == "V2"

    def front_end(self, setup: api.Setup, index: int) -> Sender:
        return Sender(setup, index, self.unlocked)

    def engine(self, setup: api.Setup) -> Receiver:
        return Receiver(setup, self.unlocked)


def factory() -> HooklessPair:
    return HooklessPair()


def factory_unlocked(target: str) -> HooklessPair:
    assert target in TARGETS, target
    return HooklessPair(f"hookless-pair-unlocked-{target}", target)


def factory_unlocked_fe_serve() -> HooklessPair:
    return factory_unlocked("fe.serve")


def factory_unlocked_fe_handle_reply() -> HooklessPair:
    return factory_unlocked("fe.handle_reply")


def factory_unlocked_fe_clear() -> HooklessPair:
    return factory_unlocked("fe.clear")


def factory_unlocked_engine_receive() -> HooklessPair:
    return factory_unlocked("engine.receive")


def factory_unlocked_engine_clear() -> HooklessPair:
    return factory_unlocked("engine.clear")
