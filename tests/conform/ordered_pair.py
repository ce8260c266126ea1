"""A sender/receiver pair in the style serving systems use, written from docs/conformance.md
alone: two `OrderedDict` LRUs bounded in bytes, "the payload wins", no tags (variant V2), and
its adapter. `tests/conform/test_conform_gate.py` runs the documented CI job on it.

`factory` is the pair as written; `factory_evicting_by_count` plants one bug, the kind such a
cache gets: the receiver's budget read as a number of entries instead of bytes;
`factory_sender_evicting_by_count` plants it in the shadow.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from dataclasses import dataclass, field

import torch

from model_checks.conform import adapter as api


def nbytes(payload: api.Payload) -> int:
    """An item's size: the sum of its tensors' bytes, measured once, at insert."""
    return sum(t.nbytes for t in payload.values())


class ByteLru:
    """An LRU bounded in bytes: `get` refreshes, `in` does not, `touch` of an absent key does
    nothing, `put` drops the old entry first and caches only what fits."""

    def __init__(self, budget: int, by_count: bool = False) -> None:
        self.budget = budget
        self.by_count = by_count
        self.entries: OrderedDict[str, tuple[int, object]] = OrderedDict()
        self.used = 0

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def touch(self, key: str) -> None:
        if key in self.entries:
            self.entries.move_to_end(key)

    def get(self, key: str) -> object | None:
        if key not in self.entries:
            return None
        self.entries.move_to_end(key)
        return self.entries[key][1]

    def pop(self, key: str) -> None:
        size, _ = self.entries.pop(key, (0, None))
        self.used -= size

    def put(self, key: str, size: int, value: object) -> None:
        self.pop(key)
        if size > self.budget:
            return
        while self.entries and self._over(size):
            _, (old, _) = self.entries.popitem(last=False)
            self.used -= old
        self.entries[key] = (size, value)
        self.used += size

    def _over(self, size: int) -> bool:
        if self.by_count:  # the planted bug: at most `budget` entries, whatever their sizes
            return len(self.entries) + 1 > self.budget
        return self.used + size > self.budget

    def clear(self) -> None:
        self.entries.clear()
        self.used = 0


@dataclass
class Sender:
    """P0: the shadow holds each item's size and placeholders, never its tensors."""

    setup: api.Setup
    index: int
    epoch: int = 0
    by_count: bool = False
    cache: ByteLru = field(init=False)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count())

    def __post_init__(self) -> None:
        self.cache = ByteLru(self.setup.budget, self.by_count)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        missing = tuple(i.identity for i in items if i.identity not in self.cache
                        and i.media is None)
        if missing:
            return api.ClientRejected(missing)
        processed = {i.identity: self.setup.process(i.media) for i in items
                     if i.identity not in self.cache and i.media is not None}
        return items, processed

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        items, processed = probed  # type: ignore[misc]
        for item in items:
            self.cache.touch(item.identity)
        wire = []
        for item in items:
            hit = self.cache.get(item.identity)
            if hit is not None:
                placeholders = hit  # type: ignore[assignment]
                wire.append(api.WireItem(item.identity, None, placeholders, None))
                continue
            if item.identity not in processed:
                return api.Fault("p0-assert", f"{item.identity} was probed as a hit and is gone")
            payload, placeholders = processed[item.identity]
            self.cache.put(item.identity, nbytes(payload), placeholders)
            wire.append(api.WireItem(item.identity, payload, placeholders, None))
        return api.WireMessage(self.epoch << 32 | next(self.ids), tuple(wire))

    def abandon(self, request_id: int) -> None:
        del request_id  # the shadow keeps what the update recorded

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id
        for identity in missed:
            self.cache.pop(identity)

    def clear(self) -> None:
        self.cache.clear()

    def restart(self) -> None:
        self.epoch += 1
        self.cache = ByteLru(self.setup.budget, self.by_count)

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        return tuple(api.ShadowEntry(k, size, value, None)  # type: ignore[arg-type]
                     for k, (size, value) in self.cache.entries.items())


@dataclass
class Receiver:
    """P1: holds the tensors; a payload replaces what it caches ("the payload wins")."""

    setup: api.Setup
    by_count: bool = False
    cache: ByteLru = field(init=False)

    def __post_init__(self) -> None:
        self.cache = ByteLru(self.setup.budget, self.by_count)

    def receive(self, message: api.WireMessage) -> api.Delivered:
        for item in message.items:
            self.cache.touch(item.identity)
        inputs, missed = [], []
        for item in message.items:
            if item.payload is not None:
                self.cache.put(item.identity, nbytes(item.payload), item.payload)
                tensors: api.Payload | None = item.payload
            else:
                tensors = self.cache.get(item.identity)  # type: ignore[assignment]
            if tensors is None:
                missed.append(item.identity)
            else:
                inputs.append(api.ModelInput(item.identity, tensors, item.placeholders))
        if missed:
            return api.Missed(tuple(missed))
        return api.Served(tuple(inputs))

    def clear(self) -> None:
        self.cache.clear()

    def restart(self) -> None:
        self.__post_init__()

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        out = []
        for k, (size, value) in self.cache.entries.items():
            assert isinstance(value, dict)
            payload: dict[str, torch.Tensor] = value
            out.append(api.ReceiverEntry(k, size, payload, None))
        return tuple(out)

    def close(self) -> None:
        pass


@dataclass
class OrderedPairAdapter:
    name: str = "ordered-dict-pair"
    by_count: bool = False
    sender_by_count: bool = False

    def supports(self, variant: str) -> bool:
        return variant == "V2"

    def front_end(self, setup: api.Setup, index: int) -> Sender:
        return Sender(setup, index, by_count=self.sender_by_count)

    def engine(self, setup: api.Setup) -> Receiver:
        return Receiver(setup, self.by_count)


def factory() -> OrderedPairAdapter:
    return OrderedPairAdapter()


def factory_evicting_by_count() -> OrderedPairAdapter:
    return OrderedPairAdapter("ordered-dict-pair-by-count", by_count=True)


def factory_sender_evicting_by_count() -> OrderedPairAdapter:
    """The same bug in P0: the shadow's budget read as a number of entries."""
    return OrderedPairAdapter("ordered-dict-pair-sender-by-count", sender_by_count=True)
