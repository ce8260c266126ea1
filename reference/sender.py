"""P0's sender cache: a shadow of the receiver's LRU that holds metadata only.

A shadow entry is an item's size (in the LRU), its placeholders and, in tagged variants, the
tag of the processing it describes. It never holds tensors. A hit means "P1 should still hold
this item": P0 then sends a reference (``payload=None``) with the cached placeholders and tag.

Thread safety: the front end serves requests from several threads, and one update is a
sequence of LRU steps (touch, get, evict, insert) that keep an order, a size map and a byte
total in step. Interleaved without a lock they corrupt each other (D6: lost entries, a byte
total that no longer matches, eviction of a key that another thread just removed). Every
public method therefore holds ``_lock`` while it reads or changes the LRU, so that each call
is atomic.

No user code under the lock: V3's late-miss reprocessing (a probed hit the shadow lost by the
update) runs the processor with the lock released, then takes the lock again and looks
afresh. What changed meanwhile is met as the spec's late miss is: a hit lost meanwhile is
processed in the next round (each round processes at least one more item, so the rounds are
at most one per item), an identity recorded meanwhile is now a hit and is sent as a reference
to that entry. The processor may take seconds or call back into the cache or the front end.
(A variant that reprocesses late misses but resolves in request order, which none of V0-V3
does, can also lose a hit to the request's own inserts; that late miss is met mid-update and
processed there, under the lock.)

Failure atomicity: ``update`` validates its whole input, and processes every late miss before
it touches anything (V3: with references first, the late misses are exactly the probed hits
absent when the lock is taken). A processor that raises, or returns something that is not a
``ProcessedItem``, therefore leaves the shadow exactly as it was.

Cost: one lock acquisition per call (``update`` covers a whole request; one more per round
of late-miss processing); the per-item hit path (``in``, ``touch``, ``get_and_update``)
validates with ``type() is`` tests and builds nothing but the wire item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from reference._validate import (
    as_collection,
    check_exact,
    check_identities,
    check_identity,
    check_instance,
    check_tag,
    is_async_callable,
)
from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    MissingMediaError,
    SenderCacheAssertionError,
    describe,
    short,
    short_list,
)
from reference.guarded import GuardedCache
from reference.items import Placeholders, ProcessedItem, Processor, run_processor, tree_nbytes
from reference.lru import ByteLru, identity_nodes
from reference.messages import Outgoing, RequestItem, WireItem
from reference.tags import TagSource
from reference.variants import DEFAULT_VARIANT, Variant, ordered

__all__ = ["SenderCache", "ShadowEntry"]

_new_tuple = tuple.__new__  # WireItem/Outgoing(...) without the Python-level __new__ frame


@dataclass(frozen=True, slots=True)
class ShadowEntry:
    """What P0 remembers of an item it sent: its placeholders and (tagged) its tag."""

    placeholders: Placeholders
    tag: int | None


class SenderCache(GuardedCache[ShadowEntry]):
    """The shadow (P0). ``budget`` in bytes, as P1's; ``tags`` defaults to a random nonce.

    Extension points (hooks a subclass may override, ``reference.extension``): ``_update_one``,
    ``_record``, ``_new_tag``, ``_late_miss``, ``_reject_unprocessable_late_misses`` and
    ``_bypasses_shadow``, among the variation points below.
    """

    def __init__(
        self,
        budget: int,
        *,
        variant: Variant = DEFAULT_VARIANT,
        tags: TagSource | None = None,
    ) -> None:
        if tags is not None:
            check_exact("tags", tags, TagSource)
        super().__init__(budget, variant)
        self._tags = tags if tags is not None else TagSource()
        self._checked_process: object = None

    @property
    def tags(self) -> TagSource:
        """The source this sender draws its tags from."""
        return self._tags

    def probe(self, identities: Iterable[str]) -> frozenset[str]:
        """The identities (of one request) that the shadow holds; nothing is reordered."""
        if type(identities) is list and len(identities) == 1 and (
                type(identities[0]) is str and identities[0]):
            checked: Sequence[str] = identities  # the common request, checked inline
        else:
            checked = check_identities(identities)
        with self._lock:
            return self._lru.present(checked)

    def get_and_update(self, identity: str, item: ProcessedItem | None) -> WireItem:
        """One item, vLLM's per-item step: a hit gives a reference, a miss records ``item``.

        A miss with ``item`` None is a late miss: the assertion in V1/V2, a
        ``MissingMediaError`` in V3 (there is no content to reprocess here); it changes
        nothing, not even the lookup counters. One lookup is counted per call.
        """
        if type(identity) is not str or not identity:
            check_identity(identity)
        if item is not None and type(item) is not ProcessedItem:
            check_exact("item", item, ProcessedItem)
        with self._lock:
            if item is None and identity not in self._lru:
                self._late_miss(_new_tuple(Outgoing, (identity, None, None)), None)
            entry = self._lru.get(identity)
            if entry is not None:
                return self._reference(identity, entry)
            return self._record(identity, item)  # type: ignore[arg-type]  # a miss has one

    def update(
        self, outgoing: Sequence[Outgoing], process: Processor | None = None, *,
        resend: bool = False,
    ) -> tuple[WireItem, ...]:
        """P0's update for one request (its step 3, docs/protocol.md); returns the wire items.

        Touches every identity, then resolves each item (``resolution_order``): a hit becomes a
        reference; a miss records its metadata if it fits and sends its payload. ``process``
        is used for late misses in V3, before anything changes (see the module docstring).
        ``resend``: the client's resend after a miss; under V4 every item must come processed
        and is recorded afresh and sent as a payload (``record_afresh``). Atomic; one lock.
        """
        outgoing, identities = _checked_outgoing(outgoing, resend)
        if bypass := self._bypasses_shadow(resend):
            _check_all_processed(outgoing)
        if process is not None and process is not self._checked_process:
            self._checked_process = _checked_processor(process)  # once per processor
        return self._update_validated(outgoing, identities, process, bypass)

    def _update_validated(
        self, outgoing: tuple[Outgoing, ...], identities: list[str], process: Processor | None,
        bypass: bool = False,
    ) -> tuple[WireItem, ...]:
        """``update`` on validated input (``identities``: ``outgoing``'s; ``bypass``: a V4
        resend): the front end's trusted path. Takes the lock itself."""
        if bypass:
            with self._lock:
                return record_afresh(self._lru.touch, self._record, outgoing)
        stuck = False
        while True:  # ends: each round returns, or processes at least one more late miss
            with self._lock:
                lru = self._lru
                # The hit path: every item hit, references in request order. No touch pass:
                # with nothing inserted, nothing is evicted, and the gets in request order
                # leave the LRU order that "touch all, then get each" leaves.
                entries = lru.get_all(identities)
                if entries is not None:
                    return _references(self, outgoing, identities, entries, process)
                present = list(map(lru.__contains__, identities))
                late = frozenset([each.identity for each, held in zip(
                    outgoing, present, strict=True) if not held and each.item is None])
                if not late or stuck or not self._variant.late_miss_reprocess:
                    return self._resolve(outgoing, present, process)
                self._reject_unprocessable_late_misses(outgoing, process)
            # The processor is user code: run it outside the lock (it may take seconds, or
            # call back into this cache), then look again: what changed meanwhile is met
            # as the spec's late miss is (a hit lost meanwhile is processed in the next
            # round; an item recorded meanwhile is now a hit, sent as a reference).
            processed = self._reprocess_late_misses(outgoing, late, process)
            stuck = processed is outgoing  # nothing processed: resolve as things are
            outgoing = processed

    def _resolve(
        self, outgoing: tuple[Outgoing, ...], present: list[bool], process: Processor | None
    ) -> tuple[WireItem, ...]:
        """Touch every identity, then resolve each item (``resolution_order``); the caller
        holds the lock and has processed every late miss it could."""
        update_one = self._update_one
        touch = self._lru.touch
        for each in outgoing:
            touch(each.identity)
        if not self._variant.references_first or not any(present):
            return tuple([update_one(each, process) for each in outgoing])
        wire: list[WireItem | None] = [None] * len(outgoing)
        for index in ordered(self._variant, present):
            wire[index] = update_one(outgoing[index], process)
        return tuple(wire)  # type: ignore[arg-type]  # every index was resolved

    def invalidate(self, identities: Iterable[str]) -> int:
        """Drop exactly these identities (absent ones are ignored); return how many were held."""
        checked = check_identities(identities)
        with self._lock:
            return self._invalidate_locked(checked)

    # The front end's trusted path: it shares this cache's lock (``FrontEnd``), validates at
    # its own boundary, and calls these with the lock held. Each is what the public method of
    # the same name does inside its lock, on input already checked.

    def _invalidate_locked(self, identities: Sequence[str]) -> int:
        pop = self._lru.pop
        return sum(pop(identity) is not None for identity in identities)

    def _references_locked(
        self, items: Sequence[RequestItem], process: Processor | None
    ) -> tuple[WireItem, ...] | None:
        """``update``'s hit path for a request of these (checked) items, none processed: the
        wire items if every identity is still held (each made most recent, in request order,
        and counted a hit), else None and nothing changed."""
        if len(items) == 1:
            identity = items[0].identity
            entries = self._lru.get_all([identity])
            if entries is None:
                return None
            entry = entries[0]
            if entry is not None:
                return (_new_tuple(WireItem, (identity, None, entry.placeholders, entry.tag)),)
            identities = [identity]
        else:
            identities = [item.identity for item in items]
            entries = self._lru.get_all(identities)
            if entries is None:
                return None
        if None in entries:  # (only from an LRU whose get lost a present key: a subclass)
            outgoing = tuple([_new_tuple(Outgoing, (item.identity, None, item.content))
                              for item in items])
            return _references(self, outgoing, identities, entries, process)
        held = cast("list[ShadowEntry]", entries)
        return tuple([_new_tuple(WireItem, (identity, None, entry.placeholders, entry.tag))
                      for identity, entry in zip(identities, held, strict=True)])

    def retract(self, items: Sequence[WireItem]) -> int:
        """Drop the entries these wire items recorded (their payloads never reached P1): each
        payload item's entry if it still has the item's tag (untagged variants cannot tell and
        drop it, always safe); references are left alone. Returns how many were dropped."""
        if type(items) is not tuple:
            items = cast("tuple[WireItem, ...]", as_collection("wire items", items))
        tagged = self._variant.tagged
        _check_wire_items(items, tagged)
        with self._lock:
            return _drop_retracted(self._lru, items, tagged)

    def _retract_locked(self, items: tuple[WireItem, ...]) -> int:
        """``retract`` inside the lock (the front end's trusted path shares it): every item
        checked, then the drops."""
        _check_wire_items(items, self._variant.tagged)
        return _drop_retracted(self._lru, items, self._variant.tagged)

    def _check_entry(self, identity: str, entry: ShadowEntry) -> None:
        """Entries hold metadata only, tagged iff the variant is."""
        check_instance(f"shadow entry of {short(identity)!r}", entry, ShadowEntry)
        super()._check_entry(identity, entry)

    # Variation points: each knob of ``Variant`` is read by exactly one method below.

    def _bypasses_shadow(self, resend: bool) -> bool:
        """V4: a resend reads nothing from the shadow; under V0-V3 it is a first attempt."""
        return resend and self._variant.resends_bypass_shadow

    def _update_one(self, outgoing: Outgoing, process: Processor | None) -> WireItem:
        """One item of an update: a hit is a reference, a miss recorded (a late miss too)."""
        entry = self._lru.get(outgoing.identity)
        if entry is not None:
            return self._reference(outgoing.identity, entry)
        item = outgoing.item if outgoing.item is not None else self._late_miss(outgoing, process)
        return self._record(outgoing.identity, item)

    def _reference(self, identity: str, entry: ShadowEntry) -> WireItem:
        return _new_tuple(WireItem, (identity, None, entry.placeholders, entry.tag))

    def _record(self, identity: str, item: ProcessedItem) -> WireItem:
        """Record ``item``'s charge, placeholders and a new tag; its wire item, a payload."""
        tag = self._new_tag()
        self._lru.put_entry(identity, ShadowEntry(item.placeholders, tag), item.nbytes,
                           item.nodes + identity_nodes(identity))
        return _new_tuple(WireItem, (identity, item.payload, item.placeholders, tag))

    def _new_tag(self) -> int | None:
        """The tag of a new record: the tag source's next (tagged variants), else None."""
        return self._tags.next() if self._variant.tagged else None

    def _late_miss(self, outgoing: Outgoing, process: Processor | None) -> ProcessedItem:
        """Hit at probe time, gone now: reprocess (V3) or the P0-side assertion (V1/V2)."""
        if not self._variant.late_miss_reprocess:
            raise SenderCacheAssertionError(outgoing.identity)
        if outgoing.content is None:
            raise MissingMediaError([outgoing.identity])
        if process is None:
            raise _no_processor([outgoing.identity])
        return run_processor(process, outgoing.content)

    def _reject_unprocessable_late_misses(
        self, outgoing: Sequence[Outgoing], process: Processor | None
    ) -> None:
        """V3: raise, before any change, if a late miss cannot be reprocessed."""
        if self._variant.late_miss_reprocess:  # V3 only; the others assert at update
            _reject_unprocessable_late_misses(outgoing, self._lru, process)

    def _reprocess_late_misses(
        self, outgoing: tuple[Outgoing, ...], late: frozenset[str], process: Processor | None
    ) -> tuple[Outgoing, ...]:
        """V3: process the late misses ``late`` (probed hits the shadow no longer holds),
        without the lock; returns ``outgoing`` with their processed items. A raise changes
        nothing. ``outgoing`` itself if there is nothing to process."""
        if not self._variant.late_miss_reprocess or process is None or not late:
            return outgoing
        late_miss = self._late_miss  # the one method that reads the knob
        return tuple([
            Outgoing(o.identity, late_miss(o, process), o.content) if o.identity in late else o
            for o in outgoing
        ])


def _references(
    cache: SenderCache, outgoing: tuple[Outgoing, ...], identities: list[str],
    entries: list[ShadowEntry | None], process: Processor | None,
) -> tuple[WireItem, ...]:
    """The hit path's wire items, from the entries ``get_all`` returned (the lock held)."""
    if len(entries) == 1 and entries[0] is not None:
        entry = entries[0]
        return (_new_tuple(WireItem, (identities[0], None, entry.placeholders, entry.tag)),)
    return tuple([  # (None only from an LRU whose get lost a present key: a subclass)
        _new_tuple(WireItem, (each[0], None, entry.placeholders, entry.tag))
        if entry is not None else cache._update_one(each, process)
        for each, entry in zip(outgoing, entries, strict=True)
    ])


def _validate_outgoing(outgoing: tuple[Outgoing, ...]) -> list[str]:
    """Every element an ``Outgoing`` with a valid identity and item, no identity twice;
    returns the identities, in order."""
    identities: list[str] = []
    for each in outgoing:
        if type(each) is not Outgoing:
            check_exact("outgoing item", each, Outgoing)
        identity, item, _ = each
        if type(identity) is not str or not identity:
            check_identity(identity)
        if item is not None and type(item) is not ProcessedItem:
            check_exact("item", item, ProcessedItem)
        identities.append(identity)
    if len(identities) > 1 and len(set(identities)) != len(identities):
        check_identities(identities)
    return identities


def _checked_outgoing(outgoing: Sequence[Outgoing], resend: object
                      ) -> tuple[tuple[Outgoing, ...], list[str]]:
    """``update``'s arguments checked: the outgoing items as a tuple, and their identities."""
    if type(resend) is not bool:
        raise BadInputTypeError(f"got resend {describe(resend)}, expected a bool")
    if type(outgoing) is not tuple:
        outgoing = cast("tuple[Outgoing, ...]", as_collection("outgoing items", outgoing))
    if len(outgoing) == 1 and type(outgoing[0]) is Outgoing and outgoing[0][1] is None and (
            type(outgoing[0][0]) is str and outgoing[0][0]) and not resend:
        return outgoing, [outgoing[0][0]]  # the common request (one probed hit), inline
    return outgoing, _validate_outgoing(outgoing)


def record_afresh(touch: Callable[[str], object],
                  insert: Callable[[str, ProcessedItem], WireItem],
                  outgoing: tuple[Outgoing, ...]) -> tuple[WireItem, ...]:
    """A V4 resend's update: touch every identity (as every update does, so that the
    request's own inserts evict what it does not name first), then record each item afresh
    and send its payload, in request order (P1's order for payloads). A held entry is
    replaced, not read: its tag and placeholders are the new ones."""
    for each in outgoing:
        touch(each.identity)
    return tuple([insert(each.identity, cast(ProcessedItem, each.item))  # checked: processed
                  for each in outgoing])


def _checked_processor(process: object) -> object:
    """``process`` if it is a plain (not async) callable, else a clear error."""
    if not callable(process) or is_async_callable(process):
        raise BadInputTypeError(
            f"got process {describe(process)}, expected None or a plain (not async) "
            "callable content -> ProcessedItem"
        )
    return process


def _check_all_processed(outgoing: tuple[Outgoing, ...]) -> None:
    """A V4 resend reads nothing from the shadow: every item must come processed."""
    unprocessed = [each.identity for each in outgoing if each.item is None]
    if unprocessed:
        raise BadInputValueError(
            f"got resend items {short_list(unprocessed)} ({len(unprocessed)}) without a "
            "processed item, expected every item of a resend processed (it reads nothing "
            "from the shadow)"
        )


def _no_processor(identities: list[str]) -> BadInputValueError:
    return BadInputValueError(
        f"got late misses {short_list(identities)} and no processor, "
        "expected a processor to reprocess them"
    )


def _check_wire_items(items: tuple[WireItem, ...], tagged: bool) -> None:
    for item in items:
        _check_wire_item(item, tagged)


def _check_wire_item(item: object, tagged: bool) -> None:
    """A wire item as ``update`` builds them: a plain ``WireItem``, a valid identity, a
    payload that is None or a valid payload, ``Placeholders``, a tag as the variant has
    them (``retract`` drops entries on its word, so a garbage item must not pass)."""
    if type(item) is not WireItem:
        check_exact("wire item", item, WireItem)
    identity, payload, placeholders, tag = cast("WireItem", item)
    if type(identity) is not str or not identity:
        check_identity(identity)
    if type(placeholders) is not Placeholders:
        check_exact(f"placeholders of {short(identity)!r}", placeholders, Placeholders)
    check_tag(tag, tagged, identity)
    if payload is not None:
        tree_nbytes(payload)


def _drop_retracted(
    lru: ByteLru[str, ShadowEntry], items: tuple[WireItem, ...], tagged: bool
) -> int:
    """``retract``'s drops, the lock held: each payload item's entry if it is still the one
    the item recorded (untagged: whatever is held); returns how many were dropped."""
    dropped = 0
    for item in items:
        if item.payload is None:
            continue
        entry = lru.peek(item.identity)
        if entry is not None and (not tagged or entry.tag == item.tag):
            lru.pop(item.identity)
            dropped += 1
    return dropped


def _reject_unprocessable_late_misses(
    outgoing: Sequence[Outgoing], lru: ByteLru[str, ShadowEntry], process: Processor | None
) -> None:
    """V3, the lock held: a late miss that cannot be reprocessed fails the request before
    any change."""
    late = [o for o in outgoing if o.item is None and o.identity not in lru]
    uuid_only = [o.identity for o in late if o.content is None]
    if uuid_only:
        raise MissingMediaError(uuid_only)
    if late and process is None:
        raise _no_processor([o.identity for o in late])
