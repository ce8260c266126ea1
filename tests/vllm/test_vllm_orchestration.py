"""The release's own orchestration around the caches, in the two modes vLLM runs them:

- P0's update is the release's `_merge_mm_kwargs` in both (`model_checks.adapters.vllm`);
- a miss becomes its reply through the engine core's own `_handle_mm_cache_miss`;
- the offline engine (`factory`) invalidates a miss reply's identities at once, as
  `LLMEngine.step` does; the async server (`async_factory`) runs the renderer's own
  `queue_mm_cache_invalidations` at the reply and `_drain_mm_cache_invalidations` before the
  next lookup, compiled from the installed source.

Under every source a vLLM deployment has (not D5, not D6) the deferred, filtered form gives
the same answers as V2's immediate invalidation: the async mode conforms and reproduces the
D7-alone stale pairing. Only under D6, where the spec lets a reply land between one
request's lookup and its update, does the deferred form differ (the shadow keeps the
identity until the next lookup): the run names the disagreement.
"""

from __future__ import annotations

import re

import pytest

from model_checks.adapters import vllm as glue
from model_checks.adapters.vllm_patched import DEPLOYMENT
from model_checks.cli import main
from model_checks.conform import adapter as api
from model_checks.conform.codec import process_media

ASYNC = "model_checks.adapters.vllm:async_factory"

pytestmark = pytest.mark.vllm


def test_vllm_the_async_server_conforms_to_v2_in_every_vllm_deployment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["conform", "--adapter", ASYNC, "--variant", "V2", "--environment", DEPLOYMENT])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "conformance of vllm 0.33.0 (async server)" in out


def test_vllm_the_async_server_pairs_the_stale_tensor_under_d7_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", ASYNC, "--replay",
                 "docs/results/lattice/V2_D7_S1.json.gz"]) == 4
    assert capsys.readouterr().out.rstrip().endswith(
        "RESULT: REPRODUCED INHERITED WEAKNESS: S1 broken as V2 breaks it (exit 4)")


def test_vllm_the_deferred_invalidation_differs_only_inside_a_split_update(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", ASYNC, "--variant", "V2"]) == 1
    out = capsys.readouterr().out
    block = out.split("disagreement at step", 1)[1].split("  spec:", 1)[0]
    steps = re.findall(r"^\s+\d+\. (\w+)", block, re.M)
    assert "p0_receive_reply" in steps and steps[-1] == "p0_update_item"


def _front_end() -> glue.VllmAsyncFrontEnd:
    return glue.VllmAsyncFrontEnd(api.Setup(1 << 20, "V2", 1, process_media), 0)


def test_vllm_the_renderers_queue_keeps_what_the_shadow_holds_and_drains_at_the_probe() -> None:
    import torch

    fe = _front_end()
    probed = fe.probe((api.ItemIn("a", torch.tensor([1, 4])),))
    assert isinstance(fe.update(probed), api.WireMessage)
    fe.handle_reply(0, ("a", "b"))
    assert fe.renderer._pending_mm_cache_invalidations == {"a"}  # "b" was never held
    assert fe.cache.is_cached(["a"]) == [True] and fe.shadow() == ()
    fe.probe((api.ItemIn("a", torch.tensor([1, 4])),))
    assert fe.cache.is_cached(["a"]) == [False]
    assert fe.renderer._pending_mm_cache_invalidations == set()


def test_vllm_the_queue_drain_and_miss_handling_are_the_releases_own_source() -> None:
    from model_checks.adapters import vllm_pins

    for key in (glue.QUEUE, glue.DRAIN, glue.MISS):
        function = glue.release_method(key)
        assert function.__code__.co_filename == f"<vllm {key}>"
        assert key in vllm_pins.PINS


def test_vllm_the_miss_reply_is_the_engine_cores_own_handling() -> None:
    miss_error = glue.vllm_classes().miss_error
    assert glue.miss_reply(miss_error(["a", "c"])) == ("a", "c")
    assert glue.release_method(glue.MISS).__code__.co_filename == f"<vllm {glue.MISS}>"
