"""Regression tests for patches/vllm-0.33.0-tags.diff, in vLLM's test style (plain pytest,
small fixtures, vLLM's cache classes called directly; nothing of this project is imported),
meant for vLLM's tests/multimodal/. Run them on the patched copy:

    PYTHONPATH=build/vllm-0.33.0-patched python -m pytest patches/test_vllm_cache_tags.py

On the unpatched release they fail: its caches have no tags.
"""

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
    PlaceholderRange,
)

UNIT = 64  # bytes of one 16-float image


@dataclass(frozen=True)
class _ModelConfig:
    multimodal: MultiModalConfig

    def get_multimodal_config(self) -> MultiModalConfig:
        return self.multimodal


def _config(units: int) -> _ModelConfig:
    return _ModelConfig(MultiModalConfig(mm_processor_cache_gb=units * UNIT / (1 << 30)))


def _processed(image: int, units: int = 1):
    """An image's processed item (`units` * 64 bytes, every value `image`) and its prompt
    updates (here the placeholder range itself)."""
    data = torch.full((units * UNIT // 4,), float(image))
    item = MultiModalKwargsItem(
        {"pixel_values": MultiModalFieldElem(data=data, field=MultiModalBatchedField())}
    )
    return item, [PlaceholderRange(offset=image, length=units * 16)]


def _send(sender, request):
    """The processor's merge step: touch, one tagged update, release."""
    for mm_hash, _ in request:
        sender.touch_sender_cache_item(mm_hash)
    try:
        return sender.get_and_update_tagged(
            [item for _, item in request], [mm_hash for mm_hash, _ in request]
        )
    finally:
        sender.release_sender_touches()


def _receive(receiver, request, sent):
    features = [
        MultiModalFeatureSpec(
            data=data,
            modality="image",
            identifier=mm_hash,
            mm_position=updates[0],
            mm_hash=mm_hash,
            mm_tag=tag,
        )
        for (mm_hash, _), (data, updates, tag) in zip(request, sent, strict=True)
    ]
    return receiver.get_and_update_features(features)


def _image_of(feature) -> int:
    return int(feature.data["pixel_values"].data[0])


@pytest.fixture
def one_item_caches():
    return (
        LruKeyReplicatedSenderCache(_config(1)),
        LruKeyReplicatedReceiverCache(_config(1)),
    )


def test_reused_uuid_after_an_undelivered_update_misses(one_item_caches):
    """P0 records image 1 under "u" but the request never reaches P1 (rejected after
    processing), which still holds image 0 under "u": the next reference is a miss, never
    image 0's tensor with image 1's placeholders."""
    sender, receiver = one_item_caches
    first = [("u", _processed(0))]
    _receive(receiver, first, _send(sender, first))
    _send(sender, [("x", _processed(7))])  # rejected: evicts "u" from P0 only
    _send(sender, [("u", _processed(1))])  # rejected: P0 now holds image 1's updates
    reference = [("u", None)]
    sent = _send(sender, reference)
    assert sent[0][0] is None and sent[0][1][0].offset == 1

    with pytest.raises(MultiModalCacheMissError) as missed:
        _receive(receiver, reference, sent)
    assert missed.value.mm_hashes == ["u"]

    sender.invalidate("u")  # the miss reply; the client resends image 1
    resend = [("u", _processed(1))]
    (served,) = _receive(receiver, resend, _send(sender, resend))
    assert _image_of(served) == 1 and served.mm_position.offset == 1


def test_reference_with_its_entry_tag_is_a_hit(one_item_caches):
    sender, receiver = one_item_caches
    first = [("u", _processed(3))]
    _receive(receiver, first, _send(sender, first))
    reference = [("u", None)]
    (served,) = _receive(receiver, reference, _send(sender, reference))
    assert _image_of(served) == 3 and served.mm_position.offset == 3


def test_untagged_reference_to_a_tagged_entry_misses(one_item_caches):
    sender, receiver = one_item_caches
    first = [("u", _processed(3))]
    _receive(receiver, first, _send(sender, first))
    with pytest.raises(MultiModalCacheMissError):
        receiver.get_and_update_item(None, "u")


def test_sender_resolves_held_items_before_inserting():
    """A request whose new item evicts an item it also references (its own inserts, or a
    reused uuid whose size grew) gets a reference, not the sender's assertion."""
    sender = LruKeyReplicatedSenderCache(_config(3))
    _send(sender, [("g", _processed(0, 2)), ("h", _processed(1))])
    sent = _send(sender, [("z", _processed(2, 2)), ("g", None)])
    (z_data, _, z_tag), (g_data, g_updates, g_tag) = sent
    assert z_data is not None and g_data is None and g_updates[0].offset == 0
    assert z_tag != g_tag
    assert sender.is_cached(["z", "g", "h"]) == [True, False, False]


def test_receiver_resolves_references_before_payloads():
    receiver = LruKeyReplicatedReceiverCache(_config(2))
    sender = LruKeyReplicatedSenderCache(_config(2))
    first = [("g", _processed(0, 2))]
    _receive(receiver, first, _send(sender, first))
    request = [("z", _processed(2, 2)), ("g", None)]
    z, g = _receive(receiver, request, _send(sender, request))
    assert (_image_of(z), _image_of(g)) == (2, 0)


def test_untagged_calls_behave_as_before(one_item_caches):
    sender, receiver = one_item_caches
    item, updates = _processed(5)
    assert sender.get_and_update_item((item, updates), "u") == (item, updates)
    assert sender.get_and_update_item(None, "u") == (None, updates)
    assert receiver.get_and_update_item(item, "u") is item
    assert receiver.get_and_update_item(None, "u") is item


def test_tags_are_per_processing():
    sender = LruKeyReplicatedSenderCache(_config(4))
    sent = _send(sender, [("a", _processed(0)), ("b", _processed(1))])
    again = _send(sender, [("a", None)])
    assert sent[0][2] != sent[1][2] and again[0][2] == sent[0][2]
    restarted = LruKeyReplicatedSenderCache(_config(4))
    assert _send(restarted, [("a", _processed(0))])[0][2] != sent[0][2]
