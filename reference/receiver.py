"""P1's receiver cache: holds the payloads (tensors) that references point to.

Per request (BRIEF section 3, P1): touch every identity, then resolve each item in
``resolution_order``: a payload is used and cached if it fits (``payload_wins``) or yields to
a cached entry (the cache wins); a reference is served from the cache if the entry is there
and, in tagged variants, carries the reference's tag; otherwise the item is a miss. Items that
did not miss stay cached; the caller reports every miss at once.

Thread safety: the engine's input thread is the only one that resolves requests, but a clear
(sleep, reset, pause) comes from another thread; every public method holds ``_lock`` for its
whole duration, so a clear never lands in the middle of a request's resolution. Uncontended,
the lock costs tens of nanoseconds per call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from reference._validate import check_identities, check_instance, check_tag
from reference.errors import (
    CacheError,
    MultiModalCacheMissError,
    ReceiverCacheAssertionError,
)
from reference.guarded import GuardedCache
from reference.items import Placeholders, TensorTree, tree_nbytes
from reference.messages import ModelInput, WireItem
from reference.variants import DEFAULT_VARIANT, Variant, resolution_order

__all__ = ["ReceiverCache", "ReceiverEntry", "Resolution"]


@dataclass(frozen=True, slots=True, eq=False)
class ReceiverEntry:
    """A cached payload and (tagged variants) the tag of the processing it came from."""

    payload: TensorTree
    tag: int | None


class Resolution(NamedTuple):
    """The outcome of resolving one request: inputs for the items that did not miss, in
    request order, and the missed identities, in request order."""

    inputs: tuple[ModelInput, ...]
    missed: tuple[str, ...]


class ReceiverCache(GuardedCache[ReceiverEntry]):
    """The receiver (P1). ``budget`` in bytes, the same as the sender's."""

    def __init__(self, budget: int, *, variant: Variant = DEFAULT_VARIANT) -> None:
        super().__init__(budget, variant)

    def get_and_update(self, item: WireItem) -> TensorTree:
        """One item, the seed's per-item step; raises the miss error if it cannot be served."""
        sizes = self._validate((item,))
        with self._lock:
            payload = self._resolve_one(item, sizes[0])
        if payload is None:
            raise self.miss_error((item.identity,))
        return payload

    def resolve(self, items: Sequence[WireItem]) -> Resolution:
        """Resolve one request's items (touch all, then per item); see the module docstring.

        The whole input is validated (and payloads sized) before anything changes.
        """
        items = tuple(items)
        sizes = self._validate(items)
        resolved: dict[int, TensorTree] = {}
        with self._lock:
            for item in items:
                self._lru.touch(item.identity)
            for index in resolution_order(self._variant, [i.is_reference for i in items]):
                payload = self._resolve_one(items[index], sizes[index])
                if payload is not None:
                    resolved[index] = payload
        inputs = tuple(
            ModelInput(item.identity, resolved[index], item.placeholders)
            for index, item in enumerate(items) if index in resolved
        )
        missed = tuple(item.identity for index, item in enumerate(items) if index not in resolved)
        return Resolution(inputs, missed)

    def miss_error(self, identities: Sequence[str], request_id: int | None = None) -> CacheError:
        """The error for these missed identities: retryable, or V0's assertion."""
        if not self._variant.recovers:
            return ReceiverCacheAssertionError(identities)
        return MultiModalCacheMissError(identities, request_id=request_id)

    def _validate(self, items: tuple[WireItem, ...]) -> list[int]:
        """Check every item; return each payload's size (0 for references)."""
        check_identities(item.identity for item in items if isinstance(item, WireItem))
        sizes = []
        for item in items:
            check_instance("wire item", item, WireItem)
            check_instance(f"placeholders of {item.identity!r}", item.placeholders, Placeholders)
            check_tag(item.tag, self._variant.tagged, item.identity)
            sizes.append(0 if item.payload is None else tree_nbytes(item.payload))
        return sizes

    # Variation points: each knob of ``Variant`` is read by exactly one method below.

    def _resolve_one(self, item: WireItem, size: int) -> TensorTree | None:
        if item.payload is None:
            return self._lookup_reference(item)
        return self._accept_payload(item, item.payload, size)

    def _lookup_reference(self, item: WireItem) -> TensorTree | None:
        entry = self._lru.get(item.identity)
        if entry is None or not self._tag_matches(entry, item.tag):
            return None
        return entry.payload

    def _tag_matches(self, entry: ReceiverEntry, tag: int | None) -> bool:
        return not self._variant.tagged or entry.tag == tag

    def _accept_payload(self, item: WireItem, payload: TensorTree, size: int) -> TensorTree:
        if not self._variant.payload_wins:
            cached = self._lru.get(item.identity)
            if cached is not None:
                return cached.payload
        self._lru.put(item.identity, ReceiverEntry(payload, item.tag), size)
        return payload
