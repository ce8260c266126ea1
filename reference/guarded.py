"""What the sender and receiver caches share: one ByteLru behind one lock, tagged per variant.

Every public method holds ``_lock`` for its whole duration, so each call is atomic with respect
to every other call on the same cache (see each subclass for why its callers need that).
``tests/reference/test_ref_threads.py`` checks it: an LRU that asserts its cache's lock is
held by the calling thread in every method, and yields inside every one of them.
"""

from __future__ import annotations

import threading
from typing import Generic, Protocol, TypeVar

from reference._validate import check_identity, check_instance
from reference.errors import InvariantViolationError, describe, short
from reference.lru import ByteLru, CacheStats
from reference.variants import Variant

__all__ = ["GuardedCache"]


class _Tagged(Protocol):
    @property
    def tag(self) -> int | None: ...


E = TypeVar("E", bound=_Tagged)


class GuardedCache(Generic[E]):
    """A ByteLru of entries keyed by identity, a lock, and the variant in force."""

    def __init__(self, budget: int, variant: Variant) -> None:
        check_instance("variant", variant, Variant)
        self._lru: ByteLru[str, E] = ByteLru(budget)
        self._variant = variant
        self._lock = threading.Lock()

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def budget(self) -> int:
        return self._lru.budget

    def __contains__(self, identity: object) -> bool:
        """Probe one identity: no reordering, not counted as a lookup."""
        if type(identity) is not str or not identity:
            check_identity(identity)
        with self._lock:
            return identity in self._lru

    def touch(self, identity: str) -> bool:
        """Make a present identity most recent (True); an absent one: nothing (False)."""
        if type(identity) is not str or not identity:
            check_identity(identity)
        with self._lock:
            return self._lru.touch(identity)

    def clear(self) -> None:
        with self._lock:
            self._lru.clear()

    def stats(self) -> CacheStats:
        with self._lock:
            return self._lru.stats()

    def entries(self) -> list[tuple[str, int]]:
        """(identity, recorded size), least recent first."""
        with self._lock:
            return self._lru.entries()

    def items(self) -> list[tuple[str, E]]:
        """(identity, entry), least recent first."""
        with self._lock:
            return self._lru.items()

    def check_invariants(self) -> None:
        """The LRU's invariants, plus: entries are tagged iff the variant is."""
        with self._lock:
            self._lru.check_invariants()
            for identity, entry in self._lru.items():
                self._check_entry(identity, entry)

    def _check_entry(self, identity: str, entry: E) -> None:
        if (entry.tag is not None) != self._variant.tagged:
            raise InvariantViolationError(
                f"got tag {describe(entry.tag)} for {short(identity)!r} in variant "
                f"{self._variant}"
            )
