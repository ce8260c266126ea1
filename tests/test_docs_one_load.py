"""Generating the docs reads each results file once and, in `--check`, runs no checker: the
kill matrix and the scenario verdicts are rendered from docs/results/ (and the test suite
checks those files against fresh runs)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from model_checks.docs import generate
from model_checks.mutant_run import killmatrix
from model_checks.scenarios import run as scenario_run

DOCS = Path(__file__).resolve().parent.parent / "docs"
RESULTS = (DOCS / "results").resolve()


def _no_checker(*_: object, **__: object) -> None:
    raise AssertionError("docs --check ran a checker")


def test_check_reads_each_results_file_once_and_runs_no_checker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: Counter[Path] = Counter()
    original_text, original_bytes = Path.read_text, Path.read_bytes

    def counted(self: Path, *args: object, **kwargs: object) -> str:
        if self.resolve().is_relative_to(RESULTS):
            reads[self.resolve()] += 1
        return original_text(self, *args, **kwargs)  # type: ignore[arg-type]

    def counted_bytes(self: Path) -> bytes:  # a compressed results file is read as bytes
        if self.resolve().is_relative_to(RESULTS):
            reads[self.resolve()] += 1
        return original_bytes(self)

    monkeypatch.setattr(Path, "read_text", counted)
    monkeypatch.setattr(Path, "read_bytes", counted_bytes)
    for name in ("kill_matrix", "_kill", "default_rows", "independent_rows"):
        monkeypatch.setattr(killmatrix, name, _no_checker)
    monkeypatch.setattr(scenario_run, "replay", _no_checker)
    monkeypatch.setattr(generate, "replay_all", _no_checker)
    generate.pages(DOCS)  # the generator: every results file read once
    assert reads, "no results file was read"
    assert {p: n for p, n in reads.items() if n > 1} == {}
    for name in ("records.json.gz", "lattice.json", "lattice-outcomes.json.gz",
                 "kill-matrix.json", "scenarios.json", "lattice-nightly-outcomes.json.gz",
                 "designs/lru+encoder.json.gz"):
        assert reads[RESULTS / name] == 1, name
    assert generate.check(DOCS) == []  # and the comparison runs no checker either


def test_the_committed_scenario_verdicts_are_a_fresh_run() -> None:
    committed = json.loads((RESULTS / "scenarios.json").read_text())
    assert committed == scenario_run.verdicts_json(scenario_run.replay_all())
