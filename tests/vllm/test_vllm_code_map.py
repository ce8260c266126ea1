"""The action-to-code tables (`model_checks.adapters.vllm_code_map`): every spec action of
each design has one row, every function a row names is pinned, and the installed release
matches every pin (a planted wrong pin, a function that is gone and a changed source are
each named); and the release's source shows why the shm design has a preemption re-send and
the LRU design does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.adapters import vllm_code_map, vllm_pins
from spec.designs.shm.actions import ACTION_TYPES as SHM_ACTIONS
from spec.transitions import ACTION_TYPES as LRU_ACTIONS


def test_every_action_of_each_design_has_one_row() -> None:
    for design, actions in (("lru", LRU_ACTIONS), ("shm", SHM_ACTIONS)):
        rows = [r.action for r in vllm_code_map.TABLES[design]]
        assert rows == [a.__name__ for a in actions], design
    named = {key for rows in vllm_code_map.TABLES.values() for row in rows for key in row.functions}
    assert named - set(vllm_code_map.PINS) == set()


@pytest.mark.vllm
def test_vllm_every_function_of_the_tables_is_as_pinned() -> None:
    assert vllm_pins.changed(pins=vllm_code_map.PINS) == {}, (
        "the installed release changed code a spec action stands for; read it, then the "
        "design's actions, then update the pins")


@pytest.mark.vllm
def test_vllm_a_wrong_pin_a_missing_function_and_a_changed_source_are_named(
        tmp_path: Path) -> None:
    key = "multimodal/cache/shm.py:ShmObjectStoreSenderCache.clear_cache"
    assert vllm_pins.changed(pins={key: "0" * 16}) == {key: vllm_code_map.PINS[key]}
    gone = "multimodal/cache/shm.py:ShmObjectStoreSenderCache.no_such_method"
    assert vllm_pins.changed(pins={gone: "0" * 16}) == {gone: "gone"}
    relative = key.partition(":")[0]
    original = (vllm_pins.package_dir() / relative).read_text()
    (tmp_path / relative).parent.mkdir(parents=True)
    (tmp_path / relative).write_text(original.replace("self._p0_cache.clear()", "pass"))
    changed = vllm_pins.changed(tmp_path, {key: vllm_code_map.PINS[key]})
    assert set(changed) == {key} and changed[key] != "gone"


def _source(key: str) -> str:
    text = vllm_pins.source(key)
    assert text is not None, key
    return text


@pytest.mark.vllm
def test_vllm_the_lru_receiver_reads_before_the_scheduler_and_shm_workers_read_resends(
) -> None:
    """LRU: the engine core resolves a request's items before it becomes the scheduler's
    `Request`, and the workers build no receiver cache for `lru`. shm: with the V2 model
    runner a resumed request is sent as a new one, its handles kept, and the workers read
    every new request."""
    preprocess = _source("v1/engine/core.py:EngineCore.preprocess_add_request")
    assert (preprocess.index("get_and_update_features")
            < preprocess.index("Request.from_engine_core_request"))
    factory = _source("multimodal/cache/factories.py:worker_receiver_cache_from_config")
    assert 'cache_type in (None, "processor_only", "lru")' in factory
    schedule = _source("v1/core/sched/scheduler.py:Scheduler.schedule")
    assert "scheduled_new_reqs.extend(scheduled_resumed_reqs)" in schedule
    assert "mm_receiver_cache" not in (vllm_pins.package_dir()
                                       / "v1/core/sched/scheduler.py").read_text()
    strip = _source("multimodal/utils.py:strip_covered_mm_data")
    assert 'or "address" in f.data' in strip
    apply = _source("v1/worker/worker_base.py:WorkerWrapperBase._apply_mm_cache")
    assert "scheduled_new_reqs" in apply and "get_and_update_features" in apply
