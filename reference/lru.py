"""A byte-budget LRU: the one eviction loop both caches share.

Shape borrowed from cachetools (an ordered mapping, a size per key, a running total), with
``check_invariants()``. Code outside reference/ reads it through its public methods, and
builds variants of it (the conformance mutants) through ``reference.extension``.

Decisions, stated once:

- Sizes are given by the caller at insert and stored; they are never recomputed. An in-place
  edit of a cached tensor is therefore not re-measured.
- ``put`` of a key already present drops the old entry first (a *replacement*, not counted as
  an eviction, even when the old entry was the least recent), then evicts least-recent
  entries until the new item fits, then inserts it as most recent. An item larger than the
  whole budget is not cached (``put`` returns False); since the old entry was dropped first,
  a too-large replacement leaves nothing behind (vllm#57833).
- ``touch`` of an absent key does nothing: recording a key in the order only ("ghost key")
  once made eviction spin forever with the lock held (vllm#43941).
- Eviction always terminates: each pass removes one entry, and an empty cache fits any item
  no larger than the budget, which ``put`` checks before evicting.

Not thread-safe by itself: ``SenderCache`` and ``ReceiverCache`` hold a lock around every use.
Every operation is O(1) (amortised) except ``entries``/``items``/``check_invariants``.
"""

from __future__ import annotations

import math
import operator
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from reference._validate import as_collection
from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    InvalidBudgetError,
    InvariantViolationError,
    describe,
)

__all__ = ["IDENTITY_CHARS_PER_NODE", "MIN_NODES", "NODE_BYTES", "ByteLru", "CacheStats",
           "default_max_nodes", "identity_nodes", "validate_budget"]

NODE_BYTES = 1024
"""The bookkeeping one node stands for. An entry takes ``1 + t + m`` nodes, ``t`` and ``m``
the tensors and nested mappings of its payload (the sender, which keeps no tensors, records
the same count so that both sides evict alike). Measured by RSS per entry of zero-byte items
(``benchmarks/bench_reference.py``, "memory per entry"): a receiver entry about 660 bytes plus
about 550 per tensor, a sender entry about 460 bytes; 1,024 bytes a node bounds both."""

MIN_NODES = 1024
"""The least ``max_nodes`` a cache gets, so that a small budget still holds entries (its
bookkeeping is then at most about 1 MiB per side, whatever the budget)."""


IDENTITY_CHARS_PER_NODE = NODE_BYTES // 4
"""An identity's own bookkeeping, in nodes: one per ``IDENTITY_CHARS_PER_NODE`` characters
(a character takes at most 4 bytes), so a long identity is charged what it keeps alive; a
64-hex-digit mm_hash takes none. A count of characters, not of the str's memory, so that
both sides, which see equal identities, charge them alike."""


def identity_nodes(identity: str) -> int:
    """The nodes ``identity`` itself takes beyond its entry's (see
    ``IDENTITY_CHARS_PER_NODE``); both caches add it to every entry they record."""
    return len(identity) // IDENTITY_CHARS_PER_NODE


def default_max_nodes(budget: int) -> int:
    """``max(budget // NODE_BYTES, MIN_NODES)``: the bookkeeping of a full cache is at most its
    budget (for budgets of 1 MiB and more), so each side keeps at most twice its budget."""
    return max(budget // NODE_BYTES, MIN_NODES)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class CacheStats:
    """A snapshot of a cache's counters (cumulative since construction) and of its size.

    hits/lookups count ``get`` only (a probe with ``in`` is not a lookup), and a hit is a
    lookup whose value was used: the receiver counts a reference it cannot serve from the
    entry it found (another tag, an edited tensor) as a miss (``count_as_miss``); evictions count
    entries removed to make room (for bytes or for nodes); replacements count entries dropped
    by a ``put`` of the same key; invalidations count entries removed by ``pop``; clears
    count ``clear`` calls; nodes/max_nodes are the bookkeeping in use and its bound.

    ``oversize`` counts items not cached because they exceed the whole budget (or take more
    nodes than ``max_nodes``). **This is the counter a server should watch**: such an item is
    still sent and used for its request, but never cached, so every request that carries it
    sends and (on P0) processes it again, and a UUID-only request for it is always a client
    error. A rising ``oversize`` means items larger than the cache: raise the budget (on both
    sides alike) or shrink the items.
    """

    hits: int
    lookups: int
    evictions: int
    replacements: int
    oversize: int
    invalidations: int
    clears: int
    entries: int
    bytes_in_use: int
    budget: int
    nodes: int = 0
    max_nodes: int = 0

    @property
    def hit_rate(self) -> float:
        """hits / lookups, 0.0 before the first lookup."""
        return self.hits / self.lookups if self.lookups else 0.0


def validate_budget(budget: object) -> int:
    """Return ``budget`` as an int number of bytes > 0, or raise saying what is wrong.

    Rejected: bool, and any boolean of an array library (a 0-d ``torch.bool`` tensor or a
    ``numpy.bool_``, whose ``__index__`` would make ``True`` a budget of 1 byte), non-integers
    (floats included: NaN and infinities are value errors, other floats type errors), zero
    and negative numbers.
    """
    expected = "expected a positive int number of bytes"
    if isinstance(budget, float) and not math.isfinite(budget):
        raise InvalidBudgetError(f"got budget {describe(budget)}, {expected}")
    if isinstance(budget, bool) or "bool" in str(getattr(budget, "dtype", "")):
        raise BadInputTypeError(f"got budget {describe(budget)}, {expected}")
    try:
        value = operator.index(budget)  # type: ignore[arg-type]  # any __index__ will do
    except Exception:  # not an integer, or an __index__ that raises: rejected alike
        raise BadInputTypeError(f"got budget {describe(budget)}, {expected}") from None
    if value <= 0:
        raise InvalidBudgetError(f"got budget {describe(budget)}, {expected}")
    return value


def _unhashable(key: object) -> BadInputTypeError:
    return BadInputTypeError(
        f"got key {describe(key)}, expected a hashable key (whose hash and == do not raise)")


def _validate_nodes(nodes: object) -> None:
    if type(nodes) is not int:  # a plain int, as check_invariants expects of node counts
        raise BadInputTypeError(f"got nodes {describe(nodes)}, expected an int")
    if nodes < 1:
        raise BadInputValueError(f"got nodes {nodes}, expected an int >= 1")


def _validate_size(size: object) -> int:
    if isinstance(size, bool) or not isinstance(size, int):
        raise BadInputTypeError(f"got size {describe(size)}, expected an int number of bytes")
    if size < 0:
        raise BadInputValueError(f"got size {size}, expected a number of bytes >= 0")
    return size


class _LruLedger(Generic[K, V]):
    """The state of a ``ByteLru`` (entries in LRU order, sizes, node counts, counters) and
    what reads it without changing it: ``len``, the listings, ``stats`` and
    ``check_invariants``. ``ByteLru`` adds the operations."""

    def __init__(self, budget: int, max_nodes: int | None = None) -> None:
        self._budget = validate_budget(budget)
        if max_nodes is None:
            max_nodes = default_max_nodes(self._budget)
        elif isinstance(max_nodes, bool) or not isinstance(max_nodes, int):
            raise BadInputTypeError(f"got max_nodes {describe(max_nodes)}, expected an int")
        elif max_nodes < 1:
            raise BadInputValueError(f"got max_nodes {max_nodes}, expected an int >= 1")
        self._max_nodes = max_nodes
        self._nodes: dict[K, int] = {}
        self._nodes_in_use = 0
        self._order: OrderedDict[K, V] = OrderedDict()  # oldest first
        self._sizes: dict[K, int] = {}
        self._bytes_in_use = 0
        self._hits = 0
        self._misses = 0
        self._evictions = 0
        self._replacements = 0
        self._oversize = 0
        self._invalidations = 0
        self._clears = 0

    @property
    def budget(self) -> int:
        return self._budget

    @property
    def bytes_in_use(self) -> int:
        return self._bytes_in_use

    def __len__(self) -> int:
        return len(self._order)

    def entries(self) -> list[tuple[K, int]]:
        """(key, size) for every entry, least recent first."""
        sizes = self._sizes
        return [(key, sizes[key]) for key in self._order]

    def items(self) -> list[tuple[K, V]]:
        """(key, value) for every entry, least recent first."""
        return list(self._order.items())

    def stats(self) -> CacheStats:
        return CacheStats(
            hits=self._hits,
            lookups=self._hits + self._misses,
            evictions=self._evictions,
            replacements=self._replacements,
            oversize=self._oversize,
            invalidations=self._invalidations,
            clears=self._clears,
            entries=len(self._order),
            bytes_in_use=self._bytes_in_use,
            budget=self._budget,
            nodes=self._nodes_in_use,
            max_nodes=self._max_nodes,
        )

    def check_invariants(self) -> None:
        """Raise ``InvariantViolationError`` if the internal state is inconsistent."""
        problems: list[str] = []
        if self._order.keys() != self._sizes.keys():
            problems.append("the order and the sizes hold different keys")
        bad = [(k, s) for k, s in self._sizes.items()
               if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= self._budget]
        if bad:
            problems.append(f"sizes out of [0, budget]: {bad[:3]}")
        if sum(self._sizes.values()) != self._bytes_in_use:
            problems.append(f"bytes_in_use {self._bytes_in_use} != sum of sizes")
        if self._bytes_in_use > self._budget:
            problems.append(f"bytes_in_use {self._bytes_in_use} > budget {self._budget}")
        if any(value is None for value in self._order.values()):
            problems.append("a None value is cached")
        if self._order.keys() != self._nodes.keys():
            problems.append("the order and the node counts hold different keys")
        if any(type(n) is not int or not 1 <= n <= self._max_nodes
               for n in self._nodes.values()):
            problems.append("a node count out of [1, max_nodes]")
        if sum(self._nodes.values()) != self._nodes_in_use:
            problems.append(f"nodes_in_use {self._nodes_in_use} != sum of node counts")
        if self._nodes_in_use > self._max_nodes:
            problems.append(f"nodes_in_use {self._nodes_in_use} > max_nodes {self._max_nodes}")
        if problems:
            raise InvariantViolationError("; ".join(problems))


class ByteLru(_LruLedger[K, V]):
    """Least-recently-used map bounded by a byte budget and a node budget. Values must not
    be None.

    The byte budget is the protocol's (what the spec counts). The node budget bounds the
    bookkeeping: ``put`` takes each entry's node count (1 unless given; see ``NODE_BYTES``)
    and evicts least-recent entries until both fit; ``max_nodes`` defaults to
    ``default_max_nodes(budget)``, far above what the spec's instances reach, so the bytes
    alone decide there.

    Invariants (``check_invariants``): ``_order``, ``_sizes`` and ``_nodes`` have the same
    keys; ``_bytes_in_use`` is the sum of ``_sizes`` and at most ``_budget``;
    ``_nodes_in_use`` is the sum of ``_nodes`` and at most ``_max_nodes``; every size is an
    int in ``[0, _budget]``, every node count an int in ``[1, _max_nodes]``.

    Extension points (hooks a subclass may override, ``reference.extension``): ``_evict_one``
    and ``_drop_existing``, the two steps of ``put`` before it records the entry.
    """

    def __init__(self, budget: int, max_nodes: int | None = None) -> None:
        super().__init__(budget, max_nodes)
        # True unless a subclass overrides the lookups that present/get_all inline
        cls = type(self)
        self._plain = cls.get is ByteLru.get and cls.__contains__ is ByteLru.__contains__
        self._put_takes_nodes = cls.put is ByteLru.put

    def __contains__(self, key: object) -> bool:
        """Probe: no reordering, not counted as a lookup."""
        try:
            return key in self._order
        except Exception:  # unhashable, or its hash or == raises
            raise _unhashable(key) from None

    def get(self, key: K) -> V | None:
        """The value for ``key``, made most recent; None (a miss) if absent."""
        try:
            value = self._order.get(key)
        except Exception:  # unhashable, or its hash or == raises
            raise _unhashable(key) from None
        if value is None:
            self._misses += 1
            return None
        self._order.move_to_end(key)
        self._hits += 1
        return value

    def count_as_miss(self) -> None:
        """Count the last ``get``, a hit, as a miss instead: the caller found the value it
        returned unusable (the receiver: a reference whose tag differs, an entry edited in
        place). The entry's recency is left as the ``get`` left it."""
        if self._hits > 0:
            self._hits -= 1
            self._misses += 1

    def present(self, keys: Sequence[K]) -> frozenset[K]:
        """The ``keys`` present (a probe of each: no reordering, no lookup counted).

        One call per request instead of one ``in`` per key; a subclass that overrides
        ``__contains__`` is asked key by key (what it overrides is what it gets).
        """
        if type(keys) is not tuple and type(keys) is not list:
            keys = as_collection("keys", keys)  # type: ignore[assignment]
        if self._plain:
            try:
                if len(keys) == 1:  # the common request: one item
                    return frozenset(keys) if keys[0] in self._order else frozenset()
                return frozenset(filter(self._order.__contains__, keys))
            except Exception:  # unhashable, or its hash or == raises
                pass  # an unhashable key: reported by __contains__ below
        return frozenset(filter(self.__contains__, keys))

    def get_all(self, keys: Sequence[K]) -> list[V | None] | None:
        """If every key is present: ``get`` of each, in order (each made most recent in turn
        and counted as a hit); else None, and nothing changed (no reordering, no lookup
        counted).

        The hit path of a whole request in one call. A subclass that overrides ``get`` or
        ``__contains__`` gets its own methods called key by key (and a ``get`` of it that
        returns None for a key it said was present leaves that None in the list).
        """
        if type(keys) is not tuple and type(keys) is not list:
            keys = as_collection("keys", keys)  # type: ignore[assignment]
        if not self._plain:
            if not all(map(self.__contains__, keys)):
                return None
            return list(map(self.get, keys))
        order = self._order
        try:
            if len(keys) == 1:  # the common request: one item, no comprehension frame
                value = order.get(keys[0])
                if value is None:
                    return None
                order.move_to_end(keys[0])
                self._hits += 1
                return [value]
            values: list[V | None] = [order[key] for key in keys]
        except KeyError:
            return None
        except Exception:  # a key whose hash or == raises: __contains__ names it
            for key in keys:
                self.__contains__(key)
            raise _unhashable(keys) from None
        move = order.move_to_end
        for key in keys:
            move(key)
        self._hits += len(values)
        return values

    def peek(self, key: K) -> V | None:
        """The value for ``key`` without reordering or counting a lookup; None if absent."""
        try:
            return self._order.get(key)
        except Exception:  # unhashable, or its hash or == raises
            raise _unhashable(key) from None

    def size_of(self, key: K) -> int | None:
        """The size recorded at insert, without reordering; None if absent."""
        try:
            return self._sizes.get(key)
        except Exception:  # unhashable, or its hash or == raises
            raise _unhashable(key) from None

    def touch(self, key: K) -> bool:
        """Make a present key most recent and return True; an absent key: nothing, False."""
        if not self.__contains__(key):
            return False
        self._order.move_to_end(key)
        return True

    def put(self, key: K, value: V, size: int) -> bool:
        """Insert ``key`` as most recent if it fits; return whether it is now cached.

        Drops any old entry for ``key`` first (a replacement), then evicts least-recent
        entries until ``size`` bytes (and the entry's one node) fit. ``size > budget``:
        nothing cached (``oversize``), no old entry left. ``put_entry`` gives the node count.
        """
        return self._insert(key, value, size, 1)

    def put_entry(self, key: K, value: V, size: int, nodes: int) -> bool:
        """``put`` of an entry of ``nodes`` nodes (see ``NODE_BYTES``): what the caches call.
        A subclass that overrides ``put`` gets its ``put(key, value, size)`` called, and its
        entries count one node each."""
        if self._put_takes_nodes:
            return self._insert(key, value, size, nodes)
        return self.put(key, value, size)

    def _insert(self, key: K, value: V, size: int, nodes: int) -> bool:
        """``put`` of an entry of ``nodes`` nodes: evicts until ``size`` bytes and ``nodes``
        nodes fit; ``size > budget`` or ``nodes > max_nodes``: nothing cached."""
        _validate_size(size)
        if type(nodes) is not int or nodes < 1:
            _validate_nodes(nodes)
        if value is None:
            raise BadInputValueError("got value None, expected a cacheable value")
        try:
            self._sizes.get(key)  # its hash and == (against a key it collides with) work
        except Exception:  # unhashable, or its hash or == raises
            raise _unhashable(key) from None
        self._drop_existing(key)
        if size > self._budget or nodes > self._max_nodes:
            self._oversize += 1
            return False
        if len(self._nodes) != len(self._order):
            self._recount_nodes()
        while (self._bytes_in_use + size > self._budget
               or self._nodes_in_use + nodes > self._max_nodes):
            self._evict_one()
        self._order[key] = value
        self._sizes[key] = size
        self._nodes[key] = nodes
        self._bytes_in_use += size
        self._nodes_in_use += nodes
        return True

    def pop(self, key: K) -> V | None:
        """Remove ``key`` (an invalidation) and return its value; None if absent."""
        try:
            value = self._order.pop(key, None)
        except Exception:  # unhashable, or its hash or == raises
            raise _unhashable(key) from None
        if value is None:
            return None
        self._bytes_in_use -= self._sizes.pop(key)
        self._nodes_in_use -= self._nodes.pop(key, 0)
        self._invalidations += 1
        return value

    def clear(self) -> None:
        """Drop every entry; counters are kept."""
        self._order.clear()
        self._sizes.clear()
        self._nodes.clear()
        self._bytes_in_use = 0
        self._nodes_in_use = 0
        self._clears += 1

    def _drop_existing(self, key: K) -> None:
        """Remove ``key``'s entry, if any, before ``put`` records it again (a replacement:
        its bytes and nodes freed, counted in ``replacements``). An extension point."""
        old = self._sizes.pop(key, None)
        if old is not None:
            del self._order[key]
            self._bytes_in_use -= old
            self._nodes_in_use -= self._nodes.pop(key, 0)
            self._replacements += 1

    def _evict_one(self) -> None:
        """Remove the least recent entry (the eviction policy; callers ensure non-empty),
        counted in ``evictions``. An extension point."""
        key, _ = self._order.popitem(last=False)
        self._bytes_in_use -= self._sizes.pop(key)
        self._nodes_in_use -= self._nodes.pop(key, 0)
        self._evictions += 1

    def _recount_nodes(self) -> None:
        """Make the node counts match the entries again, after a subclass changed the order
        without them (an entry it added counts 1 node, one it dropped none)."""
        nodes = self._nodes
        self._nodes = {key: nodes.get(key, 1) for key in self._order}
        self._nodes_in_use = sum(self._nodes.values())
