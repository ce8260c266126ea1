"""The cross-check names a contradiction only when a trace of one checker's instance breaks
what another proved for that instance (made-up records against a real trace), and stays
silent when the trace is not one of that instance."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from model_checks.explore.agreement import disagreements
from model_checks.explore.cell_tasks import CellTask, explore_cell
from model_checks.explore.instance import CI_SHAPES, LRU_REPLAY
from model_checks.kernel.trace_file import config_to_json
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from spec import V2


def _h1_counterexample(tmp_path: Path) -> tuple[VerdictRecord, dict[str, object]]:
    outcome = explore_cell(CellTask(V2, ("D1",), tmp_path, 30_000, CI_SHAPES, False))
    record = next(r for r in outcome.records if r.property == "H1")
    assert record.verdict is Verdict.COUNTEREXAMPLE
    return record, outcome.config


def test_a_trace_of_the_instance_contradicts_a_proof(tmp_path: Path) -> None:
    found, instance = _h1_counterexample(tmp_path)
    claimed = replace(found, verdict=Verdict.PROVED, counterexample_path=None)
    other = replace(found, checker="hypothesis")
    lines = disagreements([claimed], {("V2", ("D1",)): instance}, [other], LRU_REPLAY)
    assert len(lines) == 1 and "is a trace of that instance" in lines[0]


def test_a_trace_outside_the_instance_contradicts_nothing(tmp_path: Path) -> None:
    found, instance = _h1_counterexample(tmp_path)
    claimed = replace(found, verdict=Verdict.PROVED, counterexample_path=None)
    other = replace(found, checker="hypothesis")
    from model_checks.explore.instance import explore_config

    no_reordering = config_to_json(explore_config(V2, ()))  # the trace reorders: not a trace
    assert disagreements([claimed], {("V2", ("D1",)): no_reordering}, [other], LRU_REPLAY) == []
    assert instance != no_reordering


def test_a_z3_proof_contradicted_by_an_explorer_trace(tmp_path: Path) -> None:
    found, instance = _h1_counterexample(tmp_path)
    proof = replace(found, checker="z3-induction", verdict=Verdict.PROVED, bound=None,
                    counterexample_path=None)
    lines = disagreements([found], {("V2", ("D1",)): instance}, [proof], LRU_REPLAY)
    assert len(lines) == 1 and "proved it to all depths" in lines[0]
    shallow = replace(proof, checker="z3-bmc", bound=2)
    assert disagreements([found], {("V2", ("D1",)): instance}, [shallow], LRU_REPLAY) == []


def test_a_break_in_a_smaller_environment_contradicts_a_proof_above_it(
    tmp_path: Path,
) -> None:
    """Across instances and environments: a planted explorer proof of H1 for V2 under
    D1+D7 (whose instance contains every run of D1's) is contradicted by Hypothesis's (or
    the explorer's own) D1 counterexample, which runs on that instance; a proof under an
    environment that does not contain D1 is not."""
    from model_checks.explore.instance import explore_config

    found, _ = _h1_counterexample(tmp_path)
    above = config_to_json(explore_config(V2, ("D1", "D7")))
    claimed = replace(found, environment=("D1", "D7"), verdict=Verdict.PROVED,
                      counterexample_path=None)
    other = replace(found, checker="hypothesis")
    lines = disagreements([claimed], {("V2", ("D1", "D7")): above}, [other], LRU_REPLAY)
    assert len(lines) == 1 and "across environments: D1" in lines[0]
    own = disagreements([claimed, found], {("V2", ("D1", "D7")): above}, [], LRU_REPLAY)
    assert len(own) == 1 and "is a trace of that instance" in own[0]
    beside = replace(claimed, environment=("D7",))
    assert disagreements([beside], {("V2", ("D7",)): above}, [other], LRU_REPLAY) == []


def test_a_z3_proof_above_an_explorer_break_is_a_contradiction(tmp_path: Path) -> None:
    found, instance = _h1_counterexample(tmp_path)
    proof = replace(found, checker="z3-induction", verdict=Verdict.PROVED, bound=None,
                    counterexample_path=None, environment=("D1", "D7"))
    lines = disagreements([found], {("V2", ("D1",)): instance}, [proof], LRU_REPLAY)
    assert len(lines) == 1 and "under D1+D7" in lines[0]
