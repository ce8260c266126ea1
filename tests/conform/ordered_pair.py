"""A sender/receiver pair in the style serving systems use, written from docs/conformance.md
alone: two `OrderedDict` LRUs bounded in bytes, "the payload wins", no tags (variant V2), and
its adapter. `tests/conform/test_conform_gate.py` runs the documented CI job on it.

`factory` is the pair as written; `factory_evicting_by_count` plants one bug, the kind such a
cache gets: the receiver's budget read as a number of entries instead of bytes;
`factory_sender_evicting_by_count` plants it in the shadow.

Its parts are shared with `tests/history/user_pair.py` (a pair for a threaded server): the
LRU (whose `_point` and `_evicted` let a subclass observe its steps), a front end's probe and
update (`probe_items`, `update_wire`) and an engine's answer (`delivery`).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import torch

from model_checks.conform import adapter as api
from tests.conform.replies import answer, invalidate


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

    def _point(self) -> None:
        """Between a change of the order and the byte count that follows it (no-op here)."""

    def _evicted(self, key: str) -> None:
        """`key` was evicted (no-op here)."""

    def touch(self, key: str) -> None:
        if key in self.entries:
            self.entries.move_to_end(key)
            self._point()

    def get(self, key: str) -> object | None:
        if key not in self.entries:
            return None
        self.entries.move_to_end(key)
        return self.entries[key][1]

    def pop(self, key: str) -> None:
        size, _ = self.entries.pop(key, (0, None))
        self._point()
        self.used -= size

    def put(self, key: str, size: int, value: object) -> None:
        self.pop(key)
        if size > self.budget:
            return
        while self.entries and self._over(size):
            key_out, (old, _) = self.entries.popitem(last=False)
            self._evicted(key_out)
            self._point()
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


Probed = tuple[tuple[api.ItemIn, ...], dict[int, tuple[api.Payload, tuple[int, int]]]]
"""A probed request: its items, and each miss's payload and placeholders."""


def probe_items(cache: ByteLru, process: api.Process,
                items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
    """A front end's probe: the items sent UUID-only that `cache` does not hold are the
    client's error; else the probed request, its misses processed (`process`)."""
    missing = tuple(i.identity for i in items if i.identity not in cache and i.media is None)
    if missing:
        return api.ClientRejected(missing)
    # by position: an identity named twice has each occurrence's own content
    processed = {n: process(i.media) for n, i in enumerate(items)
                 if i.identity not in cache and i.media is not None}
    return items, processed


def update_wire(cache: ByteLru, probed: object) -> tuple[api.WireItem, ...] | api.Fault:
    """A front end's update of a probed request: touch every identity, then per item a
    reference to a hit or the payload of a miss (recorded); a probed hit gone since is P0's
    assertion."""
    items, processed = cast(Probed, probed)
    for item in items:
        cache.touch(item.identity)
    wire = []
    for n, item in enumerate(items):
        hit = cache.get(item.identity)
        if hit is not None:
            wire.append(api.WireItem(item.identity, None, hit, None))  # type: ignore[arg-type]
            continue
        if n not in processed:
            return api.Fault("p0-assert", f"{item.identity} was probed as a hit and is gone")
        payload, placeholders = processed[n]
        cache.put(item.identity, nbytes(payload), placeholders)
        wire.append(api.WireItem(item.identity, payload, placeholders, None))
    return tuple(wire)


def delivery(resolved: Sequence[tuple[api.WireItem, api.Payload | None]]) -> api.Delivered:
    """An engine's answer to a message, each item with the tensors it resolved to (None: a
    miss): one miss reply listing every missed identity, else the model's inputs."""
    return answer([api.ModelInput(item.identity, tensors, item.placeholders)
                   for item, tensors in resolved if tensors is not None],
                  (item.identity for item, tensors in resolved if tensors is None))


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
        return probe_items(self.cache, self.setup.process, items)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        wire = update_wire(self.cache, probed)
        if isinstance(wire, api.Fault):
            return wire
        return api.WireMessage(self.epoch << 32 | next(self.ids), wire)

    def abandon(self, request_id: int) -> None:
        del request_id  # the shadow keeps what the update recorded

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id
        invalidate(self.cache.pop, missed)

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
        resolved = []
        for item in message.items:
            if item.payload is not None:
                self.cache.put(item.identity, nbytes(item.payload), item.payload)
                tensors: api.Payload | None = item.payload
            else:
                tensors = self.cache.get(item.identity)  # type: ignore[assignment]
            resolved.append((item, tensors))
        return delivery(resolved)

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
