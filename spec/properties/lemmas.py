"""Strengthening invariants I1-I7: what makes S1-S3 inductive for V3.

Each names the variants it is about in its statement and returns no reasons for the others
(an untagged variant has no tags to agree). `model_checks.smt.prove.invariant` encodes each one
under the same id and proves the conjunction inductive; the tests check each on every state of
random V3 walks under all drift, and on a hand-built state that violates it.
"""

from __future__ import annotations

from collections.abc import Iterator

from spec import lru
from spec.config import Config
from spec.properties.declare import Kind, state_property
from spec.state import State
from spec.variants import LruFlaw


def _all_entries(state: State) -> Iterator[tuple[str, lru.Entry]]:
    for where, cache in _caches(state):
        for slot in cache:
            if isinstance(slot, lru.Entry):
                yield where, slot


def _caches(state: State) -> Iterator[tuple[str, lru.Lru]]:
    """Every cache, named as reasons name it: each front end's shadow, each engine's P1."""
    for front_end, shadow in enumerate(state.shadows):
        yield f"shadow {front_end}", shadow
    yield "P1", state.receiver
    for engine, receiver in enumerate(state.other_receivers, start=1):
        yield f"P1 (engine {engine})", receiver


def _slots(state: State) -> tuple[lru.Slot, ...]:
    """Every slot of every cache, in `_caches` order (one tuple: the checks' fast path, read
    before any reason is worded)."""
    slots: tuple[lru.Slot, ...] = ()
    for cache in (*state.shadows, state.receiver, *state.other_receivers):
        slots += cache
    return slots


@state_property("I1", "entry tag is its processing", Kind.LEMMA, statement="""
    In tagged variants, every shadow entry and every receiver entry carries as tag the id of
    the processing it holds: tags are processing ids, and an entry is only ever written whole.""")
def entry_tag_is_processing(config: Config, state: State) -> list[str]:
    if not config.variant.tagged:
        return []
    return [
        f"{where} entry {e.identity!r} holds p{e.processing} with tag {e.tag}"
        for where, e in _all_entries(state) if e.tag != e.processing
    ]


@state_property("I2", "wire tag is its placeholders", Kind.LEMMA, statement="""
    In tagged variants, every item in flight to P1 carries as tag the processing of its
    placeholders, and a payload is that same processing: P0 sends a fresh processing whole, or
    a reference copied, tag included, from one shadow entry.""")
def wire_tag_is_placeholders(config: Config, state: State) -> list[str]:
    if not config.variant.tagged:
        return []
    return [
        f"request {m.rid} item {w.identity!r}: data {w.data}, placeholders "
        f"p{w.placeholders}, tag {w.tag}"
        for m in state.to_engine for w in m.items
        if w.tag != w.placeholders or w.data not in (None, w.placeholders)
    ]


@state_property("I3", "served from one processing", Kind.LEMMA, statement="""
    In tagged variants, every item last handed to the model takes its tensor and its
    placeholders from the same processing: a payload is used as sent, and a reference is served
    only on a tag match, which by I1 and I2 names one processing for both. S1 follows.""")
def served_from_one_processing(config: Config, state: State) -> list[str]:
    if not config.variant.tagged or state.last_delivery is None:
        return []
    return [
        f"request {s.rid} item {s.identity!r}: tensor p{s.tensor}, placeholders p{s.placeholders}"
        for s in state.last_delivery.served if s.tensor != s.placeholders
    ]


@state_property("I4", "processings already issued", Kind.LEMMA, statement="""
    Every processing id held by an entry, a message or the last delivery names a processing
    that has already run, so a fresh processing never collides with one already held.""")
def pids_issued(config: Config, state: State) -> list[str]:
    issued = len(state.processings)
    held = [e.processing for e in _slots(state) if isinstance(e, lru.Entry)]
    held += [p for m in state.to_engine for w in m.items for p in (w.data, w.placeholders)
             if p is not None]
    if state.last_delivery is not None:
        held += [p for s in state.last_delivery.served for p in (s.tensor, s.placeholders)]
    return [f"p{pid} is held but only {issued} processings ran" for pid in held
            if not 0 <= pid < issued]


@state_property("I5", "requests name known contents", Kind.LEMMA, statement="""
    Every request is on one of the configuration's front ends and has between one and
    max_items items, with identities of the configuration (distinct unless the configuration
    admits duplicates) and known content versions.""")
def requests_name_known_contents(config: Config, state: State) -> list[str]:
    found = [
        f"request {r.rid} names {i.identity!r} version {i.version}"
        for r in state.requests for i in r.items
        if i.identity not in config.identities or not 0 <= i.version < config.versions
    ]
    for r in state.requests:
        identities = [i.identity for i in r.items]
        repeated = len(set(identities)) < len(identities) and not config.duplicates
        if not 1 <= len(identities) <= config.max_items or repeated:
            found.append(f"request {r.rid} has items {identities}")
        if not 0 <= r.front_end < config.front_ends:
            found.append(f"request {r.rid} is on front end {r.front_end}")
    return found


@state_property("I6", "entries have positive size", Kind.LEMMA, statement="""
    Every cached entry takes at least one byte, so dropping entries never adds bytes and
    evicting always frees some.""")
def entries_have_positive_size(config: Config, state: State) -> list[str]:
    if all(slot.size >= 1 for slot in _slots(state) if isinstance(slot, lru.Entry)):
        return []  # the common case, decided before any reason is worded
    return [f"{where} entry {e.identity!r} has size {e.size}"
            for where, e in _all_entries(state) if e.size < 1]


@state_property("I7", "no ghost slots", Kind.LEMMA, statement="""
    Where both LRUs are correct (no `LruFlaw`), no cache holds a ghost slot: touching an
    absent key changes nothing, so eviction always makes progress (S3's no-hang part).""")
def no_ghost_slots(config: Config, state: State) -> list[str]:
    flaws = (config.variant.shadow_lru, config.variant.receiver_lru)
    if any(flaw is not LruFlaw.NONE for flaw in flaws):
        return []
    caches = (*state.shadows, *state.receivers())
    return [f"ghost {slot.identity!r}" for c in caches for slot in c if isinstance(slot, lru.Ghost)]
