"""The committed answers of the encoder design and of the composed path
(docs/results/designs/encoder.json, lru+encoder.json) and their witnesses: every witness replays
on the spec and breaks its property, the end-to-end property is decided under every environment
of the path, the D2+D7 engine death is committed, and `explore --lattice --check` re-derives the
encoder design's answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.designs.witness_files import read
from model_checks.explore.exploration import replay
from model_checks.kernel import result_files

RESULTS = Path(__file__).resolve().parents[2] / "docs" / "results" / "designs"


@pytest.mark.parametrize("design", ["encoder", "lru+encoder"])
def test_every_committed_witness_replays_and_breaks_its_property(design: str) -> None:
    files = sorted((RESULTS / design / "witnesses").glob("*.json"))
    assert files
    for path in files:
        witness = read(path)  # its recorded states are the spec's
        prop = next(p for p in witness.design.properties if p.id == witness.property_id)
        assert replay(witness.design, witness.config(), witness.actions, prop), path.name


def test_the_path_decides_e2e_everywhere_and_commits_the_engine_death() -> None:
    committed = result_files.read(RESULTS / "lru+encoder.json.gz")
    answers = committed["answers"]["E2E"]
    assert len(answers) == 2 ** len(committed["sources"])
    assert {a["verdict"] for a in answers.values()} == {"holds", "breaks"}
    assert committed["minimal"]["E.S3"] == ["D2+D7"]
    death = json.loads((RESULTS / "lru+encoder/witnesses/D2+D7_E.S3.json").read_text())
    assert "Attempted to assign 1 multimodal tokens to 2 placeholders" in \
        death["#meta"]["paired-caches"]["reason"]


def test_the_lattice_check_rederives_the_encoder_design(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--lattice", "--check", "--design", "encoder"]) == 0
    assert "0 verdict(s) contradict" in capsys.readouterr().out
