"""Conformance across two real processes: the engine side in a child process behind pyzmq,
tensors serialised with msgspec and raw buffers. Processes are always reaped."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pytest
import torch

from model_checks.cli import main
from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep import Disagreement, Driving, raised, replay
from model_checks.conform.lru_lockstep.corpus import corpus
from model_checks.conform.reference_adapter import ReferenceAdapter, ReferenceEngine
from model_checks.conform.remote import RemoteEngines, _pack_payload, _unpack_payload
from spec import V3

REFERENCE = "model_checks.conform.reference_adapter:factory"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie still answers kill(0); it is reaped by wait(), which close() does
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] == "Z"


def test_conform_reference_passes_the_ci_profile_across_processes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", REFERENCE, "--processes", "2"]) == 0
    assert "two processes" in capsys.readouterr().out


def test_conform_tensors_cross_the_wire_bit_exact() -> None:
    payload = {
        "u8": torch.arange(5, dtype=torch.uint8),
        "f32": torch.linspace(0, 1, 6, dtype=torch.float32).reshape(2, 3),
        "i64": torch.tensor([-(2**40), 7], dtype=torch.int64),
        "bf16": torch.ones(3, dtype=torch.bfloat16),
        "empty": torch.zeros(0, dtype=torch.float32),
        "view": torch.arange(10, dtype=torch.int32)[::2],
    }
    frames: list[memoryview] = []
    refs = _pack_payload(payload, frames)
    back = _unpack_payload(refs, [bytes(f) for f in frames])
    for name, tensor in payload.items():
        assert back[name].dtype == tensor.dtype and torch.equal(back[name], tensor)
        assert back[name].nbytes == tensor.nbytes  # sizes are measured after deserialisation


def test_conform_the_child_is_reaped_on_success_and_on_failure() -> None:
    scenario = next(s for s in corpus() if s.name == "two-identities-miss")
    remote = RemoteEngines("model_checks.mutant_run.reference_mutants:mutant_reports_first_miss")
    try:
        with pytest.raises(Disagreement):
            raised(replay(scenario.config(V3), ReferenceAdapter(), scenario.script,
                          Driving(engine_factory=remote)))
        assert remote.process is not None
        pid = remote.process.pid
    finally:
        remote.close()
    assert remote.process is None and _gone(pid)


@dataclass
class _SleepyEngine(ReferenceEngine):
    def receive(self, message: api.WireMessage) -> api.Delivered:
        time.sleep(3600)  # a real hang, as the ghost-key eviction loop was
        return super().receive(message)


def sleepy_factory() -> ReferenceAdapter:
    """An adapter whose engine never answers (imported by the child process)."""
    adapter = ReferenceAdapter("sleepy")
    adapter.engine = lambda setup: _SleepyEngine(setup, adapter.engine_class)  # type: ignore[method-assign]
    return adapter


def test_conform_a_hung_engine_process_is_a_hang_and_is_killed() -> None:
    scenario = next(s for s in corpus() if s.name == "no-drift-baseline")
    remote = RemoteEngines("tests.conform.test_conform_remote:sleepy_factory", timeout=1.0)
    try:
        with pytest.raises(Disagreement) as caught:
            raised(replay(scenario.config(V3), ReferenceAdapter(), scenario.script,
                          Driving(engine_factory=remote)))
        assert caught.value.caught_by == "S3"
        assert "hang" in str(caught.value.impl_side)
    finally:
        remote.close()
    assert remote.process is None
