"""The main job's summary table: strongest result per cell, and contradictions marked."""

from __future__ import annotations

from model_checks.answers.summary import matrix_summary, summary
from model_checks.kernel.matrix import EXPECTED, Expectation
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from model_checks.scenarios.run import records, replay_all
from spec import VARIANT_NAMES, property_ids


def _row(table: str, variant: str, env: str) -> str:
    return next(
        line for line in table.splitlines() if line.split()[:2] == [variant, env]
    )


def test_summary_orders_results_and_marks_contradictions() -> None:
    cell = next(c for c in EXPECTED if c.variant == "V3" and c.environment == ())
    assert cell.expectations["S1"] is Expectation.HOLDS
    found = [
        VerdictRecord("z3-induction", "V3", (), "S1", Verdict.PROVED, None, "depth", 1.0),
        VerdictRecord("hypothesis", "V3", (), "S1", Verdict.HOLDS, 300, "examples", 1.0),
        VerdictRecord("hypothesis", "V3", (), "H1", Verdict.COUNTEREXAMPLE, 9, "steps", 1.0,
                      counterexample_length=9),
    ]
    row = _row(matrix_summary(found), "V3", "none")
    assert "P* ok" in row and "x9H!" in row  # H1 is expected to hold with nothing drifting
    assert "!" not in row.split("x9H")[0]


def test_a_counterexample_is_never_hidden_behind_the_explorers_smaller_instance() -> None:
    """The explorer's `Pi`/`vac` hold for its instance only; a Hypothesis counterexample in the
    matrix's larger instance is the cell's most decisive result (here V1 under D1, L2)."""
    cell = next(c for c in EXPECTED if c.variant == "V1" and c.environment == ("D1",))
    assert cell.expectations["L2"] is Expectation.BREAKS
    found = [
        VerdictRecord("explore", "V1", ("D1",), "L2", Verdict.PROVED, None, "instance", 1.0),
        VerdictRecord("explore", "V1", ("D1",), "L1", Verdict.VACUOUS, None, "instance", 1.0),
        VerdictRecord("hypothesis", "V1", ("D1",), "L2", Verdict.COUNTEREXAMPLE, 14, "steps",
                      1.0, counterexample_length=14),
        VerdictRecord("hypothesis", "V1", ("D1",), "L1", Verdict.COUNTEREXAMPLE, 12, "steps",
                      1.0, counterexample_length=12),
    ]
    row = next(line for line in summary(found).splitlines() if line.split()[:2] == ["D1", "V1"])
    marks = {prop: "-" for prop in property_ids()} | {"L1": "x12H!", "L2": "x14H"}
    assert row.split()[2:] == list(marks.values())
    assert "x14H Pi" in _row(matrix_summary(found), "V1", "D1")


def test_scenario_records_cover_every_property_of_every_run() -> None:
    verdicts = replay_all()
    made = records(verdicts)
    judging = [v for v in verdicts if v.judges_cell]  # not the 3-unfinished-requests one
    assert len(judging) == len(verdicts) - len(VARIANT_NAMES)  # that one runs per variant
    assert len(made) == len(judging) * len(property_ids())
    broken = {(r.detail, r.variant, r.property) for r in made
              if r.verdict is Verdict.COUNTEREXAMPLE}
    assert ("scenario engine-cleared-alone", "V0", "S3") in broken
