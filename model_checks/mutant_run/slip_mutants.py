"""The classes of the reference implementation's slip mutants: an independent set of
single-change mutants, to measure what conformance alone catches (the target: at least 20
mutants, at least 95 % killed).

None of them is one of the history's mutants (`history_mutants`, the bugs each named by the
check it motivated). These are the slips an implementer makes: one changed comparison, one
forgotten line, one wrong size, one call to the wrong method. Each is a subclass of a
reference class (reference/ is never edited) changing exactly one method by one decision,
built through the reference's declared seams (public methods, and the hooks and functions of
`reference.extension`). The registry (`model_checks.mutation.registry`) names each, its base,
its slip and where its class goes, and for those conformance cannot catch (no observation can
tell them from the reference) the argument (also in docs/conformance.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import torch

from model_checks.conform import adapter as api
from model_checks.conform.reference_adapter import ReferenceAdapter, ReferenceFrontEnd
from reference import (
    CacheError,
    Engine,
    FrontEnd,
    MultiModalCacheMissError,
    ReceiverCache,
    Reply,
    Request,
    SenderCache,
    WireItem,
)
from reference.extension import count, lock_of, lru_of, sent_identities, set_bytes_in_use
from reference.lru import ByteLru
from reference.messages import Outgoing
from reference.sender import ShadowEntry
from reference.variants import V3, ordered

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# -- the byte-budget LRU ---------------------------------------------------------------------


class GetWithoutRefresh(ByteLru[K, V]):
    """`get` returns the value but forgets to make it most recent."""

    def get(self, key: K) -> V | None:
        value = self.peek(key)
        count(self, "misses" if value is None else "hits")
        return value


class TouchDoesNothing(ByteLru[K, V]):
    """`touch` checks the key and returns, without moving it."""

    def touch(self, key: K) -> bool:
        return key in self


class EvictsUntilStrictlyBelow(ByteLru[K, V]):
    """Off by one: evicts while `bytes + size >= budget` (an exact fit evicts one more)."""

    def put(self, key: K, value: V, size: int) -> bool:
        self._drop_existing(key)
        if size <= self.budget:
            while len(self) and self.bytes_in_use + size >= self.budget:
                self._evict_one()
        return super().put(key, value, size)  # refuses it, or records it: nothing to evict


class OversizeKeepsOld(ByteLru[K, V]):
    """A value larger than the budget is refused before the old entry is dropped."""

    def put(self, key: K, value: V, size: int) -> bool:
        if size > self.budget:
            count(self, "oversize")
            return False
        return super().put(key, value, size)


class PopKeepsBytes(ByteLru[K, V]):
    """An invalidation removes the entry but not its bytes from the total."""

    def pop(self, key: K) -> V | None:
        held = self.bytes_in_use
        value = super().pop(key)
        set_bytes_in_use(self, held)  # the entry's bytes still counted
        return value


class ClearKeepsBytes(ByteLru[K, V]):
    """`clear` empties the maps but leaves the byte total."""

    def clear(self) -> None:
        held = self.bytes_in_use
        super().clear()
        set_bytes_in_use(self, held)


class ReplacementKeepsOldBytes(ByteLru[K, V]):
    """A replacement drops the old entry but not its bytes from the total."""

    def _drop_existing(self, key: K) -> None:
        held = self.bytes_in_use
        super()._drop_existing(key)
        set_bytes_in_use(self, held)


# -- the sender cache (P0) ----------------------------------------------------------------------


class _RecordsOtherMetadata(SenderCache):
    """The reference's `_record` with one of what it records replaced: the size (`_size`) or
    the tag (`_tag`). Each mutant below overrides one of the two."""

    def _size(self, item: Any) -> int:
        return int(item.nbytes)

    def _tag(self, identity: str) -> int | None:
        return self._new_tag()

    def _record(self, identity: str, item: Any) -> WireItem:
        tag = self._tag(identity)
        lru_of(self).put(identity, ShadowEntry(item.placeholders, tag), self._size(item))
        return WireItem(identity, item.payload, item.placeholders, tag)


class SizesByElementCount(_RecordsOtherMetadata):
    """Records an item's size as its number of elements, not its bytes."""

    def _size(self, item: Any) -> int:
        return sum(t.numel() for t in _leaves(item.payload))


class SizesByPlaceholders(_RecordsOtherMetadata):
    """Records an item's size as its placeholder length (tokens), not its bytes."""

    def _size(self, item: Any) -> int:
        return int(item.placeholders.length)


class SizesByFirstTensor(_RecordsOtherMetadata):
    """Records an item's size as the bytes of its first tensor only."""

    def _size(self, item: Any) -> int:
        return int(_leaves(item.payload)[0].nbytes)


class ProbeRefreshes(SenderCache):
    """The probe uses `get` (a lookup that reorders) instead of `in`."""

    def probe(self, identities: Iterable[str]) -> frozenset[str]:
        with lock_of(self):
            lru = lru_of(self)
            return frozenset(i for i in identities if lru.get(i) is not None)


class InvalidatesFirstOnly(SenderCache):
    """Drops only the first of the identities a miss reply lists."""

    def invalidate(self, identities: Iterable[str]) -> int:
        return super().invalidate(list(identities)[:1])


class TagPerIdentity(_RecordsOtherMetadata):
    """The tag names the identity instead of the processing: a reprocessed identity gets the
    tag it had before."""

    def _tag(self, identity: str) -> int | None:
        return zlib.crc32(identity.encode()) if self.variant.tagged else None


class LateMissAsserts(SenderCache):
    """V3's late-miss reprocessing forgotten: a probed hit gone at update time asserts."""

    def _reject_unprocessable_late_misses(self, outgoing: Sequence[Outgoing],
                                          process: Any) -> None:
        return None

    def _late_miss(self, outgoing: Outgoing, process: Any) -> Any:
        from reference import SenderCacheAssertionError

        raise SenderCacheAssertionError(outgoing.identity)


class ResendReadsShadow(SenderCache):
    """V4's resend mark ignored: a resend is probed and updated as a first attempt, so it
    still sends references for what the shadow holds."""

    def _bypasses_shadow(self, resend: bool) -> bool:
        return False


# -- the receiver cache (P1) --------------------------------------------------------------------


class IgnoresTags(ReceiverCache):
    """V3's tag check forgotten: any cached entry serves a reference."""

    def _lookup_reference(self, item: WireItem) -> Any:
        entry = lru_of(self).get(item.identity)
        return None if entry is None else entry.payload


class CacheAlwaysWins(ReceiverCache):
    """A payload for a cached identity is ignored, whatever the variant says."""

    def _accept_payload(self, item: WireItem, payload: Any, size: int) -> Any:
        cached = lru_of(self).get(item.identity)
        if cached is not None:
            return cached.payload
        return super()._accept_payload(item, payload, size)


class PayloadUsedNotCached(ReceiverCache):
    """A payload replacing a cached entry is used, the old entry dropped, the new not cached."""

    def _accept_payload(self, item: WireItem, payload: Any, size: int) -> Any:
        if self.variant.payload_wins and item.identity in lru_of(self):
            lru_of(self).pop(item.identity)
            return payload
        return super()._accept_payload(item, payload, size)


class ReportsMissesReversed(ReceiverCache):
    """The miss error lists the missed identities last first."""

    def miss_error(self, identities: Sequence[str], request_id: int | None = None) -> CacheError:
        return super().miss_error(tuple(reversed(identities)), request_id)


def _receiver_in_request_order() -> type[ReceiverCache]:
    class InRequestOrder(ReceiverCache):
        """V3's receiver resolving in request order (references_first forgotten on P1)."""

        def __init__(self, budget: int, **kwargs: Any) -> None:
            kwargs["variant"] = replace(kwargs.get("variant", V3), references_first=False)
            super().__init__(budget, **kwargs)

    return InRequestOrder


InRequestOrderReceiver = _receiver_in_request_order()


class ReferencesBeforeOwnPayload(ReceiverCache):
    """Every reference resolved before every payload, a reference to the identity whose
    payload the same request carries included: for a request naming one new identity twice
    the second item's reference is resolved before the first item's payload caches it, so it
    misses at every attempt (until a V4 resend, all payloads)."""

    def _resolution_order(self, items: tuple[WireItem, ...], sizes: list[int]
                          ) -> Sequence[int]:
        if not self.variant.references_first:
            return super()._resolution_order(items, sizes)
        return ordered(self.variant, [item.payload is None for item in items])


class EngineClearDoesNothing(Engine):
    """The engine's clear forgets to clear its cache."""

    def clear(self) -> None:
        return None


# -- the front end and the client ---------------------------------------------------------------


class InvalidatesWholeRequest(FrontEnd):
    """On a miss reply, invalidates every identity the request sent, not only the missed."""

    def handle_reply(self, reply: Reply) -> None:
        if not reply.missed:
            super().handle_reply(reply)
            return
        sent = sent_identities(self, reply.request_id)
        super().handle_reply(reply)
        self.sender.invalidate(sorted(reply.missed if sent is None else sent))


class AbandonInvalidates(FrontEnd):
    """A request rejected after its update (D2) is also dropped from the shadow: every
    identity it sent, references too. (Dropping only what its update recorded is a choice
    the spec allows, `P0HandleRejectedUndo`; dropping a reference's entry is not.)"""

    def abandon(self, request_id: int) -> None:
        sent = sent_identities(self, request_id)
        super().abandon(request_id)
        self.sender.invalidate(sorted(sent or ()))


class ClearForgetsOutstanding(FrontEnd):
    """`clear` also forgets the requests in flight: their replies are then unknown."""

    def clear(self) -> None:
        super().clear()
        for request_id in self.outstanding():
            self.abandon(request_id)


def retry_without_media(send: Callable[[Request], Any], request: Request, *,
                        max_retries: int = 3,
                        media: Mapping[str, object] | None = None) -> Any:
    """`reference.retry` with one change: the resend does not attach the media."""
    attempt = request
    for _ in range(max_retries):
        try:
            return send(attempt)
        except MultiModalCacheMissError:
            attempt = request  # the change: `request.with_media(media)` forgotten
    return send(attempt)


class RetryWithoutMediaAdapter(ReferenceAdapter):
    """The reference adapter whose front ends resend through another retry helper."""

    def front_end(self, setup: api.Setup, index: int) -> ReferenceFrontEnd:
        return ReferenceFrontEnd(setup, index, make=self.front_end_class,
                                 resend=retry_without_media)


# -- helpers -------------------------------------------------------------------------------------


def _leaves(tree: Any) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for value in tree.values():
        found.extend([value] if isinstance(value, torch.Tensor) else _leaves(value))
    return found
