"""P1's receiver cache: holds the payloads (tensors) that references point to.

Per request (P1's steps, docs/protocol.md): touch every identity, then resolve each item in
``resolution_order``: a payload is used and cached if it fits (``payload_wins``) or yields to
a cached entry (the cache wins); a reference is served from the cache if the entry is there
and, in tagged variants, carries the reference's tag; otherwise the item is a miss. Items that
did not miss stay cached; the caller reports every miss at once.

Memory: a cached payload is kept compact and detached and charged what it keeps alive
(``reference.items``: the decisions and the minimum charge per entry).

Served tensors cannot corrupt the cache (decided once): the engine hands the model the cached
tensors themselves (no copy on the hit path) in a read-only mapping (``freeze_payload``, made
once when the payload is cached: keys cannot be added, dropped or replaced), and each entry
records a *version stamp*, the
sum of its tensors' ``_version`` counters, which torch bumps on every in-place operation
(``add_``, ``copy_``, ``resize_``..., through any view). A reference to an entry whose stamp
changed is a miss: the entry is dropped and reported, the front end invalidates it and the
client resends the data, so an edited tensor is never served and never paired again (S1).
``check_invariants()`` reports an edited entry too, and re-measures each entry's charge (a
``resize_`` can no longer leave a wrong recorded size unnoticed). Cost: one counter read per
tensor per hit (``benchmarks/bench_reference.py``: "version stamp"). Not detected: writes
that bypass torch's version counter (``tensor.data``, ``numpy()`` views, raw pointers).

Thread safety: the engine's input thread is the only one that resolves requests, but a clear
(sleep, reset, pause) comes from another thread; every public method holds ``_lock`` for its
whole duration (one acquisition per request), so a clear never lands in the middle of a
request's resolution.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

import torch

from reference._validate import (
    as_collection,
    check_exact,
    check_identities,
    check_identity,
    check_request_id,
    check_tag,
)
from reference.errors import (
    CacheError,
    InvariantViolationError,
    MultiModalCacheMissError,
    ReceiverCacheAssertionError,
    short,
)
from reference.guarded import GuardedCache
from reference.items import (
    Placeholders,
    TensorTree,
    entry_charge,
    entry_nodes,
    prepare_payload,
    tensor_leaves,
    tree_nbytes,
)
from reference.lru import identity_nodes
from reference.messages import ModelInput, WireItem
from reference.variants import DEFAULT_VARIANT, Variant, ordered

_TAG_LIMIT = 1 << 64
_version_of = operator.attrgetter("_version")  # torch bumps it on every in-place operation
_new_input = tuple.__new__  # ModelInput(...) without the Python-level __new__ frame

__all__ = ["ReceiverCache", "ReceiverEntry", "Resolution"]


@dataclass(frozen=True, slots=True, eq=False)
class ReceiverEntry:
    """A cached payload and (tagged variants) the tag of the processing it came from.

    ``leaves`` are the payload's tensors and ``stamp`` the sum of their version counters when
    cached (``ReceiverEntry.of`` fills both); ``edited()`` says whether any was edited since.
    """

    payload: TensorTree
    tag: int | None
    leaves: tuple[torch.Tensor, ...] = ()
    stamp: int = 0

    @classmethod
    def of(cls, payload: TensorTree, tag: int | None) -> ReceiverEntry:
        leaves = tensor_leaves(payload)
        return cls(payload, tag, leaves, _stamp(leaves))

    def edited(self) -> bool:
        """True if a tensor of the entry was edited in place since it was cached."""
        return _stamp(self.leaves) != self.stamp


def _stamp(leaves: tuple[torch.Tensor, ...]) -> int:
    """The sum of the tensors' version counters (each only ever grows)."""
    return sum(map(_version_of, leaves))


class Resolution(NamedTuple):
    """The outcome of resolving one request: inputs for the items that did not miss, in
    request order, and the missed identities, in request order."""

    inputs: tuple[ModelInput, ...]
    missed: tuple[str, ...]


class _Sizes(list[int]):
    """``_validate``'s charges (0 for references), carrying the payloads prepared from the
    same single walk (``kept``: None for references)."""

    __slots__ = ("kept",)
    kept: list[TensorTree | None]


class ReceiverCache(GuardedCache[ReceiverEntry]):
    """The receiver (P1). ``budget`` in bytes, the same as the sender's.

    Extension points (hooks a subclass may override, ``reference.extension``): ``_validate``,
    and the variation points ``_lookup_reference``, ``_tag_matches``, ``_accept_payload``.
    """

    def __init__(self, budget: int, *, variant: Variant = DEFAULT_VARIANT) -> None:
        super().__init__(budget, variant)

    def get_and_update(self, item: WireItem) -> TensorTree:
        """One item, vLLM's per-item step; raises the miss error if it cannot be served."""
        sizes = self._validate((item,))
        kept = self._kept((item,), sizes)
        with self._lock:
            payload = self._resolve_one(item, sizes[0], kept[0])
        if payload is None:
            raise self.miss_error((item.identity,))
        return payload

    def resolve(self, items: Sequence[WireItem]) -> Resolution:
        """Resolve one request's items (touch all, then per item); see the module docstring.

        The whole input is validated (and payloads sized) once, before anything changes; then
        one lock acquisition covers the whole request.
        """
        if type(items) is not tuple:
            items = cast("tuple[WireItem, ...]", as_collection("wire items", items))
        sizes = self._validate(items)
        count = len(items)
        kept = self._kept(items, sizes) if sizes.count(0) != count else ()
        with self._lock:
            touch = self._lru.touch
            for item in items:
                touch(item.identity)
            if sizes.count(0) == count:  # all references (the hit path): request order
                served = list(map(self._lookup_reference, items))
            else:
                served = [None] * count
                resolve_one = self._resolve_one
                for index in self._order(items, sizes):
                    served[index] = resolve_one(items[index], sizes[index], kept[index])
        if None not in served:
            return Resolution(tuple([
                _new_input(ModelInput, (item[0], payload, item[2]))
                for item, payload in zip(items, served, strict=True)
            ]), ())
        inputs = tuple(
            _new_input(ModelInput, (item.identity, payload, item.placeholders))
            for item, payload in zip(items, served, strict=True) if payload is not None
        )
        missed = tuple(
            item.identity for item, payload in zip(items, served, strict=True) if payload is None
        )
        return Resolution(inputs, missed)

    def _order(self, items: tuple[WireItem, ...], sizes: list[int]) -> Sequence[int]:
        """``resolution_order``, without building the partition when it is the identity
        (references are the items of size 0: a payload is charged at least 1 byte)."""
        references = sizes.count(0)
        if references in (0, len(items)) or not self._variant.references_first:
            return range(len(items))
        return ordered(self._variant, [item.payload is None for item in items])

    def miss_error(self, identities: Sequence[str], request_id: int | None = None) -> CacheError:
        """The error for these missed identities: retryable, or V0's assertion."""
        identities = check_identities(identities)
        if request_id is not None and (type(request_id) is not int):
            check_request_id(request_id)
        if not self._variant.recovers:
            return ReceiverCacheAssertionError(identities)
        return MultiModalCacheMissError(identities, request_id=request_id)

    def _validate(self, items: tuple[WireItem, ...]) -> list[int]:
        """Check every item in one pass; return each payload's charge (0 for references).

        The common case costs a few ``type() is`` tests per item; anything unusual goes
        through the full checks, which raise the clear error. An extension point: charges
        of a subclass's own, in a plain list, get their payloads prepared again (``_kept``).
        """
        tagged = self._variant.tagged
        sizes = _Sizes()
        kept: list[TensorTree | None] = []
        sizes.kept = kept
        seen: set[str] = set()
        budget = self._lru.budget
        for item in items:
            if type(item) is not WireItem:
                check_exact("wire item", item, WireItem)
            identity, payload, placeholders, tag = item
            if type(identity) is not str or not identity:
                check_identity(identity)
            if type(placeholders) is not Placeholders:
                check_exact(f"placeholders of {short(identity)!r}", placeholders, Placeholders)
            if not (type(tag) is int and 0 <= tag < _TAG_LIMIT if tagged else tag is None):
                check_tag(tag, tagged, identity)
            seen.add(identity)
            if payload is None:
                sizes.append(0)
                kept.append(None)
            else:
                frozen, charge = prepare_payload(payload, budget)
                sizes.append(charge)
                kept.append(frozen)
        if len(seen) != len(items):
            check_identities([item.identity for item in items])
        return sizes

    def _kept(self, items: tuple[WireItem, ...], sizes: list[int]) -> list[TensorTree | None]:
        """The payloads ``_validate`` prepared; prepared again for a subclass whose
        ``_validate`` returned sizes of its own (a mutant resizing items)."""
        kept = getattr(sizes, "kept", None)
        if kept is not None:
            return kept  # type: ignore[no-any-return]
        budget = self._lru.budget
        return [None if item.payload is None else prepare_payload(item.payload, budget)[0]
                for item in items]

    # Variation points: each knob of ``Variant`` is read by exactly one method below.

    def _resolve_one(self, item: WireItem, size: int,
                     kept: TensorTree | None) -> TensorTree | None:
        if kept is None:
            return self._lookup_reference(item)
        return self._accept_payload(item, kept, size)

    def _lookup_reference(self, item: WireItem) -> TensorTree | None:
        """The payload a reference is served: its entry's if the tag matches and the tensors
        are unedited; else None, a miss (an edited entry is dropped)."""
        entry = self._lru.get(item.identity)
        if entry is None:
            return None
        if not self._tag_matches(entry, item.tag):
            self._lru.count_as_miss()  # found, but not the processing named: a miss
            return None
        if sum(map(_version_of, entry.leaves)) != entry.stamp:  # entry.edited(), inlined:
            # served, then edited in place: never serve it again
            self._lru.pop(item.identity)
            self._lru.count_as_miss()
            return None
        return entry.payload

    def _tag_matches(self, entry: ReceiverEntry, tag: int | None) -> bool:
        """Whether ``entry`` carries a reference's ``tag`` (always, in untagged variants)."""
        return not self._variant.tagged or entry.tag == tag

    def _accept_payload(self, item: WireItem, payload: TensorTree, size: int) -> TensorTree:
        """The payload a payload item is served, cached if it fits: the item's (the payload
        wins), or an unedited cached entry's (the cache wins). ``payload`` is the one
        ``_validate`` prepared (validated, compact, frozen)."""
        if not self._variant.payload_wins:
            cached = self._lru.get(item.identity)
            if cached is not None and not cached.edited():
                return cached.payload
        self._lru.put_entry(item.identity, ReceiverEntry.of(payload, item.tag), size,
                           entry_nodes(payload) + identity_nodes(item.identity))
        return payload

    def _check_entry(self, identity: str, entry: ReceiverEntry) -> None:
        """Entries hold payloads whose tensors were not edited and whose charge is recorded."""
        super()._check_entry(identity, entry)
        if entry.edited():
            raise InvariantViolationError(
                f"got a tensor of {short(identity)!r} edited in place after caching, expected the "
                "cached tensors unchanged"
            )
        recorded = self._lru.size_of(identity)
        charge = entry_charge(tree_nbytes(entry.payload))
        if recorded != charge:
            raise InvariantViolationError(
                f"got {charge} bytes in the tensors of {short(identity)!r}, expected its recorded "
                f"charge {recorded}"
            )
