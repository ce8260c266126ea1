# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Tests for the tags of the key-replicated multi-modal caches (P0's
`LruKeyReplicatedSenderCache`, P1's `LruKeyReplicatedReceiverCache`), driven
through their callers: `BaseMultiModalProcessor._merge_mm_kwargs` on P0 and
`get_and_update_features` on P1, as the engine core calls it; and of the
identifier the engine's encoder cache and prefix cache key each item by."""

import warnings
from dataclasses import dataclass

import pytest
import torch
from vllm.config import MultiModalConfig
from vllm.multimodal.cache.base import MultiModalCacheMissError
from vllm.multimodal.cache.lru import (
    LruKeyReplicatedReceiverCache,
    LruKeyReplicatedSenderCache,
)
from vllm.multimodal.inputs import (
    MultiModalBatchedField,
    MultiModalFeatureSpec,
    MultiModalFieldElem,
    MultiModalKwargsItem,
    MultiModalKwargsItems,
    PlaceholderRange,
)
from vllm.multimodal.processing.processor import BaseMultiModalProcessor

UNIT = 64  # bytes of one image's processed tensor (16 floats)


@dataclass(frozen=True)
class _ModelConfig:
    multimodal: MultiModalConfig

    def get_multimodal_config(self) -> MultiModalConfig:
        return self.multimodal


def _caches(units: int):
    config = _ModelConfig(MultiModalConfig(mm_processor_cache_gb=units * UNIT / 2**30))
    return LruKeyReplicatedSenderCache(config), LruKeyReplicatedReceiverCache(config)


@pytest.fixture
def one_item():
    return _caches(1)


@pytest.fixture
def two_items():
    return _caches(2)


class _Processor:
    """The `self` that `_merge_mm_kwargs` needs: prompt updates kept as they are
    (here each is the item's placeholder range)."""

    @staticmethod
    def _recompute_cached_prompt_update(update, item_idx):
        return update


def _processed(image: int, units: int = 1):
    """Image `image`'s processed item (`units` * UNIT bytes, every value
    `image`) and its prompt updates (a placeholder range at offset `image`)."""
    data = torch.full((units * UNIT // 4,), float(image))
    elem = MultiModalFieldElem(data=data, field=MultiModalBatchedField())
    return MultiModalKwargsItem({"pixel_values": elem}), [
        PlaceholderRange(offset=image, length=16)
    ]


def _identifier(uuid: str, tag: int | None) -> str:
    """The feature's identifier as `InputProcessor.process_inputs` sets it
    (no LoRA): the key of the engine's encoder cache (`EncoderCacheManager`)
    and of the item in the prefix cache's block hashes
    (`("mm", identifier, offset)`)."""
    if tag is None:
        return uuid
    from vllm.multimodal.inputs import tagged_mm_identifier

    return tagged_mm_identifier(uuid, tag)


def _send(sender, request):
    """P0: the processor's cache lookup and merge for `request`, a list of
    (uuid, image or None for a uuid-only item, or (image, units)); the engine
    request's features."""
    hashes = [uuid for uuid, _ in request]
    is_cached = sender.is_cached(hashes)
    missing = [
        _processed(*image) if isinstance(image, tuple) else _processed(image)
        for (_, image), hit in zip(request, is_cached, strict=True)
        if not hit
    ]
    try:
        merged = BaseMultiModalProcessor._merge_mm_kwargs(
            _Processor(),
            sender,
            mm_hashes={"image": hashes},
            mm_is_cached={"image": is_cached},
            mm_missing_kwargs=MultiModalKwargsItems(
                {"image": [kwargs for kwargs, _ in missing]}
            ),
            mm_missing_prompt_updates={"image": [up for _, up in missing]},
        )
    finally:
        sender.release_sender_touches()
    kwargs, updates = merged[0]["image"], merged[1]["image"]
    tags = merged[2]["image"] if len(merged) > 2 else [None] * len(hashes)
    return [
        MultiModalFeatureSpec(
            data=data,
            modality="image",
            identifier=_identifier(uuid, tag),
            mm_position=item_updates[0],
            mm_hash=uuid,
            **({} if tag is None else {"mm_tag": tag}),
        )
        for uuid, data, item_updates, tag in zip(
            hashes, kwargs, updates, tags, strict=True
        )
    ]


def _image(feature) -> int:
    return int(feature.data["pixel_values"].data[0])


def _serve(sender, receiver, request, retries: int = 1):
    """Send `request` to the engine; on a miss, P0 drops what the engine
    reports and the client resends (at most `retries` times)."""
    for _ in range(retries + 1):
        try:
            return receiver.get_and_update_features(_send(sender, request))
        except MultiModalCacheMissError as miss:
            for mm_hash in miss.mm_hashes:
                sender.invalidate(mm_hash)
    pytest.fail(f"{request} missed after {retries} retries")


def test_same_new_image_twice_is_served(two_items):
    sender, receiver = two_items
    served = _serve(sender, receiver, [("a", 1), ("a", 1)], retries=0)
    assert [(_image(f), f.mm_position.offset) for f in served] == [(1, 1), (1, 1)]


def test_same_image_twice_beside_held_image_is_served(two_items):
    sender, receiver = two_items
    _serve(sender, receiver, [("b", 2)], retries=0)
    served = _serve(sender, receiver, [("a", 1), ("b", None), ("a", 1)], retries=0)
    assert [_image(f) for f in served] == [1, 2, 1]


def test_reused_uuid_after_undelivered_request_misses_then_serves(one_item):
    """P0 records image 1 under "u" for a request that never reaches the
    engine, which still holds image 0 under "u": the next reference to "u"
    misses, and the resend pairs image 1's tensor with its placeholders."""
    sender, receiver = one_item
    _serve(sender, receiver, [("u", 0)], retries=0)
    _send(sender, [("x", 7)])  # not delivered: evicts "u" from P0 only
    _send(sender, [("u", 1)])  # not delivered: P0 holds image 1's updates
    (reference,) = _send(sender, [("u", None)])
    assert reference.data is None and reference.mm_position.offset == 1
    with pytest.raises(MultiModalCacheMissError) as miss:
        receiver.get_and_update_features([reference])
    assert miss.value.mm_hashes == ["u"]

    sender.invalidate("u")  # the engine's retryable reply; the client resends
    (served,) = _serve(sender, receiver, [("u", 1)], retries=0)
    assert (_image(served), served.mm_position.offset) == (1, 1)


def test_reference_to_entry_sent_in_earlier_request_is_a_hit(one_item):
    sender, receiver = one_item
    _serve(sender, receiver, [("u", 3)], retries=0)
    (served,) = _serve(sender, receiver, [("u", None)], retries=0)
    assert (_image(served), served.mm_position.offset) == (3, 3)


def test_insert_does_not_evict_entry_referenced_by_same_request():
    sender, receiver = _caches(3)
    _serve(sender, receiver, [("g", (0, 2)), ("h", 1)], retries=0)
    served = _serve(sender, receiver, [("z", (2, 2)), ("g", None)], retries=0)
    assert [_image(f) for f in served] == [2, 0]
    assert sender.is_cached(["z", "g", "h"]) == [True, False, False]


def test_untagged_item_methods_cannot_pair_a_stale_tensor(one_item):
    """The same scenario through `get_and_update_item` on both sides: the
    untagged reference misses instead of returning image 0's tensor."""
    sender, receiver = one_item
    with pytest.warns(DeprecationWarning):
        item, _ = sender.get_and_update_item(_processed(0), "u")
    with pytest.warns(DeprecationWarning):
        receiver.get_and_update_item(item, "u")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        sender.get_and_update_item(_processed(7), "x")
        sender.get_and_update_item(_processed(1), "u")
        data, updates = sender.get_and_update_item(None, "u")
        assert data is None and updates[0].offset == 1
        with pytest.raises(MultiModalCacheMissError):
            receiver.get_and_update_item(data, "u")


def test_untagged_reference_from_older_frontend_misses(one_item):
    sender, receiver = one_item
    _serve(sender, receiver, [("u", 3)], retries=0)
    untagged = MultiModalFeatureSpec(
        data=None,
        modality="image",
        identifier="u",
        mm_position=PlaceholderRange(offset=3, length=16),
        mm_hash="u",
    )
    with pytest.raises(MultiModalCacheMissError):
        receiver.get_and_update_features([untagged])


def test_tags_are_unique_per_processing_and_restart():
    sender, _ = _caches(4)
    a, b = _send(sender, [("a", 0), ("b", 1)])
    (again,) = _send(sender, [("a", None)])
    assert a.mm_tag is not None and a.mm_tag != b.mm_tag
    assert again.mm_tag == a.mm_tag
    restarted, _ = _caches(4)
    (fresh,) = _send(restarted, [("a", 0)])
    assert fresh.mm_tag not in (a.mm_tag, b.mm_tag)


def test_reused_uuid_processed_again_gets_own_encoder_and_prefix_key(one_item):
    """A uuid reused for other media and processed again reaches the encoder
    cache and the prefix cache under another identifier than the earlier
    media's, so neither can serve the earlier encoder output or KV blocks;
    every reference to one processing keys as its payload did."""
    sender, receiver = one_item
    (first,) = _serve(sender, receiver, [("u", 0)], retries=0)
    (reference,) = _serve(sender, receiver, [("u", None)], retries=0)
    assert reference.identifier == first.identifier
    _serve(sender, receiver, [("x", 7)], retries=0)  # evicts "u" on both sides
    (reused,) = _serve(sender, receiver, [("u", (1, 1))], retries=0)
    (reused_reference,) = _serve(sender, receiver, [("u", None)], retries=0)
    assert (_image(reused), _image(reused_reference)) == (1, 1)
    assert reused.identifier != first.identifier
    assert reused_reference.identifier == reused.identifier
    assert ("mm", reused.identifier, 0) != ("mm", first.identifier, 0)

