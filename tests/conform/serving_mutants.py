"""A third, independent set of single-change mutants of the reference implementation, aimed at
what the first two sets left out: the other cache's copy of an LRU slip (P0 where the
independent set mutated P1, and the reverse), the exact-fit boundary of "cache if fits",
recency moved the wrong way, tags that stop naming a processing, a front end that processes
more than its misses, a success reply that invalidates, `serve`'s own handling of a miss
(caught since conformance also drives the implementation's end-to-end call, `EndToEnd`), and
a lock removed from one method, which sequential lockstep cannot see (`KILLED_BY_THREADS`: the
threaded history check kills it).

None is a mutant of the registry (`model_checks.mutation.registry`); each is a subclass
changing one method by one decision (reference/ is never edited). `BLIND` names the ones
conformance cannot reach, each with the reason;
`tests/conform/test_conform_serving_mutants.py` measures the rate.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, TypeVar

from model_checks.conform import adapter as api
from model_checks.conform.reference_adapter import ReferenceAdapter, ReferenceFrontEnd
from model_checks.mutant_run.factory import (
    ImplMutant,
    impl_mutant,
    receiver_lru_mutant,
    receiver_mutant,
    sender_lru_mutant,
    sender_mutant,
)
from model_checks.mutant_run.slip_mutants import (
    ClearKeepsBytes,
    EvictsUntilStrictlyBelow,
    TouchDoesNothing,
)
from reference import (
    Engine,
    FrontEnd,
    MissingMediaError,
    MultiModalCacheMissError,
    ReceiverCache,
    Reply,
    SenderCache,
)
from reference.lru import ByteLru
from reference.receiver import ReceiverEntry
from reference.sender import ShadowEntry

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


# -- the LRU ---------------------------------------------------------------------------------


class RefusesExactBudget(ByteLru[K, V]):
    """"Cache if fits" read as strictly smaller: an item of exactly the budget is refused."""

    def put(self, key: K, value: V, size: int) -> bool:
        if size == self._budget:
            self._drop_existing(key)
            self._oversize += 1
            return False
        return super().put(key, value, size)


class TouchMakesLeastRecent(ByteLru[K, V]):
    """`touch` moves the key to the wrong end (least recent)."""

    def touch(self, key: K) -> bool:
        if key not in self._order:
            return False
        self._order.move_to_end(key, last=False)
        return True


class GetMakesLeastRecent(ByteLru[K, V]):
    """A hit by `get` moves the entry to the wrong end (least recent)."""

    def get(self, key: K) -> V | None:
        value = self._order.get(key)
        if value is None:
            return None
        self._order.move_to_end(key, last=False)
        return value


class EvictsTwo(ByteLru[K, V]):
    """Each eviction step drops the two least recent entries (a loop body run twice)."""

    def _evict_one(self) -> None:
        super()._evict_one()
        if self._order:
            super()._evict_one()


class EvictsBeforeDroppingOld(ByteLru[K, V]):
    """A replacement evicts for the new size before dropping the old entry (the old bytes
    still count, so a replacement can evict others needlessly)."""

    def put(self, key: K, value: V, size: int) -> bool:
        if key in self._order and size <= self._budget:
            while self._bytes_in_use + size > self._budget and len(self._order) > 1:
                oldest = next(iter(self._order))
                if oldest == key:
                    break
                self._evict_one()
        return super().put(key, value, size)


# -- the sender (P0) -------------------------------------------------------------------------


class ConstantTag(SenderCache):
    """Every processing gets the same tag (the counter is never advanced)."""

    def _new_tag(self) -> int | None:
        return 7 if self._variant.tagged else None


class ReferenceWithoutTag(SenderCache):
    """A reference is sent without the tag of the entry it trusts."""

    def _reference(self, identity: str, entry: ShadowEntry) -> Any:
        return super()._reference(identity, ShadowEntry(entry.placeholders, 0))


class ProcessesHits(FrontEnd):
    """The front end runs the processor on every item, hits included (the results of the
    hits are thrown away: only the cost shows)."""

    def probe(self, request: Any) -> Any:
        probed = super().probe(request)
        for item in request.items:
            if item.identity in probed.hits and item.content is not None:
                self.processor(item.content)
        return probed


class RejectionNamesEveryUuid(FrontEnd):
    """A request rejected for a UUID-only miss names every UUID-only item, hits included."""

    def probe(self, request: Any) -> Any:
        try:
            return super().probe(request)
        except MissingMediaError:
            raise MissingMediaError([i.identity for i in request.items if i.uuid_only]) from None

    def probe_shadow(self, request: Any) -> frozenset[str]:
        try:
            return super().probe_shadow(request)
        except MissingMediaError:
            raise MissingMediaError([i.identity for i in request.items if i.uuid_only]) from None


class SuccessInvalidates(FrontEnd):
    """A success reply invalidates every identity the request sent (as a miss would)."""

    def handle_reply(self, reply: Reply) -> None:
        sent = self._outstanding.get(reply.request_id, frozenset())
        super().handle_reply(reply)
        if not reply.missed:
            self._sender.invalidate(sent)


# -- the receiver (P1) -----------------------------------------------------------------------


class StoresPayloadUntagged(ReceiverCache):
    """A payload is cached with tag 0 instead of its own (V3's references then miss)."""

    def _accept_payload(self, item: Any, payload: Any, size: int) -> Any:
        kept = super()._accept_payload(item, payload, size)
        entry = self._lru.size_of(item.identity)
        if entry is not None:
            self._lru._order[item.identity] = ReceiverEntry.of(kept, 0)
        return kept


class TagMismatchDropsEntry(ReceiverCache):
    """A reference whose tag does not match drops the cached entry (V3 keeps it)."""

    def _lookup_reference(self, item: Any) -> Any:
        entry = self._lru._order.get(item.identity)
        if entry is not None and not self._tag_matches(entry, item.tag):
            self._lru.pop(item.identity)
            return None
        return super()._lookup_reference(item)


class MissListsServedToo(ReceiverCache):
    """The miss error lists every identity of the request, served ones included."""

    def resolve(self, items: Any) -> Any:
        resolution = super().resolve(items)
        if resolution.missed:
            return type(resolution)(resolution.inputs, tuple(i.identity for i in items))
        return resolution


# -- the end-to-end path and the locks (what lockstep does not drive) ---------------------------


def serve_forgetting_miss_reply(front_end: FrontEnd, engine: Engine, request: Any) -> Any:
    """`reference.pipeline.serve` with one line gone: on a miss the error reaches the client
    but the front end never gets the reply, so it keeps the missed identities."""
    message = front_end.prepare(request)
    try:
        inputs = engine.receive(message)
    except MultiModalCacheMissError:
        raise  # the reference replies first: front_end.handle_reply(Reply(id, missed))
    except BaseException:
        front_end.abandon(message.request_id)
        raise
    front_end.handle_reply(Reply(message.request_id))
    return inputs


class _ServeAdapter(ReferenceAdapter):
    """The reference, its end-to-end call replaced by the mutant's."""

    def front_end(self, setup: api.Setup, index: int) -> ReferenceFrontEnd:
        return ReferenceFrontEnd(setup, index, make=self.front_end_class,
                                 end_to_end=serve_forgetting_miss_reply)


class UnlockedInvalidate(SenderCache):
    """`invalidate` without the cache's lock (a race with `update` only shows with threads)."""

    def invalidate(self, identities: Any) -> int:
        return sum(self._lru.pop(identity) is not None for identity in identities)


SERVING_MUTANTS: tuple[ImplMutant, ...] = (
    sender_lru_mutant("p0-evicts-on-exact-fit", "V3", "P0 evicts while bytes + size >= budget",
                      EvictsUntilStrictlyBelow),
    sender_lru_mutant("p0-touch-does-nothing", "V2", "P0's LRU touch does not move the key",
                      TouchDoesNothing),
    sender_lru_mutant("p0-clear-keeps-bytes", "V3", "P0's clear leaves the byte total",
                      ClearKeepsBytes),
    sender_lru_mutant("p0-refuses-exact-budget", "V3", "P0 refuses an item of exactly the budget",
                      RefusesExactBudget),
    receiver_lru_mutant("p1-refuses-exact-budget", "V3", "P1 refuses an item of exactly the budget",
                        RefusesExactBudget),
    sender_lru_mutant("p0-touch-makes-least-recent", "V2",
                      "P0's touch moves the key to the wrong end", TouchMakesLeastRecent),
    receiver_lru_mutant("p1-touch-makes-least-recent", "V2",
                        "P1's touch moves the key to the wrong end", TouchMakesLeastRecent),
    sender_lru_mutant("p0-get-makes-least-recent", "V2",
                      "P0's hit moves the entry to the wrong end", GetMakesLeastRecent),
    receiver_lru_mutant("p1-get-makes-least-recent", "V2",
                        "P1's hit moves the entry to the wrong end", GetMakesLeastRecent),
    sender_lru_mutant("p0-evicts-two", "V3", "P0's eviction step drops two entries", EvictsTwo),
    receiver_lru_mutant("p1-evicts-two", "V3", "P1's eviction step drops two entries", EvictsTwo),
    receiver_lru_mutant("p1-evicts-before-dropping-old", "V2",
                        "P1 evicts for a replacement before dropping the old entry",
                        EvictsBeforeDroppingOld),
    sender_mutant("p0-constant-tag", "V3", "every processing gets the same tag", ConstantTag),
    sender_mutant("p0-reference-without-tag", "V3", "a reference carries tag 0, not its entry's",
                  ReferenceWithoutTag),
    impl_mutant("front-end-processes-hits", "V3",
                "the processor runs on hits too",
                front_end=ProcessesHits),
    impl_mutant("rejection-names-every-uuid", "V3",
                "the client error names UUID-only hits too",
                front_end=RejectionNamesEveryUuid),
    impl_mutant("success-reply-invalidates", "V3",
                "a success reply invalidates an item it sent",
                front_end=SuccessInvalidates),
    receiver_mutant("p1-stores-payload-untagged", "V3", "P1 caches a payload with tag 0",
                    StoresPayloadUntagged),
    receiver_mutant("p1-tag-mismatch-drops-entry", "V3", "a mismatching reference drops P1's entry",
                    TagMismatchDropsEntry),
    receiver_mutant("p1-miss-lists-served", "V3", "the miss error lists served identities too",
                    MissListsServedToo),
    impl_mutant("serve-forgets-miss-reply", "V3",
                "serve re-raises a miss without replying",
                adapter_class=_ServeAdapter),
    sender_mutant("invalidate-unlocked", "V3", "P0's invalidate runs without the lock",
                  UnlockedInvalidate),
)

BLIND: dict[str, str] = {}
"""Mutants conformance cannot reach by construction, and why (its blind spots, not
equivalent mutants)."""

KILLED_BY_THREADS: tuple[str, ...] = ("invalidate-unlocked",)
"""Mutants lockstep (one method at a time, one thread) cannot reach and the threaded history
check kills (`conform --threads`; tests/history/test_history_threads.py)."""
