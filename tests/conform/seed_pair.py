"""A V2 pair as a user writes it in the seed's style (vllm#57833): per-item
`get_and_update_item` on both sides, an `OrderedDict` LRU bounded in bytes, "the payload
wins" on the receiver (drop the old entry first, then cache if it fits), and its adapter.

The front end updates one item at a time, as vLLM's does outside a lock, so its adapter
offers `update_item` (`adapter.ItemUpdates`) and the harness can interleave other requests
between the items (D6). `factory` is the pair as written.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass, field

import torch

from model_checks.conform import adapter as api
from tests.conform.replies import answer, invalidate


class MultiModalCacheMissError(KeyError):
    """The receiver's retryable miss error, naming every missed identity."""

    def __init__(self, mm_hashes: list[str]) -> None:
        super().__init__(mm_hashes)
        self.mm_hashes = mm_hashes


class LruCache:
    """An LRU bounded in bytes: `get` refreshes, `in` does not, `touch` of an absent key does
    nothing; `cache_if_fits` evicts least recent first and skips what cannot fit at all."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.data: OrderedDict[str, tuple[int, object]] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str) -> object | None:
        if key not in self.data:
            return None
        self.data.move_to_end(key)
        return self.data[key][1]

    def touch(self, key: str) -> None:
        if key in self.data:
            self.data.move_to_end(key)

    def pop(self, key: str) -> None:
        self.data.pop(key, None)

    def cache_if_fits(self, key: str, size: int, value: object) -> None:
        if size > self.capacity:
            return
        while self.data and sum(s for s, _ in self.data.values()) + size > self.capacity:
            self.data.popitem(last=False)
        self.data[key] = (size, value)

    def clear(self) -> None:
        self.data.clear()


def _nbytes(tensors: dict[str, torch.Tensor]) -> int:
    return sum(t.nbytes for t in tensors.values())


class SenderCache:
    """P0's shadow: sizes and prompt updates only."""

    def __init__(self, capacity: int) -> None:
        self.cache = LruCache(capacity)

    def is_cached_item(self, mm_hash: str) -> bool:
        return mm_hash in self.cache

    def get_and_update_item(self, mm_item: tuple[dict[str, torch.Tensor], tuple[int, int]]
                            | None, mm_hash: str) -> tuple[object, tuple[int, int]]:
        cached = self.cache.get(mm_hash)
        if cached is not None:
            return None, cached  # type: ignore[return-value]
        assert mm_item is not None, f"Expected a cached item for {mm_hash=}"
        data, prompt_updates = mm_item
        self.cache.cache_if_fits(mm_hash, _nbytes(data), prompt_updates)
        return mm_item

    def touch_sender_cache_item(self, mm_hash: str) -> None:
        self.cache.touch(mm_hash)

    def invalidate(self, mm_hash: str) -> None:
        self.cache.pop(mm_hash)


class ReceiverCache:
    """P1's cache: the tensors; a payload replaces what is cached under its identity."""

    def __init__(self, capacity: int) -> None:
        self.cache = LruCache(capacity)

    def get_and_update_item(self, mm_item: dict[str, torch.Tensor] | None, mm_hash: str
                            ) -> dict[str, torch.Tensor]:
        if mm_item is not None:
            self.cache.pop(mm_hash)
            self.cache.cache_if_fits(mm_hash, _nbytes(mm_item), mm_item)
            return mm_item
        cached = self.cache.get(mm_hash)
        if cached is not None:
            return cached  # type: ignore[return-value]
        raise MultiModalCacheMissError([mm_hash])

    def touch_receiver_cache_item(self, mm_hash: str) -> None:
        self.cache.touch(mm_hash)


@dataclass
class _Update:
    items: tuple[api.ItemIn, ...]
    processed: dict[int, tuple[dict[str, torch.Tensor], tuple[int, int]]]
    wire: list[api.WireItem] = field(default_factory=list)


@dataclass
class SeedFrontEnd:
    """The adapter's front end: probe, then one `update_item` per item."""

    setup: api.Setup
    index: int
    epoch: int = 0
    ids: itertools.count[int] = field(default_factory=itertools.count)
    sender: SenderCache = field(init=False)

    def __post_init__(self) -> None:
        self.sender = SenderCache(self.setup.budget)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        misses = [i for i in items if not self.sender.is_cached_item(i.identity)]
        uuid_only = tuple(i.identity for i in misses if i.media is None)
        if uuid_only:
            return api.ClientRejected(uuid_only)
        # by position: an identity named twice has each occurrence's own content
        missed = {i.identity for i in misses}
        return _Update(items, {n: self.setup.process(i.media) for n, i in enumerate(items)
                               if i.identity in missed and i.media is not None})

    def update_item(self, probed: object) -> api.WireMessage | api.Fault | None:
        update: _Update = probed  # type: ignore[assignment]
        if not update.wire:
            for item in update.items:
                self.sender.touch_sender_cache_item(item.identity)
        item = update.items[len(update.wire)]
        try:
            data, placeholders = self.sender.get_and_update_item(
                update.processed.get(len(update.wire)), item.identity)
        except AssertionError as error:
            return api.Fault("p0-assert", str(error))
        update.wire.append(api.WireItem(item.identity, data, placeholders, None))  # type: ignore[arg-type]
        if len(update.wire) < len(update.items):
            return None
        return api.WireMessage(self.epoch << 32 | next(self.ids), tuple(update.wire))

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        while True:
            result = self.update_item(probed)
            if result is not None:
                return result

    def abandon(self, request_id: int) -> None:
        del request_id

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id
        invalidate(self.sender.invalidate, missed)

    def clear(self) -> None:
        self.sender.cache.clear()

    def restart(self) -> None:
        self.epoch += 1
        self.sender = SenderCache(self.setup.budget)

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        return tuple(api.ShadowEntry(k, size, value, None)  # type: ignore[arg-type]
                     for k, (size, value) in self.sender.cache.data.items())


@dataclass
class SeedEngine:
    """The adapter's engine: touch every item, then `get_and_update_item` per item."""

    setup: api.Setup
    cache: ReceiverCache = field(init=False)

    def __post_init__(self) -> None:
        self.cache = ReceiverCache(self.setup.budget)

    def receive(self, message: api.WireMessage) -> api.Delivered:
        for item in message.items:
            self.cache.touch_receiver_cache_item(item.identity)
        inputs, missed = [], []
        for item in message.items:
            try:
                tensors = self.cache.get_and_update_item(
                    None if item.payload is None else dict(item.payload), item.identity)
            except MultiModalCacheMissError as error:
                missed += error.mm_hashes
                continue
            inputs.append(api.ModelInput(item.identity, tensors, item.placeholders))
        return answer(inputs, missed)

    def clear(self) -> None:
        self.cache.cache.clear()

    def restart(self) -> None:
        self.__post_init__()

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        return tuple(api.ReceiverEntry(k, size, value, None)  # type: ignore[arg-type]
                     for k, (size, value) in self.cache.cache.data.items())

    def close(self) -> None:
        pass


@dataclass
class SeedPairAdapter:
    name: str = "seed-style-pair"

    def supports(self, variant: str) -> bool:
        return variant == "V2"

    def front_end(self, setup: api.Setup, index: int) -> SeedFrontEnd:
        return SeedFrontEnd(setup, index)

    def engine(self, setup: api.Setup) -> SeedEngine:
        return SeedEngine(setup)


def factory() -> SeedPairAdapter:
    return SeedPairAdapter()
