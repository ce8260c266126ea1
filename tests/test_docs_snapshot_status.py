"""The main job's line about the docs snapshot: current, or how many verdicts differ."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from model_checks.docs.snapshot import (
    RECORDS,
    carried_over,
    differing_cells,
    key,
    read_run,
    undecided_here,
)
from model_checks.jobs.phases import PROVE_NIGHTLY_ONLY
from model_checks.jobs.run import snapshot_status
from model_checks.kernel.verdict_records import Verdict

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_snapshot_is_current_for_its_own_records() -> None:
    records = read_run(DOCS / RECORDS)
    line = snapshot_status(records, Path("build/main-job/records.json"))
    assert "current" in line and "\n" not in line


def test_changed_verdicts_are_counted_but_times_and_lengths_are_not() -> None:
    records = read_run(DOCS / RECORDS)
    retimed = [replace(r, seconds=r.seconds + 1.0, counterexample_length=None) for r in records]
    assert differing_cells(retimed, records) == 0
    first = next(i for i, r in enumerate(records) if r.checker == "hypothesis")
    changed = list(records)
    other = Verdict.HOLDS if records[first].verdict is Verdict.COUNTEREXAMPLE else (
        Verdict.COUNTEREXAMPLE)
    changed[first] = replace(records[first], verdict=other)
    assert differing_cells(changed, records) == 1
    line = snapshot_status(changed, Path("build/main-job/records.json"))
    assert "differs" in line and "1 " in line
    assert "docs --from-run build/main-job/records.json" in line


def test_a_run_with_undecided_cells_the_snapshot_decides_is_never_advised_as_a_refresh() -> None:
    records = read_run(DOCS / RECORDS)
    first = next(i for i, r in enumerate(records)
                 if r.checker == "z3-bmc" and r.verdict is Verdict.COUNTEREXAMPLE)
    changed = list(records)
    changed[first] = replace(records[first], verdict=Verdict.UNKNOWN)
    assert undecided_here(changed, records) == [key(records[first])]
    line = snapshot_status(changed, Path("build/main-job/records.json"))
    assert "kept" in line and "--from-run" not in line and "\n" not in line


def test_cells_a_run_leaves_to_the_nightly_job_are_no_difference_and_are_kept() -> None:
    """The main job leaves Z3's groups of `PROVE_NIGHTLY_ONLY` to the nightly job: their absence
    is no difference, and a refresh keeps their committed records (`carried_over`)."""
    records = read_run(DOCS / RECORDS)
    left_out = set(PROVE_NIGHTLY_ONLY)
    run = [r for r in records
           if not (r.checker.startswith("z3") and tuple(r.environment) in left_out)]
    assert len(run) < len(records)
    assert differing_cells(run, records) == 0
    kept = carried_over(run, records)
    assert kept and all(r.checker.startswith("z3") and tuple(r.environment) in left_out
                        for r in kept)
    assert len(kept) + len(run) == len(records)
    assert carried_over(records, records) == []


def test_a_cell_z3_answers_again_by_another_method_loses_its_earlier_z3_record() -> None:
    """Z3's record names (`z3-bmc`, `z3-induction`) are one checker: a run whose BMC answers a
    cell the snapshot holds an induction record of replaces it, never keeps both."""
    records = read_run(DOCS / RECORDS)
    induction = next(r for r in records if r.checker == "z3-induction")
    run = [replace(induction, checker="z3-bmc")]
    assert induction not in carried_over(run, [induction])
    other = next(r for r in records if r.checker == "z3-induction" and key(r) != key(induction))
    assert carried_over(run, [other]) == [other]
