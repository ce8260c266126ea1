"""`python -m model_checks mutants`: the mutant x checker table, its exit codes and records.

Fast: each test selects one or two mutants and the cheap checkers (the scenario witness, the
conformance run, Z3 on a mutant with a 6-step counterexample, Hypothesis on one mutant).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.kernel.verdict_records import (
    CONFORMANCE,
    SCENARIOS,
    Z3_BMC,
    Verdict,
    read_records,
)
from model_checks.mutant_run import checkers
from model_checks.mutant_run.outcome import Catch, Outcome
from model_checks.mutant_run.reference_mutants import history_mutants
from model_checks.mutation.registry import command_names
from model_checks.mutation.spec_mutants import spec_mutants


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["mutants", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _row(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(name + " "))


def test_a_subset_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "--checkers", "scenario,conformance",
                          "--mutant", "engine-asserts", "--mutant", "ignores-new-size")
    assert code == 0, out
    assert err == ""
    assert "  scenario engine-asserts: caught: S3" in out  # a progress line
    header = next(line for line in out.splitlines() if line.startswith("mutant "))
    assert header.split() == ["mutant", "scenario", "conformance"]
    engine = _row(out, "engine-asserts")
    assert "caught: S3 (8 steps), L4 (8 steps)" in engine
    assert engine.count("caught:") == 2  # the spec mutant and the implementation mutant
    new_size = _row(out, "ignores-new-size")
    assert "caught: S2" in new_size and new_size.rstrip().endswith(" -")  # no impl mutant
    assert "ghost-touch" not in out
    assert out.rstrip().splitlines()[-1].startswith("verdict: every mutant caught")


def test_z3_catches_a_safety_mutant_and_does_not_apply_to_a_trace_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(capsys, "--checkers", "z3",
                        "--mutant", "ignores-new-size", "--mutant", "reports-first-miss")
    assert code == 0, out
    assert "caught: S2 (6 steps)" in _row(out, "ignores-new-size")
    assert _row(out, "reports-first-miss").split() == ["reports-first-miss", "-"]


def test_hypothesis_catches_a_mutant(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--checkers", "hypothesis", "--mutant", "evicts-most-recent")
    assert code == 0, out
    assert "caught: H1 (" in _row(out, "evicts-most-recent")


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["--mutant", "no-such-mutant"], "unknown mutant no-such-mutant; expected one of "),
        (["--checkers", "scenario,tla"], "unknown checker tla; expected a comma-separated"),
        (["--processes", "3"], "--processes must be 1 or 2"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], wanted: str
) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and wanted in err


def test_the_unknown_mutant_error_lists_every_valid_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, _, err = _run(capsys, "--mutant", "nope")
    for name in command_names():
        assert name in err
    assert "receiver-sizes-differently" in err  # implementation-only mutants too


ROOT = Path(__file__).resolve().parents[1]
_NAMED = re.compile(r"mutants(?: [^`\n]*?)? --mutant ([\w-]+)")


def test_every_name_the_command_knows_is_a_registry_name() -> None:
    """What `--mutant` accepts (the registry's data) is exactly the names of the mutants the
    command builds, and every `mutants --mutant NAME` in the docs names a mutant there is."""
    known = command_names()
    selection = checkers.select(None)
    registered = {m.name for m in (*selection.spec, *selection.impl)}
    assert len(known) == len(set(known)) and set(known) == registered
    assert registered == {m.name for m in (*spec_mutants(), *history_mutants())}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    named = {(page.name, name) for page in pages for name in _NAMED.findall(page.read_text())}
    assert named  # the pattern still finds the commands the docs write
    assert not {(page, name) for page, name in named if name not in registered}


def _nothing(selection: checkers.Selection, options: checkers.Options,
             progress: checkers.Progress) -> list[Outcome]:
    del selection, options, progress
    return []


def test_a_checker_that_reports_nothing_leaves_survivors_and_exit_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(checkers.RUNNERS, "scenario", _nothing)
    code, out, _ = _run(capsys, "--checkers", "scenario,conformance",
                        "--mutant", "ghost-touch")
    assert code == 1
    row = _row(out, "ghost-touch")
    assert "SURVIVED" in row and "caught: S3" in row  # scenario survived, conformance caught
    assert "verdict: 1 of 2 mutant x checker cells SURVIVED: ghost-touch (scenario)" in out


def test_a_required_property_missed_is_a_survivor(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def half(selection: checkers.Selection, options: checkers.Options,
             progress: checkers.Progress) -> list[Outcome]:
        return [Outcome(m.name, SCENARIOS, m.breaks, (Catch("S3", 8),))
                for m in selection.spec]

    monkeypatch.setitem(checkers.RUNNERS, "scenario", half)
    code, out, _ = _run(capsys, "--checkers", "scenario", "--mutant", "engine-asserts")
    assert code == 1
    assert "caught: S3 (8 steps); SURVIVED L4" in _row(out, "engine-asserts")


def test_json_writes_one_record_per_mutant_checker_and_property(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mutants.json"
    code, out, _ = _run(capsys, "--checkers", "scenario,conformance",
                        "--mutant", "engine-asserts", "--json", str(path))
    assert code == 0, out
    records = read_records(path)
    assert {r.checker for r in records} == {"scenarios", "conformance"}
    keys = [(r.variant, r.checker, r.property) for r in records]
    assert len(keys) == len(set(keys))
    broken = {r.property for r in records
              if r.checker == "scenarios" and r.verdict is Verdict.COUNTEREXAMPLE}
    assert {"S3", "L4"} <= broken
    (conformance,) = [r for r in records if r.checker == "conformance"]
    assert conformance.variant == "reference-engine-asserts"
    assert conformance.verdict is Verdict.COUNTEREXAMPLE


def test_outcome_text() -> None:
    caught = Outcome("m", Z3_BMC, frozenset({"S1"}), (Catch("S1", 10, "budget 2, sizes 1"),))
    assert caught.text() == "caught: S1 (10 steps, budget 2, sizes 1)"
    assert not caught.survived
    assert Outcome("m", Z3_BMC, frozenset({"S1"}), ()).text() == "SURVIVED"
    modes = Outcome("m", CONFORMANCE, frozenset(), (Catch("S3", 5),), unmet=("two processes",))
    assert modes.survived and modes.text().endswith("; SURVIVED in two processes")


def test_help_states_the_exit_codes_and_the_main_job(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["mutants", "--help"])
    assert exited.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0" in out and "2 usage error" in out
    assert "Not part of the main job" in out
    for option in ("--checkers", "--mutant", "--json", "--processes"):
        assert option in out


def test_applies_follows_what_each_checker_covers() -> None:
    assert checkers.applies("z3", "ghost-touch")  # S3
    assert not checkers.applies("z3", "never-invalidates")  # L1 L3 L4 only
    assert not checkers.applies("conformance", "ignores-new-size")  # spec only
    assert not checkers.applies("scenario", "no-touch-before-update")  # implementation only


def test_z3_searches_again_with_the_witness_bounds_and_reports_a_real_survivor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Too shallow a first search: engine-asserts (7 steps) is found by the second search,
    with its witness's budget and sizes; ignores-new-size is not (with the witness's sizes,
    all 1, its S2 takes more than 8 steps; the whole range breaks it in 6 with larger items),
    so it survives, with what Z3 proved, and exit is 1."""
    code, out, _ = _run(capsys, "--checkers", "z3", "--mutant", "engine-asserts",
                        "--mutant", "ignores-new-size", "--z3-depth", "3",
                        "--z3-deep-depth", "8")
    assert code == 1
    assert "caught: S3 (7 steps, budget 2, sizes 1)" in _row(out, "engine-asserts")
    assert ("SURVIVED (S2: proved to 8 steps with budget 2, sizes 1)"
            in _row(out, "ignores-new-size"))
    assert "SURVIVED: ignores-new-size (z3)" in out


def test_witness_bounds_are_the_witness_configuration_s() -> None:
    by_name = {m.name: m for m in spec_mutants()}
    ghost = checkers.witness_bounds(by_name["ghost-touch"])
    assert (ghost.budget_range, ghost.size_range) == ((1, 1), (1, 1))
    stale = checkers.witness_bounds(by_name["keeps-stale-on-resend"])
    assert (stale.budget_range, stale.size_range) == ((2, 2), (1, 3))
