"""The tag patch's callers that the CPU set-up cannot import (the engine client, the input
processor, Jina-VL's processor and the token-in/token-out features import packages it leaves
out), each run from the source of whichever vLLM this process imports, with stand-ins for
what it calls: run under plain pytest by tests/vllm/test_vllm_fix.py on the patched copy
(every test passes) and on the release (every test fails). Not collected by the suite
itself (its name does not start with ``test_``): it needs a process of its own per copy.
"""

from __future__ import annotations

import textwrap
import types
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import torch
import vllm
from vllm.config import MultiModalConfig
from vllm.multimodal.cache.base import MultiModalCacheMissError
from vllm.multimodal.cache.lru import LruKeyReplicatedSenderCache
from vllm.multimodal.inputs import (
    MultiModalBatchedField,
    MultiModalFieldElem,
    MultiModalKwargsItem,
    MultiModalKwargsItems,
)

from model_checks.adapters import vllm_pins
from model_checks.adapters.vllm import CacheConfig

ROOT = Path(vllm.__file__).parent


def compiled(key: str, namespace: dict[str, Any], holder: str | None = None) -> Any:
    """`key`'s function (``file:Class.method``) compiled from this vLLM's source into
    `namespace`; inside ``class <holder>(Base)`` when given, so `super()` resolves to
    `namespace["Base"]` (the class is returned)."""
    text = vllm_pins.source(key, ROOT, padded=True)
    assert text is not None, key
    body = textwrap.dedent(text)
    if holder is not None:
        body = f"class {holder}(Base):\n" + textwrap.indent(body, "    ")
    exec(compile(body, f"<vllm {key}>", "exec"), namespace)
    return namespace[holder or key.rpartition(".")[2].rpartition(":")[2]]


def item(value: int) -> Any:
    elem = MultiModalFieldElem(data=torch.full((4,), float(value)),
                               field=MultiModalBatchedField())
    return MultiModalKwargsItem({"pixel_values": elem})


def test_the_in_process_engine_replies_to_a_miss() -> None:
    """`InprocClient.add_request` turns the receiver's miss into the retryable reply that
    the next `get_output` returns, as the engine core process does."""
    outputs = types.SimpleNamespace
    namespace: dict[str, Any] = {
        "EngineCoreRequest": object, "EngineCoreOutputs": lambda: outputs(
            outputs=[], finished_requests=None),
        "EngineCoreOutput": outputs, "MultiModalCacheMissError": MultiModalCacheMissError,
        "FinishReason": types.SimpleNamespace(ERROR="error")}
    add = compiled("v1/engine/core_client.py:InprocClient.add_request", namespace)
    get = compiled("v1/engine/core_client.py:InprocClient.get_output", namespace)

    def missing(request: Any) -> Any:
        raise MultiModalCacheMissError(["a", "b"])

    core = types.SimpleNamespace(preprocess_add_request=missing,
                                 step_fn=lambda: (None, False),
                                 post_step=lambda model_executed: None)
    client = types.SimpleNamespace(engine_core=core, _mm_cache_misses=[])
    add(client, types.SimpleNamespace(request_id="r1"))
    reply = get(client)
    (output,) = reply.outputs
    assert (output.request_id, output.mm_cache_miss_hashes) == ("r1", ["a", "b"])
    assert reply.finished_requests == {"r1"}
    assert get(client).outputs == []


class Result(NamedTuple):
    """`MultiModalProcessingResult` with the tags the patch declares."""

    prompt_ids: list[int]
    kwargs: Any
    hashes: Any
    prompt_updates: Any
    tags: Any = None


def test_jina_vl_reverses_the_tags_with_the_items() -> None:
    class Base:
        def _cached_apply_hf_processor(self, inputs: Any, timing_ctx: Any) -> Result:
            return Result([1], MultiModalKwargsItems({"image": [item(0), None]}),
                          {"image": ["q", "d"]}, {"image": [[], []]},
                          {"image": [10, 20]})

        def _recompute_cached_prompt_update(self, update: Any, item_idx: int) -> Any:
            return update

    namespace: dict[str, Any] = {"Base": Base, "MultiModalKwargsItems": MultiModalKwargsItems,
                                 "MultiModalProcessingResult": Result,
                                 "ProcessorInputs": object, "TimingContext": object}
    jina = compiled("model_executor/models/jina_vl.py:"
                    "JinaVLMultiModalProcessor._cached_apply_hf_processor", namespace, "Jina")
    result = jina()._cached_apply_hf_processor(None, None)
    assert result.hashes == {"image": ["d", "q"]}
    assert result.tags == {"image": [20, 10]}


def sender() -> Any:
    return LruKeyReplicatedSenderCache(
        CacheConfig(MultiModalConfig(mm_processor_cache_gb=1 / 1024)))


def test_inject_into_mm_cache_returns_the_tags_to_send() -> None:
    """Items injected into the sender come back as references on the second injection,
    with the tag the engine's entry has (no spurious miss)."""
    inject = compiled("v1/engine/input_processor.py:InputProcessor.inject_into_mm_cache",
                      {"logger": types.SimpleNamespace(warning=print)})
    cache = sender()
    processor = types.SimpleNamespace(renderer=types.SimpleNamespace(
        mm_processor_cache=cache, update_mm_cache_stats=lambda: None))
    first = {"image": [item(1), item(2)]}
    tags = inject(processor, {"image": ["a", "b"]}, first)
    again = {"image": [item(1), item(2)]}
    tags_again = inject(processor, {"image": ["a", "b"]}, again)
    assert again == {"image": [None, None]}
    assert tags is not None and tags_again == tags and None not in tags["image"]


def test_the_features_of_a_rendered_prompt_carry_its_tags() -> None:
    """The render step's features (token-in/token-out) carry the prompt's tags."""
    namespace: dict[str, Any] = {
        "MultiModalFeatures": types.SimpleNamespace, "cast": lambda kind, value: value,
        "MultiModalInput": object, "MultiModalHashes": object,
        "placeholder_ranges_from_engine_input": lambda engine_input: {"image": []},
        "_encode_mm_kwargs_with_metadata": lambda raw, **kwargs: ({}, None)}
    extract = compiled("entrypoints/scale_out/token_in_token_out/mm_features.py:"
                       "extract_mm_features", namespace)
    engine_input = {"type": "multimodal", "mm_hashes": {"image": ["a"]},
                    "mm_kwargs": {}, "mm_tags": {"image": [7]}}
    features = extract(engine_input, mm_payload="none")
    assert getattr(features, "mm_tags", None) == {"image": [7]}


def test_the_engine_input_keeps_the_tags() -> None:
    from vllm.inputs.engine import mm_enc_dec_input, mm_input

    try:
        encoder = mm_input([1], MultiModalKwargsItems({"image": [None]}), {"image": ["a"]},
                           {"image": []}, mm_tags={"image": [7]})
    except TypeError as error:
        pytest.fail(f"mm_input takes no tags: {error}")
    assert encoder.get("mm_tags") == {"image": [7]}
    assert mm_enc_dec_input(encoder, [2]).get("mm_tags") == {"image": [7]}


def test_the_engine_keys_an_item_by_its_processing() -> None:
    """`InputProcessor._get_mm_identifier` (the feature's identifier, which the encoder cache
    and the prefix cache's block hashes key on) names the processor cache's tag, with or
    without the LoRA prefix; an untagged item, or any item where an EC or KV connector shares
    the keys with another instance, keys as before."""
    from vllm.multimodal.inputs import tagged_mm_identifier

    identify = compiled("v1/engine/input_processor.py:InputProcessor._get_mm_identifier",
                        {"tagged_mm_identifier": tagged_mm_identifier, "LoRARequest": object})
    plain = types.SimpleNamespace(lora_config=None, tag_mm_identifiers=True)
    lora = types.SimpleNamespace(lora_config=types.SimpleNamespace(
        enable_tower_connector_lora=True), tag_mm_identifiers=True)
    adapter = types.SimpleNamespace(lora_name="l")
    assert identify(plain, "u", None, 5) != identify(plain, "u", None, 6)
    assert identify(plain, "u", None, None) == "u"
    assert identify(lora, "u", adapter, 5) != identify(lora, "u", adapter, 6)
    assert identify(lora, "u", adapter, 5).startswith("l:u")
    connected = types.SimpleNamespace(lora_config=None, tag_mm_identifiers=False)
    assert identify(connected, "u", None, 5) == "u"  # another instance keys by the hash
