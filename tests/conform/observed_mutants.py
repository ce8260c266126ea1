"""An independent set of single-change mutants of the reference for the observations a
lockstep step compares beyond the caches' contents: the identities a rejection names, the
processor calls a step makes, what a rejected call leaves behind, and sizes in bytes.

None is one of the other sets' (the registry's, `model_checks.mutation.registry`, or
`serving_mutants`, `client_mutants`). `observed_mutant_<name>` factories serve `--adapter`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from model_checks.mutant_run.factory import (
    ImplMutant,
    adapter_factories,
    impl_mutant,
    mutant_named,
    receiver_lru_mutant,
    receiver_mutant,
    sender_lru_mutant,
    sender_mutant,
)
from reference import (
    Engine,
    FrontEnd,
    MissingMediaError,
    Outgoing,
    ReceiverCache,
    SenderCache,
    ShadowEntry,
    WireItem,
)
from reference.lru import ByteLru
from reference.variants import ordered


class NoLateMissPreCheck(SenderCache):
    """V3's check that rejects unprocessable late misses before any change is gone: the
    processor runs on the reprocessable ones first, and the rejection names one identity."""

    def _reject_unprocessable_late_misses(self, outgoing: Sequence[Outgoing],
                                          process: Any) -> None:
        return None


class ProbeHitsEverything(SenderCache):
    """The probe says every identity is held."""

    def probe(self, identities: Iterable[str]) -> frozenset[str]:
        return frozenset(identities)


class ProbeFirstOnly(SenderCache):
    """The probe looks at the first identity of the request only."""

    def probe(self, identities: Iterable[str]) -> frozenset[str]:
        listed = list(identities)
        return super().probe(listed[:1]) if listed else frozenset()


class InvalidateKeepsLast(SenderCache):
    """A miss reply drops every listed identity but the last."""

    def invalidate(self, identities: Iterable[str]) -> int:
        listed = list(identities)
        return super().invalidate(listed[:-1]) if len(listed) > 1 else 0


class InvalidateNeedsTwo(SenderCache):
    """A miss reply naming one identity drops nothing."""

    def invalidate(self, identities: Iterable[str]) -> int:
        listed = list(identities)
        return super().invalidate(listed) if len(listed) > 1 else 0


def _keeping_most_recent(cls: type[Any]) -> type[Any]:
    class ClearKeepsMostRecent(cls):  # type: ignore[misc]
        """A clear keeps the most recent entry."""

        def clear(self) -> None:
            with self._lock:
                keep = list(self._lru.items())[-1:]
                sizes = dict(self._lru.entries())
                self._lru.clear()
                for identity, entry in keep:
                    self._lru.put(identity, entry, sizes[identity])

    return ClearKeepsMostRecent


class TouchesInReverse(SenderCache):
    """The update touches the request's identities in reverse order."""

    def _resolve(self, outgoing: tuple[Outgoing, ...], present: list[bool],
                 process: Any) -> Any:
        for each in reversed(outgoing):
            self._lru.touch(each.identity)
        wire = [self._update_one(each, process) for each in outgoing] if (
            not self._variant.references_first or not any(present)) else None
        if wire is not None:
            return tuple(wire)
        result: list[Any] = [None] * len(outgoing)
        for index in ordered(self._variant, present):
            result[index] = self._update_one(outgoing[index], process)
        return tuple(result)


class PayloadsFirst(SenderCache):
    """V3's update resolves the payloads before the references."""

    def _resolve(self, outgoing: tuple[Outgoing, ...], present: list[bool],
                 process: Any) -> Any:
        for each in outgoing:
            self._lru.touch(each.identity)
        result: list[Any] = [None] * len(outgoing)
        for index in [i for i, p in enumerate(present) if not p] + [
                i for i, p in enumerate(present) if p]:
            result[index] = self._update_one(outgoing[index], process)
        return tuple(result)


class SizeOffByOne(SenderCache):
    """The shadow records one byte more than the processed item has."""

    def _record(self, identity: str, item: Any) -> Any:
        tag = self._new_tag()
        self._lru.put_entry(identity, ShadowEntry(item.placeholders, tag), item.nbytes + 1,
                            item.nodes)
        return WireItem(identity, item.payload, item.placeholders, tag)


class RejectsUuidOnlyHits(FrontEnd):
    """A request with any UUID-only item is rejected, even where P0 holds it."""

    def probe(self, request: Any) -> Any:
        uuid_only = [i.identity for i in request.items if i.uuid_only]
        if uuid_only:
            raise MissingMediaError(uuid_only)
        return super().probe(request)


class EvictsMostRecent(ByteLru[Any, Any]):
    """Eviction takes the most recent entry instead of the least recent."""

    def _evict_one(self) -> None:
        key, _ = self._order.popitem(last=True)
        self._bytes_in_use -= self._sizes.pop(key)
        self._nodes_in_use -= self._nodes.pop(key, 0)


class OversizeKeepsOld(ByteLru[Any, Any]):
    """An item over the budget is refused before the old entry is dropped."""

    def _insert(self, key: Any, value: Any, size: int, nodes: int) -> bool:
        if size > self._budget:
            return False
        return super()._insert(key, value, size, nodes)


class CachesOversize(ByteLru[Any, Any]):
    """An item over the budget is cached anyway, after evicting everything else."""

    def _insert(self, key: Any, value: Any, size: int, nodes: int) -> bool:
        if size <= self._budget:
            return super()._insert(key, value, size, nodes)
        self._drop_existing(key)
        while self._order:
            self._evict_one()
        self._order[key], self._sizes[key], self._nodes[key] = value, size, nodes
        self._bytes_in_use += size
        self._nodes_in_use += nodes
        return True


class ReferencesFirstAlways(ReceiverCache):
    """P1 resolves references before payloads in every variant (V3's order in V0-V2)."""

    def _order(self, items: tuple[WireItem, ...], sizes: list[int]) -> Sequence[int]:
        return [i for i, s in enumerate(sizes) if s == 0] + [
            i for i, s in enumerate(sizes) if s != 0]


class ServesReferenceOnce(ReceiverCache):
    """A cached entry served for a reference is dropped afterwards."""

    def _lookup_reference(self, item: WireItem) -> Any:
        payload = super()._lookup_reference(item)
        if payload is not None:
            self._lru.pop(item.identity)
        return payload


class ReturnsOldAfterReplace(ReceiverCache):
    """A payload replacing a cached entry is cached, but the old tensors are used."""

    def _accept_payload(self, item: WireItem, payload: Any, size: int) -> Any:
        old = self._lru.peek(item.identity)
        kept = super()._accept_payload(item, payload, size)
        return old.payload if old is not None else kept


class EngineServesPartial(Engine):
    """A request with missed items is served with the items that did not miss."""

    def receive(self, message: Any) -> Any:
        return self._receiver.resolve(message.items).inputs


def _one_short(cls: type[Any]) -> type[Any]:
    class OneShort(cls):  # type: ignore[misc]
        """The cache is built with one byte less than the budget."""

        def __init__(self, budget: int, **kwargs: Any) -> None:
            super().__init__(max(budget - 1, 1), **kwargs)

    return OneShort


OBSERVED_MUTANTS: tuple[ImplMutant, ...] = (
    sender_mutant("p0-late-miss-pre-check-dropped", "V3",
                  "unprocessable late misses are found one by one, after processing",
                  NoLateMissPreCheck),
    sender_mutant("p0-probe-hits-everything", "V3", "the probe says every identity is held",
                  ProbeHitsEverything),
    sender_mutant("p0-probe-first-only", "V2", "the probe looks at the first identity only",
                  ProbeFirstOnly),
    sender_mutant("p0-invalidate-keeps-last", "V3",
                  "a miss reply drops every identity but the last", InvalidateKeepsLast),
    sender_mutant("p0-invalidate-needs-two", "V3", "a miss of one identity drops nothing",
                  InvalidateNeedsTwo),
    sender_mutant("p0-clear-keeps-most-recent", "V3", "P0's clear keeps its newest entry",
                  _keeping_most_recent(SenderCache)),
    sender_mutant("p0-touches-in-reverse", "V2", "P0 touches a request's items in reverse",
                  TouchesInReverse),
    sender_mutant("p0-payloads-first", "V3", "V3's P0 resolves payloads before references",
                  PayloadsFirst),
    sender_mutant("p0-size-off-by-one", "V3", "P0 records one byte more than the item has",
                  SizeOffByOne),
    impl_mutant("p0-rejects-uuid-only-hits", "V3", "UUID-only items are rejected even as hits",
                front_end=RejectsUuidOnlyHits),
    sender_lru_mutant("p0-evicts-most-recent", "V2", "P0 evicts its most recent entry",
                      EvictsMostRecent),
    sender_lru_mutant("p0-caches-oversize", "V3", "P0 records an item over the budget",
                      CachesOversize),
    sender_mutant("p0-budget-one-short", "V3", "P0's shadow is built one byte short",
                  _one_short(SenderCache)),
    receiver_lru_mutant("p1-oversize-keeps-old", "V2",
                        "P1 refuses an oversize payload, keeping the old", OversizeKeepsOld),
    receiver_lru_mutant("p1-caches-oversize", "V3", "P1 caches an item over the budget",
                        CachesOversize),
    receiver_mutant("p1-clear-keeps-most-recent", "V3", "P1's clear keeps its newest entry",
                    _keeping_most_recent(ReceiverCache)),
    receiver_mutant("p1-references-first-always", "V2", "V2's P1 resolves references first",
                    ReferencesFirstAlways),
    receiver_mutant("p1-serves-reference-once", "V3", "P1 drops an entry once it served it",
                    ServesReferenceOnce),
    receiver_mutant("p1-returns-old-after-replace", "V2",
                    "P1 caches a replacing payload but uses the old tensors",
                    ReturnsOldAfterReplace),
    receiver_mutant("p1-budget-one-short", "V3", "P1's cache is built one byte short",
                    _one_short(ReceiverCache)),
    impl_mutant("engine-serves-partial", "V3", "a request with misses is served partially",
                engine=EngineServesPartial),
)


def by_name(name: str) -> ImplMutant:
    return mutant_named(OBSERVED_MUTANTS, name)


__getattr__ = adapter_factories(__name__, "observed_mutant_", OBSERVED_MUTANTS)
"""`observed_mutant_<name>` factories, one per mutant, for `--adapter module:factory`."""
