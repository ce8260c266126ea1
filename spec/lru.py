"""A byte-budget LRU as pure functions over a tuple of slots, oldest first.

Semantics (the LRU both sides keep):
- `probe` never reorders; `get` of a present key makes it most recent; `touch` of a present key
  makes it most recent and of an absent key does nothing.
- `put` first removes any slot for the key (a replacement: not counted as an eviction), then
  evicts least-recent entries until the new one fits, then appends it as most recent. So
  re-inserting the least-recent key with a larger value never evicts "itself": its old entry is
  already gone when eviction starts. An item larger than the whole budget is not cached, and
  since the old slot was removed first, no old entry for the key is left behind either.
- Eviction is one loop (`_evict_until_fits`); what a flawed LRU changes is one small function:
  `_victim`, `_fits` or `touch` for absent keys (`LruFlaw`).

A `Ghost` slot exists only under `LruFlaw.GHOST_TOUCH`: a key in the order with no entry. The
flawed eviction loop cannot remove it (the real bug popped the data, not the order), so eviction
makes no progress; the loop is bounded and reports the hang instead of spinning.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec.values import init_values, quick_init
from spec.variants import LruFlaw


@dataclass(frozen=True, slots=True)
class Entry:
    """A cached item: on P0 the placeholders of `processing`, on P1 its tensor."""

    identity: str
    size: int
    processing: int
    tag: int | None = None

    def __init__(self, identity: str, size: int, processing: int, tag: int | None = None) -> None:
        object.__setattr__(self, "identity", identity)
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "processing", processing)
        object.__setattr__(self, "tag", tag)

    def __reduce__(self) -> tuple[type[Entry], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Entry:
            return NotImplemented
        return (self.identity, self.size, self.processing, self.tag) == (other.identity, other.size,
                other.processing, other.tag)

    def __hash__(self) -> int:
        return hash((self.identity, self.size, self.processing, self.tag))


@dataclass(frozen=True, slots=True)
class Ghost:
    """An identity recorded in the order with no entry (only under `LruFlaw.GHOST_TOUCH`)."""

    identity: str

    def __init__(self, identity: str) -> None:
        object.__setattr__(self, "identity", identity)

    def __reduce__(self) -> tuple[type[Ghost], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Ghost:
            return NotImplemented
        return self.identity == other.identity

    def __hash__(self) -> int:
        return hash((self.identity,))


# Called here, not as a class decorator: mypyc compiles a class with any decorator but
# `dataclass` as a non-native one (see `spec.values`).
for _value in (Entry, Ghost):
    quick_init(_value)


Slot = Entry | Ghost
Lru = tuple[Slot, ...]


class EvictionHang(Exception):
    """Eviction made no progress within its step bound (S3: a hang, vllm#43941)."""


def entries(lru: Lru) -> tuple[Entry, ...]:
    """The real entries, oldest first (ghosts left out)."""
    return tuple(slot for slot in lru if isinstance(slot, Entry))


def bytes_used(lru: Lru) -> int:
    used = 0
    for slot in lru:  # a loop, not sum(entries(lru)): the budget check of every state
        if isinstance(slot, Entry):
            used += slot.size
    return used


def probe(lru: Lru, identity: str) -> bool:
    """Membership test; never reorders."""
    return find(lru, identity) is not None


def find(lru: Lru, identity: str) -> Entry | None:
    for slot in lru:
        if isinstance(slot, Entry) and slot.identity == identity:
            return slot
    return None


def get(lru: Lru, identity: str) -> tuple[Entry | None, Lru]:
    """The entry for `identity` (now most recent), or None and `lru` unchanged."""
    entry = find(lru, identity)
    if entry is None:
        return None, lru
    return entry, (*_without(lru, identity), entry)


def touch(lru: Lru, identity: str, flaw: LruFlaw = LruFlaw.NONE) -> Lru:
    """Make a present entry most recent; an absent key changes nothing (unless flawed)."""
    entry = find(lru, identity)
    if entry is not None:
        return (*_without(lru, identity), entry)
    if flaw is LruFlaw.GHOST_TOUCH:
        return (*_without(lru, identity), Ghost(identity))
    return lru


def pop(lru: Lru, identity: str) -> Lru:
    """Remove any slot for `identity`; absent keys are ignored."""
    return _without(lru, identity)


def put(lru: Lru, entry: Entry, budget: int, flaw: LruFlaw = LruFlaw.NONE) -> tuple[Lru, bool]:
    """Replace/insert `entry` as most recent if it fits the budget; returns (lru, cached).

    Raises EvictionHang if a flawed eviction loop stops making progress.
    """
    lru = _without(lru, entry.identity)
    if entry.size > budget:
        return lru, False
    return (*_evict_until_fits(lru, entry.size, budget, flaw), entry), True


def _evict_until_fits(lru: Lru, size: int, budget: int, flaw: LruFlaw) -> Lru:
    # Every correct iteration removes one slot, so len(lru) + 1 iterations always suffice.
    for _ in range(len(lru) + 1):
        if _fits(bytes_used(lru), size, budget, flaw):
            return lru
        index = _victim(lru, flaw)
        if isinstance(lru[index], Ghost):
            continue  # the flawed loop "removes" a key it cannot find: no progress
        lru = lru[:index] + lru[index + 1 :]
    raise EvictionHang(f"eviction made no progress after {len(lru) + 1} steps")


def _fits(used: int, size: int, budget: int, flaw: LruFlaw) -> bool:
    if flaw is LruFlaw.IGNORE_NEW_SIZE:
        return used <= budget
    return used + size <= budget


def _victim(lru: Lru, flaw: LruFlaw) -> int:
    return len(lru) - 1 if flaw is LruFlaw.EVICT_MOST_RECENT else 0


def _without(lru: Lru, identity: str) -> Lru:
    return tuple(slot for slot in lru if slot.identity != identity)
