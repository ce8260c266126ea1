"""The main job's default output: at most 100 columns, the summary and its legend first, one
progress line per phase with its elapsed time, details in files (or on the terminal with
--verbose), and a failing phase's last lines shown with its exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks import cli
from model_checks.answers.summary import LEGEND, short_environment
from model_checks.jobs import phases as jobs
from model_checks.jobs.phases import checker
from model_checks.jobs.run import WIDTH

ONE_CELL = ("simulate", "--profile", "ci", "--only", "V3_D11", "--no-mutants")


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
         *phases: tuple[str, ...], verbose: bool = False) -> tuple[int, str, str]:
    monkeypatch.setattr(jobs, "MAIN_JOB", tuple(checker(*argv) for argv in phases))
    argv = ["--json", str(tmp_path / "records.json"), *(["--verbose"] if verbose else [])]
    code = cli.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_output_fits_in_100_columns_and_starts_with_the_summary(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    code, out, err = _run(monkeypatch, capsys, tmp_path, ONE_CELL)
    assert code == 0
    for line in (out + err).splitlines():
        assert len(line) <= WIDTH, line
    lines = out.splitlines()
    assert lines[0].startswith("== summary")
    assert lines[1:1 + len(LEGEND)] == list(LEGEND)
    table = next(i for i, line in enumerate(lines) if line.startswith("environment"))
    assert table < next(i for i, line in enumerate(lines) if line == "== phases")
    assert "Rule statistics" not in out and "Scenario suite" not in out  # details: files
    progress = err.splitlines()
    assert progress[1].startswith("main job: every phase interpreted")  # which code ran
    assert [line.split("]")[0] for line in progress[2:]] == ["[1/2", "[2/2"]
    assert all(" exit 0, " in line and "(total " in line for line in progress[2:])
    assert "Rule statistics" in (tmp_path / "2-simulate.txt").read_text()
    assert "Scenario suite" in (tmp_path / "1-scenarios.txt").read_text()
    assert (tmp_path / "summary-by-checker.txt").exists()


def test_the_legend_explains_every_code() -> None:
    text = "\n".join(LEGEND)
    for token in ("Pe", "Pi", "Pb", "vac", "xNC", "Z Z3", "H Hypothesis", "L the lattice",
                  "ok", "?", "-", "!", "the matrix expects"):
        assert token in text, token
    assert all(len(line) <= WIDTH for line in LEGEND)


def test_verbose_prints_each_phase_and_a_failing_phase_shows_its_end(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
) -> None:
    failing = ("simulate", "--only", "no-such-cell")
    code, out, _ = _run(monkeypatch, capsys, tmp_path, failing, verbose=True)
    assert code == 2
    assert "Scenario suite" in out  # --verbose: the scenarios phase's own table
    assert "  exit 2" in out and f"the end of {tmp_path / '2-simulate.txt'}:" in out


def test_environments_are_written_short() -> None:
    assert short_environment(()) == "none"
    assert short_environment(("D5", "D7")) == "D5,7"
    assert short_environment(("D3", "D4", "D5", "D7", "D8", "D9", "D10", "D11")) == "D3-5,7-11"
    assert short_environment(tuple(f"D{n}" for n in range(1, 12))) == "D1-11"
