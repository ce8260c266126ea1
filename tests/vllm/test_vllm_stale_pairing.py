"""The shortest stale pairing on vLLM's released caches, as plain calls, and the same requests
on the reference's V3.

A byte budget of one 64-byte item, one client-supplied identity ``u`` reused for a new image
(D7, vllm#55547), and requests rejected after P0 updated its shadow (D2, as in vllm#43941):
six `get_and_update_item` calls and the engine returns image 0's tensor for image 1's
placeholders (V2 breaks S1 under D2+D7: docs/drift-combinations.md). The probes the input
processor makes before each update (`is_cached`) are asserted too; they change nothing.
The reference's V3 (tags) answers the same requests with a miss, then the retry serves
image 1's tensor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import torch

from reference import (
    V3,
    Engine,
    FrontEnd,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    Request,
    RequestItem,
    pipeline,
    retry,
)

pytestmark = pytest.mark.vllm

ITEM_BYTES = 64
TOKENS = 16  # image 0 and image 1 take as many tokens: the wrong answer is silent


def pixels(image: int) -> torch.Tensor:
    """The processed tensor of image `image`: 16 float32 values (64 bytes), all `image`."""
    return torch.full((TOKENS,), float(image))


@dataclass(frozen=True)
class ModelConfig:
    """What vLLM's caches read of `vllm.config.ModelConfig`."""

    multimodal: Any

    def get_multimodal_config(self) -> Any:
        return self.multimodal


@pytest.fixture
def vllm_pair() -> tuple[Any, Any, Any]:
    """vLLM's P0 and P1 caches with a budget of one item, and a maker of processed items."""
    from vllm.config import MultiModalConfig
    from vllm.multimodal.cache.lru import (
        LruKeyReplicatedReceiverCache,
        LruKeyReplicatedSenderCache,
    )
    from vllm.multimodal.inputs import (
        MultiModalBatchedField,
        MultiModalFieldElem,
        MultiModalKwargsItem,
        PlaceholderRange,
    )

    config = ModelConfig(MultiModalConfig(mm_processor_cache_gb=ITEM_BYTES / (1 << 30)))

    def processed(image: int) -> tuple[Any, list[Any]]:
        """vLLM's processor output for one image: its kwargs item and prompt updates (a
        placeholder range here; the caches store them without reading them)."""
        elem = MultiModalFieldElem(data=pixels(image), field=MultiModalBatchedField())
        return (MultiModalKwargsItem({"pixel_values": elem}),
                [PlaceholderRange(offset=image, length=TOKENS)])

    return (LruKeyReplicatedSenderCache(config), LruKeyReplicatedReceiverCache(config),
            processed)


def test_vllm_six_calls_pair_image_0s_tensor_with_image_1s_placeholders(
    vllm_pair: tuple[Any, Any, Any],
) -> None:
    p0, p1, processed = vllm_pair
    image0, image1, other = processed(0), processed(1), processed(7)
    # request A: image 0 under the client's uuid "u"; P0 records it, P1 caches its tensor
    assert p0.is_cached(["u"]) == [False]
    sent = p0.get_and_update_item(image0, "u")                     # 1
    p1.get_and_update_item(sent[0], "u")                           # 2
    # request B: another image; P0 records it (evicting "u"); rejected before the engine
    assert p0.is_cached(["x"]) == [False]
    p0.get_and_update_item(other, "x")                             # 3
    # request C: image 1 under the same uuid; P0 misses, records it; rejected too
    assert p0.is_cached(["u"]) == [False]
    p0.get_and_update_item(image1, "u")                            # 4
    # request D: "u" again; P0 hits and sends no data, with image 1's prompt updates
    assert p0.is_cached(["u"]) == [True]
    data, updates = p0.get_and_update_item(None, "u")              # 5
    served = p1.get_and_update_item(None, "u")                     # 6
    assert data is None and updates is image1[1]                   # image 1's placeholders
    assert torch.equal(served["pixel_values"].data, pixels(0))     # image 0's tensor
    assert not torch.equal(served["pixel_values"].data, pixels(1))


def test_vllm_without_the_rejections_the_same_images_pair_consistently(
    vllm_pair: tuple[Any, Any, Any],
) -> None:
    """The known-good twin: the same requests, all delivered (no D2): P1 takes image 1's
    payload and the last request serves image 1 with image 1's placeholders."""
    p0, p1, processed = vllm_pair
    image0, image1, other = processed(0), processed(1), processed(7)
    for image, identity in ((image0, "u"), (other, "x"), (image1, "u")):
        sent = p0.get_and_update_item(image, identity)
        p1.get_and_update_item(sent[0], identity)
    data, updates = p0.get_and_update_item(None, "u")
    served = p1.get_and_update_item(None, "u")
    assert data is None and updates is image1[1]
    assert torch.equal(served["pixel_values"].data, pixels(1))


def _processor(image: object) -> ProcessedItem:
    assert isinstance(image, int)
    return ProcessedItem({"pixel_values": pixels(image)}, Placeholders(image, TOKENS))


def test_reference_v3_serves_image_1_for_the_same_requests() -> None:
    budget = _processor(0).nbytes  # one item
    front_end, engine = FrontEnd(budget, _processor, variant=V3), Engine(budget, variant=V3)
    pipeline.serve(front_end, engine, Request((RequestItem("u", 0),)))   # request A
    for image, identity in ((7, "x"), (1, "u")):                         # requests B, C
        probed = front_end.probe(Request((RequestItem(identity, image),)))
        front_end.update(probed)
        front_end.abandon(probed.request_id)                             # rejected (D2)
    attempts: list[Request] = []

    def send(request: Request) -> Any:
        attempts.append(request)
        return pipeline.serve(front_end, engine, request)

    (served,) = retry(send, Request((RequestItem("u", 1),)), max_retries=1)  # request D
    assert len(attempts) == 2  # the first attempt missed: P1's tag is image 0's processing
    assert torch.equal(served.payload["pixel_values"], pixels(1))
    assert served.placeholders == Placeholders(1, TOKENS)


def test_reference_v3_first_attempt_is_a_miss_not_a_stale_pairing() -> None:
    budget = _processor(0).nbytes
    front_end, engine = FrontEnd(budget, _processor, variant=V3), Engine(budget, variant=V3)
    pipeline.serve(front_end, engine, Request((RequestItem("u", 0),)))
    for image, identity in ((7, "x"), (1, "u")):
        probed = front_end.probe(Request((RequestItem(identity, image),)))
        front_end.update(probed)
        front_end.abandon(probed.request_id)
    with pytest.raises(MultiModalCacheMissError) as missed:
        pipeline.serve(front_end, engine, Request((RequestItem("u", 1),)))
    assert missed.value.identities == ("u",)


def test_vllm_the_pages_reproducer_pairs_the_stale_tensor_as_its_snapshot_says() -> None:
    """docs/vllm.md shows `REPRODUCER`; executed as shown, it pairs image 0's tensor with
    image 1's placeholders, which is what the committed snapshot recorded."""
    from pathlib import Path

    from model_checks.docs.vllm_page import load
    from model_checks.vllm_snapshot import reproduce

    observed = reproduce()
    assert observed == {"data_sent": False, "placeholders_of_image": 1, "tensor_of_image": 0}
    assert load(Path(__file__).resolve().parents[2] / "docs")["reproducer"] == observed
