"""The composed path's witnesses replayed on vLLM 0.33.0's own `EncoderCacheManager`
(`model_checks.adapters.vllm_encoder`): the D2+D7 engine death and the D7 silent reuse
reproduce (exit 4), a prefix of the death that stops before the fatal step does not (0), a
property of the processor cache's stage is not followed (5), a file that is no witness is
refused in one line (2), and a release whose manager forgets its entries disagrees with the
spec (1). Skips in one line without vLLM."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from model_checks.adapters import vllm_encoder
from model_checks.designs.path_witnesses import engine_death_actions, engine_death_config
from model_checks.designs.results import describe
from model_checks.designs.witness_files import WitnessDocument, document
from model_checks.kernel import itf
from spec.designs.paths import PROCESSOR_THEN_ENCODER

pytestmark = pytest.mark.skipif(importlib.util.find_spec("vllm") is None,
                                reason="vLLM is not installed (scripts/setup-vllm)")

WITNESSES = Path(__file__).resolve().parents[2] / "docs/results/designs/lru+encoder/witnesses"


def _written(tmp_path: Path, prop: str, steps: int | None = None) -> Path:
    config, actions = engine_death_config(), engine_death_actions()
    found = WitnessDocument(PROCESSOR_THEN_ENCODER, "V2+EC", config.environment, prop,
                            actions[:steps], describe(config))
    path = tmp_path / f"{prop}.json"
    itf.write_trace(path, document(found))
    return path


def test_the_committed_witnesses_reproduce_on_the_release(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert vllm_encoder.main(["--replay", str(WITNESSES / "D2+D7_E.S3.json")]) == 4
    assert "Attempted to assign 1 multimodal tokens to 2 placeholders" in \
        capsys.readouterr().out
    assert vllm_encoder.main(["--replay", str(WITNESSES / "D7_E2E.json")]) == 4
    assert "embeddings of h.v1 with placeholders of h.v0" in capsys.readouterr().out


def test_a_prefix_before_the_fatal_step_does_not_reproduce(tmp_path: Path) -> None:
    assert vllm_encoder.main(["--replay", str(_written(tmp_path, "E.S3", -1))]) == 0


def test_the_processor_cache_s_property_is_not_followed(tmp_path: Path) -> None:
    assert vllm_encoder.main(["--replay", str(_written(tmp_path, "P.S1"))]) == 5


def test_a_file_that_is_no_witness_is_refused(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert vllm_encoder.main(["--replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a JSON object" in err


def test_a_release_that_forgets_entries_disagrees(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vllm_encoder.ReleaseEncoderCache, "entries", lambda self: {})
    assert vllm_encoder.main(["--replay", str(_written(tmp_path, "E.S3"))]) == 1
