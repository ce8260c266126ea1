"""ReceiverCache (P1): payloads, references, tags and resolution order, for every variant."""

from __future__ import annotations

import pytest
import torch
from ref_helpers import make_item, snapshot

from reference import (
    V0,
    V1,
    V2,
    V3,
    BadInputTypeError,
    BadInputValueError,
    InvalidPayloadError,
    InvariantViolationError,
    MultiModalCacheMissError,
    ProcessedItem,
    ReceiverCache,
    ReceiverCacheAssertionError,
    ReceiverEntry,
    TensorTree,
    Variant,
    WireItem,
)

VARIANTS = [V1, V2, V3]


def tag_for(variant: Variant, tag: int) -> int | None:
    return tag if variant.tagged else None


def payload(item: ProcessedItem, identity: str, variant: Variant, tag: int = 1) -> WireItem:
    return WireItem(identity, item.payload, item.placeholders, tag_for(variant, tag))


def reference(item: ProcessedItem, identity: str, variant: Variant, tag: int = 1) -> WireItem:
    return WireItem(identity, None, item.placeholders, tag_for(variant, tag))


def same(served: TensorTree, sent: TensorTree) -> bool:
    """The receiver serves the sent tensors themselves, in its own read-only mapping."""
    return served.keys() == sent.keys() and all(served[k] is sent[k] for k in sent)


def keys(cache: ReceiverCache) -> list[str]:
    return [key for key, _ in cache.entries()]


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_payload_is_cached_and_a_reference_is_then_served(variant: Variant) -> None:
    cache = ReceiverCache(64, variant=variant)
    item = make_item(16, serial=4)
    assert same(cache.get_and_update(payload(item, "a", variant)), item.payload)
    assert cache.entries() == [("a", 16)]
    assert same(cache.get_and_update(reference(item, "a", variant)), item.payload)
    cache.check_invariants()


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_reference_to_an_absent_identity_is_a_miss(variant: Variant) -> None:
    cache = ReceiverCache(64, variant=variant)
    with pytest.raises(MultiModalCacheMissError) as caught:
        cache.get_and_update(reference(make_item(), "a", variant))
    assert caught.value.identities == ("a",)


def test_v0_miss_is_the_legacy_assertion() -> None:
    cache = ReceiverCache(64, variant=V0)
    with pytest.raises(ReceiverCacheAssertionError):
        cache.get_and_update(reference(make_item(), "a", V0))


def test_v1_cache_wins_over_a_payload() -> None:
    cache = ReceiverCache(64, variant=V1)
    old, new = make_item(16, serial=1), make_item(16, serial=2)
    cache.get_and_update(payload(old, "a", V1))
    assert same(cache.get_and_update(payload(new, "a", V1)), old.payload)
    [(_, entry)] = cache.items()
    assert same(entry.payload, old.payload)


@pytest.mark.parametrize("variant", [V2, V3], ids=str)
def test_payload_wins_over_the_cache(variant: Variant) -> None:
    cache = ReceiverCache(64, variant=variant)
    old, new = make_item(16, serial=1), make_item(24, serial=2)
    cache.get_and_update(payload(old, "a", variant, tag=1))
    assert same(cache.get_and_update(payload(new, "a", variant, tag=2)), new.payload)
    [(_, entry)] = cache.items()
    assert same(entry.payload, new.payload) and entry.tag == tag_for(variant, 2)
    assert cache.entries() == [("a", 24)] and cache.stats().replacements == 1


@pytest.mark.parametrize("variant", [V2, V3], ids=str)
def test_too_large_replacement_leaves_no_old_entry(variant: Variant) -> None:
    """Regression (vllm#57833): the old tensor must not survive a too-large payload."""
    cache = ReceiverCache(16, variant=variant)
    cache.get_and_update(payload(make_item(16), "a", variant))
    big = make_item(24)
    assert same(cache.get_and_update(payload(big, "a", variant, tag=2)), big.payload)
    assert cache.entries() == []


def test_v3_tag_mismatch_is_a_miss() -> None:
    cache = ReceiverCache(64, variant=V3)
    item = make_item(16)
    cache.get_and_update(payload(item, "a", V3, tag=10))
    with pytest.raises(MultiModalCacheMissError):
        cache.get_and_update(reference(item, "a", V3, tag=11))
    assert same(cache.get_and_update(reference(item, "a", V3, tag=10)), item.payload)


def test_a_tag_mismatch_is_counted_as_a_miss_not_a_hit() -> None:
    """Before: ``stats().hits`` counted the reference that missed on its tag."""
    cache = ReceiverCache(64, variant=V3)
    item = make_item(16)
    cache.resolve([payload(item, "a", V3, tag=10)])
    assert cache.resolve([reference(item, "a", V3, tag=11)]).missed == ("a",)
    stats = cache.stats()
    assert (stats.hits, stats.lookups) == (0, 1)
    assert cache.resolve([reference(item, "a", V3, tag=10)]).missed == ()
    stats = cache.stats()
    assert (stats.hits, stats.lookups) == (1, 2)


def test_an_edited_entry_is_counted_as_a_miss() -> None:
    cache = ReceiverCache(64, variant=V3)
    item = make_item(16)
    [served] = cache.resolve([payload(item, "a", V3, tag=10)]).inputs
    served.payload["serial"].add_(1)  # type: ignore[union-attr]
    assert cache.resolve([reference(item, "a", V3, tag=10)]).missed == ("a",)
    stats = cache.stats()
    assert (stats.hits, stats.lookups, stats.invalidations) == (0, 1, 1)


def test_resolve_lists_every_miss_and_keeps_the_rest() -> None:
    cache = ReceiverCache(64, variant=V3)
    hit, fresh = make_item(16, serial=1), make_item(16, serial=2)
    cache.get_and_update(payload(hit, "hit", V3))
    result = cache.resolve([
        reference(hit, "gone1", V3),
        reference(hit, "hit", V3),
        payload(fresh, "new", V3),
        reference(hit, "gone2", V3),
    ])
    assert result.missed == ("gone1", "gone2")
    assert [i.identity for i in result.inputs] == ["hit", "new"]
    assert keys(cache) == ["hit", "new"]


@pytest.mark.parametrize(("variant", "survives"), [(V2, False), (V3, True)], ids=str)
def test_references_first_protects_a_request_larger_than_the_budget(
    variant: Variant, survives: bool
) -> None:
    """D8 on P1: in request order the payloads evict the reference they precede."""
    cache = ReceiverCache(32, variant=variant)
    old = make_item(16, serial=1)
    cache.get_and_update(payload(old, "a", variant))
    result = cache.resolve([
        payload(make_item(16), "b", variant, tag=2),
        payload(make_item(16), "c", variant, tag=3),
        reference(old, "a", variant),
    ])
    assert (result.missed == ()) == survives


def test_touch_and_probe() -> None:
    cache = ReceiverCache(64)
    for key in "ab":
        cache.get_and_update(payload(make_item(16), key, V3))
    assert "a" in cache and "zz" not in cache
    before = snapshot(cache)
    assert not cache.touch("ghost")
    assert snapshot(cache) == before
    assert cache.touch("a") and keys(cache) == ["b", "a"]


def test_clear_stats_budget() -> None:
    cache = ReceiverCache(64, variant=V3)
    cache.get_and_update(payload(make_item(16), "a", V3))
    cache.clear()
    assert cache.entries() == [] and cache.stats().clears == 1
    assert cache.budget == 64 and cache.variant is V3


GOOD = make_item(16)


def wire(identity: object = "n", data: object = GOOD.payload,
         placeholders: object = GOOD.placeholders, tag: object = 1) -> WireItem:
    """A wire item built without type checks, to feed bad input to the receiver."""
    return WireItem(identity, data, placeholders, tag)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("items", "error"),
    [
        ([wire(data={"x": 3})], InvalidPayloadError),
        ([wire(data={"x": {"y": "s"}})], InvalidPayloadError),
        ([wire(identity=5)], BadInputTypeError),
        ([wire(placeholders=(0, 1))], BadInputTypeError),
        ([wire(tag=None)], BadInputTypeError),
        ([wire(tag="t")], BadInputTypeError),
        ([wire(tag=-1)], BadInputValueError),
        ([wire(tag=1 << 64)], BadInputValueError),
        (["n"], BadInputTypeError),
        # A valid first item must not be cached when a later one is rejected:
        ([wire(), wire(identity="m", data={"x": 1.0})], InvalidPayloadError),
    ],
)
def test_bad_input_is_rejected_and_changes_nothing(items: list[WireItem], error: type) -> None:
    cache = ReceiverCache(64, variant=V3)
    for key in "ab":
        cache.get_and_update(payload(make_item(16), key, V3))
    before = snapshot(cache)
    with pytest.raises(error, match="got"):
        cache.resolve(items)
    assert snapshot(cache) == before
    if len(items) == 1:
        with pytest.raises(error):
            cache.get_and_update(items[0])
        assert snapshot(cache) == before


def test_untagged_variant_rejects_a_tag() -> None:
    cache = ReceiverCache(64, variant=V2)
    before = snapshot(cache)
    with pytest.raises(BadInputValueError, match="expected None"):
        cache.get_and_update(WireItem("a", GOOD.payload, GOOD.placeholders, 3))
    assert snapshot(cache) == before


def test_check_invariants_catches_a_missing_tag_in_v3() -> None:
    cache = ReceiverCache(64)
    cache._lru.put("a", ReceiverEntry({"x": torch.zeros(1)}, None), 4)
    with pytest.raises(InvariantViolationError, match="tag None"):
        cache.check_invariants()
