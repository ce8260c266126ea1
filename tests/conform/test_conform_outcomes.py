"""Exit codes and words that cannot mislead, and two-process mode without numpy.

- a variant the adapter does not support: exit 2 when asked for, "not checked" otherwise;
- 0 lockstep steps is never "conforms";
- harness failures (a killed or stopped engine process, one that never starts) have their own
  exit code (3) and record, and are never the implementation's S3; a dead child is noticed
  by looking at it, not by waiting for the timeout;
- clear()/restart() may return a Fault, and a hang inside them is reported as a hang.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep import Disagreement, Driving, raised, replay
from model_checks.conform.lru_lockstep.corpus import corpus
from model_checks.conform.lru_lockstep.run import conform
from model_checks.conform.profiles import ConformProfile
from model_checks.conform.reference_adapter import ReferenceAdapter, ReferenceEngine
from model_checks.conform.remote import RemoteEngines, tensor_bytes
from model_checks.kernel.verdict_records import Verdict, read_records
from spec import V3

REFERENCE = "model_checks.conform.reference_adapter:factory"
HERE = "tests.conform.test_conform_outcomes"


def v2_only() -> ReferenceAdapter:
    """The reference claiming V2 only (as a third-party adapter without V3 would)."""
    return ReferenceAdapter("reference-v2-only", variants=("V2",))


def no_variant() -> ReferenceAdapter:
    return ReferenceAdapter("supports-nothing", variants=())


def test_conform_an_unsupported_variant_asked_for_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", f"{HERE}:v2_only", "--variant", "V3"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "does not support V3" in err and "V2" in err


def test_conform_an_unsupported_variant_not_asked_for_is_not_checked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", f"{HERE}:v2_only"]) == 0
    out = capsys.readouterr().out
    assert "variants checked: V2;" in out and "not checked" in out and "V0 V1 V3" in out


def test_conform_zero_steps_never_conforms(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["conform", "--adapter", f"{HERE}:no_variant", "--json", str(out)]) == 1
    text = capsys.readouterr().out
    assert "NOTHING CHECKED" in text and "conforms" not in text
    assert not conform(no_variant(), ConformProfile("t", 1, 5)).conforms
    assert any(r.verdict is Verdict.UNKNOWN for r in read_records(out))


def test_conform_unknown_required_property_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conform", "--adapter", REFERENCE, "--require", "S1,S9"]) == 2
    assert "S9" in capsys.readouterr().err


# -- harness failures ------------------------------------------------------------------------


@dataclass
class _SuicidalEngine(ReferenceEngine):
    """Kills its own process at the first message: the engine process dies (SIGKILL)."""

    def receive(self, message: api.WireMessage) -> api.Delivered:
        os.kill(os.getpid(), signal.SIGKILL)
        return super().receive(message)


def suicidal_factory() -> ReferenceAdapter:
    adapter = ReferenceAdapter("suicidal")
    adapter.engine = lambda setup: _SuicidalEngine(setup, adapter.engine_class)  # type: ignore[method-assign]
    return adapter


def test_conform_a_killed_engine_process_is_a_harness_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    argv = ["conform", "--adapter", f"{HERE}:suicidal_factory", "--processes", "2",
            "--variant", "V3", "--json", str(out)]
    assert main(argv) == 3
    text = capsys.readouterr().out
    # noticed by looking at the child (its exit), not by the 20 s reply timeout
    assert "HARNESS FAILURE" in text and "killed by signal 9" in text
    assert "no reply" not in text and "S3" not in text.split("safety")[0]
    records = read_records(out)
    failed = [r for r in records if r.property == "lockstep" and r.verdict is Verdict.UNKNOWN]
    assert failed and "harness failure" in failed[0].detail


def test_conform_a_stopped_engine_process_is_a_harness_failure() -> None:
    scenario = next(s for s in corpus() if s.name == "no-drift-baseline")
    remote = RemoteEngines(REFERENCE, timeout=30.0)
    try:
        raised(replay(scenario.config(V3), ReferenceAdapter(), scenario.script[:2],
                      Driving(engine_factory=remote)))  # the child is up
        assert remote.process is not None
        os.kill(remote.process.pid, signal.SIGSTOP)
        with pytest.raises(api.HarnessFailure, match="stopped"):
            replay(scenario.config(V3), ReferenceAdapter(), scenario.script,
                   Driving(engine_factory=remote))
    finally:
        if remote.process is not None:
            os.kill(remote.process.pid, signal.SIGKILL)
        remote.close()


# -- clear() and restart() may fail ----------------------------------------------------------


@dataclass
class _FaultyClearEngine(ReferenceEngine):
    def clear(self) -> api.Fault | None:
        return api.Fault("hang", "eviction made no progress inside clear")


@dataclass
class _HangingClearEngine(ReferenceEngine):
    def clear(self) -> api.Fault | None:
        while True:  # a livelock inside clear: only a timeout across processes ends it
            time.sleep(0.05)


def hanging_clear_factory() -> ReferenceAdapter:
    adapter = ReferenceAdapter("hanging-clear")
    adapter.engine = lambda setup: _HangingClearEngine(setup, adapter.engine_class)  # type: ignore[method-assign]
    return adapter


def _cleared_scenario() -> tuple[object, ...]:
    scenario = next(s for s in corpus() if s.name == "engine-cleared-alone")
    return scenario.config(V3), scenario.script


def test_conform_a_fault_returned_by_clear_is_the_implementations_s3() -> None:
    config, script = _cleared_scenario()
    adapter = ReferenceAdapter("faulty-clear")
    with pytest.raises(Disagreement) as caught:
        raised(replay(config, adapter, script, Driving(
            engine_factory=lambda s: _FaultyClearEngine(s, adapter.engine_class))))
    assert caught.value.caught_by == "S3" and "inside clear" in str(caught.value.impl_side)


def test_conform_a_livelock_in_clear_across_processes_is_a_hang() -> None:
    config, script = _cleared_scenario()
    remote = RemoteEngines(f"{HERE}:hanging_clear_factory", timeout=1.0)
    try:
        with pytest.raises(Disagreement) as caught:
            raised(replay(config, ReferenceAdapter(), script, Driving(engine_factory=remote)))
    finally:
        remote.close()
    assert caught.value.caught_by == "S3" and "hang" in str(caught.value.impl_side)


# -- two processes without numpy ---------------------------------------------------------------


def test_conform_tensor_bytes_need_no_numpy_and_copy_views() -> None:
    import torch

    base = torch.arange(12, dtype=torch.int16)
    assert tensor_bytes(base[3:7]) == bytes(base[3:7].clone().untyped_storage())
    assert len(tensor_bytes(base.reshape(3, 4).t())) == base.nbytes


def test_conform_two_processes_run_with_numpy_unimportable(tmp_path: Path) -> None:
    """What `pip install -e '.[dev]'` gives: no numpy. Parent and child both find numpy
    missing (ModuleNotFoundError, which torch checks for); the two-process run must still
    conform (before the fix it failed at step 3 with "Numpy is not available", blamed on the
    implementation as S3)."""
    blocker = tmp_path / "numpy"
    blocker.mkdir()
    (blocker / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(root)]))
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-m", "model_checks", "conform", "--adapter",
         REFERENCE, "--processes", "2", "--variant", "V3"],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "every step agreed" in done.stdout
