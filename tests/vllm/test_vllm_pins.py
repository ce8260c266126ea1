"""The vLLM functions the adapters' glue runs or stands for are pinned to their source in the
supported release (`model_checks.adapters.vllm_pins`): a release that changes one fails here,
naming it, before its answers are trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.adapters import vllm_patched, vllm_pins

pytestmark = pytest.mark.vllm


def test_vllm_every_pinned_function_is_as_the_glue_was_written_against() -> None:
    assert vllm_pins.changed() == {}, (
        "the installed release changed what the glue runs or stands for; read these "
        "functions, then the glue (model_checks/adapters/vllm.py), then update the pins")


def test_vllm_a_changed_function_is_named(tmp_path: Path) -> None:
    key = "renderers/base.py:BaseRenderer.queue_mm_cache_invalidations"
    relative = key.partition(":")[0]
    original = (vllm_pins.package_dir() / relative).read_text()
    (tmp_path / relative).parent.mkdir(parents=True)
    (tmp_path / relative).write_text(original.replace(
        "pending = {h for h in mm_hashes if cache.is_cached_item(h)}",
        "pending = set(mm_hashes)"))
    assert vllm_pins.changed(tmp_path)[key] != vllm_pins.PINS[key]
    (tmp_path / relative).unlink()
    assert vllm_pins.changed(tmp_path)[key] == "gone"


def test_vllm_the_patched_copy_changes_exactly_the_pinned_callers_it_patches() -> None:
    root = vllm_patched.patched_dir() / "vllm"
    if not root.is_dir():
        pytest.skip(f"the patched vLLM copy is not built; run {vllm_patched.SETUP_SCRIPT}")
    assert set(vllm_pins.changed(root)) == {
        "multimodal/processing/processor.py:BaseMultiModalProcessor._merge_mm_kwargs",
        "multimodal/processing/processor.py:BaseMultiModalProcessor._cached_apply_hf_processor",
        "multimodal/cache/base.py:BaseMultiModalReceiverCache.get_and_update_features",
        "v1/engine/input_processor.py:InputProcessor.process_inputs",
    }
