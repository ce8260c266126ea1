"""The `design` command: one environment explored with its witnesses, refused and unknown
sources as usage errors, and `--check`, which fails where a search contradicts the
committed answers (a planted wrong answer shows it can)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.designs import command
from model_checks.kernel import result_files

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "results" / "designs"


def test_explore_prints_each_verdict_and_a_replayable_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["design", "--design", "shm", "--environment", "D2"]) == 0
    out = capsys.readouterr().out
    assert "U1 breaks in 2 steps" in out and "S1 holds" in out
    assert '1. {"action": "Submit"' in out and '2. {"action": "Reject", "index": 0}' in out


@pytest.mark.parametrize(("environment", "message"), [
    ("D9", "D9 cannot occur in design 'shm': both sides read one object in one store"),
    ("D12", "got 'D12', expected ids among C1, D1-D11, R1"),
])
def test_a_source_the_design_has_not_is_a_usage_error(
    environment: str, message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["design", "--design", "shm", "--environment", environment]) == 2
    assert message in capsys.readouterr().err


def test_check_passes_on_the_committed_answers_and_fails_on_a_planted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    shutil.copy(COMMITTED / "shm.json.gz", tmp_path / "shm.json.gz")
    monkeypatch.setattr(command, "RESULTS", tmp_path)
    assert main(["design", "--check", "--design", "shm"]) == 0
    assert "0 verdict(s) contradict" in capsys.readouterr().out
    planted = result_files.read(tmp_path / "shm.json.gz")
    planted["answers"]["U1"]["D2"] = {"verdict": "holds", "basis": "planted",
                                      "breaking_set": [], "steps": 0}
    result_files.write(tmp_path / "shm.json.gz", planted)
    assert main(["design", "--check", "--design", "shm"]) == 1
    assert "! shm D2 U1: this search says breaks, the committed answer holds" in \
        capsys.readouterr().out
