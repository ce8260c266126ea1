"""SenderCache (P0's shadow): per-item and per-request updates, for every variant."""

from __future__ import annotations

import pytest
import torch
from ref_helpers import SerialProcessor, make_item, snapshot

from reference import (
    V1,
    V2,
    V3,
    BadInputTypeError,
    BadInputValueError,
    DuplicateIdentityError,
    InvalidBudgetError,
    InvariantViolationError,
    MissingMediaError,
    Outgoing,
    SenderCache,
    SenderCacheAssertionError,
    ShadowEntry,
    TagSource,
    Variant,
)

VARIANTS = [V1, V2, V3]


def shadow(variant: Variant = V3, budget: int = 64) -> SenderCache:
    return SenderCache(budget, variant=variant, tags=TagSource.for_tests(5))


def keys(cache: SenderCache) -> list[str]:
    return [key for key, _ in cache.entries()]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_miss_records_metadata_and_sends_payload(variant: Variant) -> None:
    cache = shadow(variant)
    item = make_item(16, serial=3)
    wire = cache.get_and_update("a", item)
    assert wire.payload is item.payload and wire.placeholders == item.placeholders
    assert cache.entries() == [("a", 16)]
    [(_, entry)] = cache.items()
    assert entry == ShadowEntry(item.placeholders, wire.tag)
    assert (wire.tag is not None) == variant.tagged
    cache.check_invariants()


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_hit_sends_a_reference_with_cached_placeholders_and_tag(variant: Variant) -> None:
    cache = shadow(variant)
    first = cache.get_and_update("a", make_item(16, serial=1))
    again = cache.get_and_update("a", make_item(16, serial=2))  # data unused on a hit
    assert again.is_reference and again.payload is None
    assert again.placeholders == first.placeholders and again.tag == first.tag
    assert cache.stats().hits == 1


def test_shadow_entries_never_hold_tensors() -> None:
    cache = shadow()
    cache.get_and_update("a", make_item(16))
    for _, entry in cache.items():
        assert not any(isinstance(v, torch.Tensor) for v in (entry.placeholders, entry.tag))
        assert set(ShadowEntry.__slots__) == {"placeholders", "tag"}


def test_tags_are_fresh_per_payload() -> None:
    cache = shadow()
    tags = [cache.get_and_update(k, make_item(16)).tag for k in "abc"]
    assert tags == [5 << 32, 5 << 32 | 1, 5 << 32 | 2]


def test_oversize_item_is_sent_but_not_recorded() -> None:
    cache = shadow(budget=16)
    wire = cache.get_and_update("big", make_item(24))
    assert wire.payload is not None and wire.tag is not None
    assert cache.entries() == [] and cache.stats().oversize == 1


def test_probe_does_not_reorder_and_touch_absent_does_nothing() -> None:
    cache = shadow()
    for key in "ab":
        cache.get_and_update(key, make_item(16))
    assert cache.probe(["a", "zz"]) == frozenset({"a"})
    assert "a" in cache and "zz" not in cache
    assert keys(cache) == ["a", "b"]
    before = snapshot(cache)
    assert not cache.touch("ghost")
    assert snapshot(cache) == before
    assert cache.touch("a") and keys(cache) == ["b", "a"]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_update_touches_all_then_resolves(variant: Variant) -> None:
    cache = shadow(variant, budget=48)
    for key in "abc":
        cache.get_and_update(key, make_item(16))
    wire = cache.update([Outgoing("a", None, None), Outgoing("d", make_item(16), 0)])
    assert [w.is_reference for w in wire] == [True, False]
    assert keys(cache) == ["c", "a", "d"]  # "a" touched first, so "b" was the victim


def test_update_turns_a_processed_miss_that_now_hits_into_a_reference() -> None:
    cache = shadow()
    first = cache.get_and_update("a", make_item(16, serial=1))
    [wire] = cache.update([Outgoing("a", make_item(16, serial=2), 0)])
    assert wire.is_reference and wire.tag == first.tag and wire.placeholders.offset == 1


@pytest.mark.parametrize("variant", [V1, V2], ids=str)
def test_late_miss_is_the_sender_assertion_in_v1_v2(variant: Variant) -> None:
    cache = shadow(variant)
    with pytest.raises(SenderCacheAssertionError, match="expected a cached item"):
        cache.update([Outgoing("gone", None, 1)], SerialProcessor())
    with pytest.raises(SenderCacheAssertionError):
        cache.get_and_update("gone", None)


def test_late_miss_is_reprocessed_in_v3() -> None:
    cache = shadow()
    processor = SerialProcessor()
    [wire] = cache.update([Outgoing("gone", None, 41)], processor)
    assert processor.calls == [41] and wire.payload is not None
    assert keys(cache) == ["gone"]


def test_uuid_only_late_miss_in_v3_is_a_client_error_and_changes_nothing() -> None:
    cache = shadow()
    cache.get_and_update("a", make_item(16))
    before = snapshot(cache)
    with pytest.raises(MissingMediaError, match="gone"):
        cache.update([Outgoing("a", None, None), Outgoing("gone", None, None)], SerialProcessor())
    assert snapshot(cache) == before
    with pytest.raises(MissingMediaError):
        cache.get_and_update("gone", None)


def test_late_miss_without_a_processor_is_rejected_before_any_change() -> None:
    cache = shadow()
    before = snapshot(cache)
    with pytest.raises(BadInputValueError, match="no processor"):
        cache.update([Outgoing("gone", None, 1)])
    assert snapshot(cache) == before


def test_late_miss_reprocess_without_references_first_still_reprocesses() -> None:
    """A mutant-style variant: one knob on, the other off; the knobs are independent."""
    variant = Variant("late-only", payload_wins=True, tagged=True, references_first=False,
                      late_miss_reprocess=True)
    cache = SenderCache(32, variant=variant)
    for key in "ab":
        cache.get_and_update(key, make_item(16))
    processor = SerialProcessor()
    # In request order, "c" evicts "a", the reprocessed "a" evicts "b", and so on (D8).
    wire = cache.update(
        [Outgoing("c", make_item(16), 0), Outgoing("a", None, 7), Outgoing("b", None, 8)],
        processor,
    )
    assert [w.is_reference for w in wire] == [False, False, False]
    assert processor.calls == [7, 8]
    assert keys(cache) == ["a", "b"]
    cache.check_invariants()


def test_invalidate_drops_exactly_the_given_identities() -> None:
    cache = shadow()
    for key in "abc":
        cache.get_and_update(key, make_item(16))
    assert cache.invalidate(["a", "c", "zz"]) == 2
    assert keys(cache) == ["b"]
    assert cache.stats().invalidations == 2


def test_clear_and_stats() -> None:
    cache = shadow()
    cache.get_and_update("a", make_item(16))
    cache.clear()
    stats = cache.stats()
    assert (stats.entries, stats.bytes_in_use, stats.clears, stats.budget) == (0, 0, 1, 64)
    assert cache.budget == 64 and cache.variant is V3


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda c: c.touch(3), BadInputTypeError),
        (lambda c: c.touch(""), BadInputValueError),
        (lambda c: c.probe(["a", b"b"]), BadInputTypeError),
        (lambda c: c.get_and_update(None, make_item()), BadInputTypeError),
        (lambda c: c.get_and_update("n", {"x": torch.zeros(1)}), BadInputTypeError),
        (lambda c: c.update([Outgoing("n", make_item(), 0), ("a", None, None)]),
         BadInputTypeError),
        (lambda c: c.update([Outgoing(1.5, make_item(), 0)]), BadInputTypeError),
        (lambda c: c.update([Outgoing("n", "not an item", 0)]), BadInputTypeError),
        (lambda c: c.invalidate(["a", 7]), BadInputTypeError),
        (lambda c: c.invalidate(["a", "a"]), DuplicateIdentityError),
    ],
)
def test_bad_input_is_rejected_and_changes_nothing(call: object, error: type) -> None:
    cache = shadow()
    for key in "ab":
        cache.get_and_update(key, make_item(16))
    before = snapshot(cache)
    with pytest.raises(error, match="got"):
        call(cache)  # type: ignore[operator]
    assert snapshot(cache) == before


def test_bad_budget_and_variant_are_rejected() -> None:
    with pytest.raises(InvalidBudgetError):
        SenderCache(0)
    with pytest.raises(BadInputTypeError, match="expected Variant"):
        SenderCache(16, variant="V3")  # type: ignore[arg-type]


def test_check_invariants_catches_a_tag_in_an_untagged_variant() -> None:
    cache = shadow(V2)
    cache.get_and_update("a", make_item(16))
    cache._lru._order["a"] = ShadowEntry(make_item().placeholders, 99)
    with pytest.raises(InvariantViolationError, match="tag 99"):
        cache.check_invariants()


def test_a_late_miss_caused_by_the_request_itself_needs_a_processor() -> None:
    """Without references_first, the request's own insert evicts a later hit (D8); with no
    processor to reprocess it, the update stops with a clear error."""
    variant = Variant("late-only", payload_wins=True, tagged=True, references_first=False,
                      late_miss_reprocess=True)
    cache = SenderCache(16, variant=variant)
    cache.get_and_update("a", make_item(16))
    with pytest.raises(BadInputValueError, match="no processor"):
        cache.update([Outgoing("c", make_item(16), 0), Outgoing("a", None, 7)])
    cache.check_invariants()
