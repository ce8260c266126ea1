"""The summary's explore column: `xNE`, `Pi`, `vac`; a complete explorer verdict replaces
Z3's bounded `Pk` and Hypothesis's sampled `ok`; an explorer proof where the matrix expects a
break contradicts nothing (its instance is smaller), its counterexample where the matrix
expects the property to hold does."""

from __future__ import annotations

from model_checks.answers.summary import _cell, code
from model_checks.kernel.matrix import Expectation
from model_checks.kernel.verdict_records import Verdict, VerdictRecord


def _record(checker: str, verdict: Verdict, bound: int | None = None,
            length: int | None = None) -> VerdictRecord:
    return VerdictRecord(checker, "V2", ("D1",), "H1", verdict, bound, "steps", 0.1, length)


def test_explore_codes() -> None:
    assert code(_record("explore", Verdict.PROVED))[1] == "Pi"
    assert code(_record("explore", Verdict.VACUOUS))[1] == "vac"
    assert code(_record("explore", Verdict.COUNTEREXAMPLE, 5, 5))[1] == "x5E"


def test_complete_verdict_replaces_bounded_ones() -> None:
    records = [_record("explore", Verdict.PROVED), _record("z3-bmc", Verdict.PROVED, 6),
               _record("hypothesis", Verdict.HOLDS, 30)]
    assert _cell(records, Expectation.HOLDS) == "Pi"
    assert _cell(records[:1], Expectation.BREAKS) == "Pi"
    broken = [_record("explore", Verdict.COUNTEREXAMPLE, 5, 5)]
    assert _cell(broken, Expectation.HOLDS) == "x5E!"
