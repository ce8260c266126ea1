"""The answer rule: a break stands above its environment and is never hidden behind a hold;
an all-instance hold covers every environment inside its own; a hold of one cell covers that
cell only; the widest hold is the one shown; a store that contradicts itself is refused."""

from __future__ import annotations

import pytest

from model_checks.answers import AnswerStore, Facts, Hold, Reach, Verdict, Witness
from model_checks.answers.build import LatticeRun, build

D7_BREAK = Witness(8, ("D7",), "explore-lattice", "rung 1", "docs/results/lattice/x.json.gz")
EVERY = Hold(("D1", "D2", "D3"), Reach.EVERY_INSTANCE, "z3-parametric", "", True)
CELL = Hold(("D9",), Reach.INSTANCE, "explore", "2 requests", False, 2)
RUNG = Hold(("D8", "D9"), Reach.INSTANCE, "explore-lattice", "3 requests", True, 3)


def _store(facts: Facts) -> AnswerStore:
    return AnswerStore({("V2", "S1"): facts})


def test_a_break_stands_under_every_environment_containing_it() -> None:
    store = _store(Facts((D7_BREAK,), (CELL,)))
    answer = store.answer("V2", ("D1", "D7"), "S1")
    assert answer.verdict is Verdict.BREAKS and answer.witness == D7_BREAK
    assert answer.mark() == "x8" and "8 steps under D7" in answer.words()
    assert store.answer("V2", ("D1",), "S1").verdict is Verdict.UNDECIDED


def test_the_shortest_witness_inside_is_shown() -> None:
    shorter = Witness(5, ("D1", "D7"), "z3-bmc", "Z3's", "")
    store = _store(Facts((D7_BREAK, shorter)))
    assert store.answer("V2", ("D7",), "S1").witness == D7_BREAK
    assert store.answer("V2", ("D1", "D2", "D7"), "S1").witness == shorter
    assert store.minimal_breaking("V2", "S1") == (("D7",),)


def test_an_all_instance_hold_covers_below_it_only() -> None:
    store = _store(Facts(holds=(EVERY,)))
    assert store.answer("V2", ("D1", "D3"), "S1").reach is Reach.EVERY_INSTANCE
    assert store.answer("V2", (), "S1").mark() == "Pe"
    assert store.answer("V2", ("D1", "D4"), "S1").verdict is Verdict.UNDECIDED


def test_a_cell_hold_covers_its_cell_and_the_widest_hold_is_shown() -> None:
    store = _store(Facts(holds=(CELL, RUNG)))
    assert store.answer("V2", ("D9",), "S1").instance == "3 requests"  # the rung: wider
    assert store.answer("V2", ("D8",), "S1").instance == "3 requests"
    alone = _store(Facts(holds=(CELL,)))
    assert alone.answer("V2", ("D9",), "S1").mark() == "Pi"
    assert alone.answer("V2", (), "S1").verdict is Verdict.UNDECIDED  # not downward


def test_a_vacuous_answer_is_kept_and_a_break_outranks_every_hold() -> None:
    vacuous = _store(Facts(vacuous="no miss reply"))
    assert vacuous.answer("V2", ("D1",), "S1").kept
    over = _store(Facts((D7_BREAK,), (RUNG, Hold(("D7",), Reach.INSTANCE, "explore", "x",
                                                 False))))
    assert over.answer("V2", ("D7",), "S1").breaks


def test_an_all_instance_hold_over_a_witness_is_refused() -> None:
    wrong = Hold(("D7", "D8"), Reach.EVERY_INSTANCE, "z3-parametric", "", True)
    assert _store(Facts((D7_BREAK,), (wrong,))).contradictions()
    entry = {"variant": "V2", "property": "S1", "ladder": ["2 requests"], "vacuous": "",
             "traces": [{"drift": ["D7"], "steps": 8, "checker": "explore-lattice",
                         "instance": "rung", "trace": "docs/results/lattice/x.json.gz"}],
             "every_instance": {"proofs": [{"environment": ["D7", "D8"],
                                            "checker": "z3-parametric"}]}}
    with pytest.raises(ValueError, match="contradicts itself"):
        build([LatticeRun("lattice.json", [entry], [])], [], {})


def test_the_store_round_trips_through_its_json() -> None:
    store = _store(Facts((D7_BREAK,), (EVERY, CELL), "why"))
    again = AnswerStore.from_json(store.to_json())
    assert again.facts == store.facts


def test_conformance_records_are_no_evidence_about_the_spec() -> None:
    from model_checks.answers.build import record_facts
    from model_checks.kernel.verdict_records import Verdict as RecordVerdict
    from model_checks.kernel.verdict_records import VerdictRecord

    implementation = VerdictRecord("conformance-safety", "V0", ("D1",), "S3",
                                   RecordVerdict.COUNTEREXAMPLE, 5, "steps", 0.0,
                                   counterexample_length=5)
    spec_break = VerdictRecord("explore", "V0", ("D1",), "S3", RecordVerdict.COUNTEREXAMPLE,
                               None, "depth", 0.0, counterexample_length=5)
    assert record_facts([implementation], {}) == {}
    (facts,) = record_facts([implementation, spec_break], {}).values()
    assert [w.checker for w in facts.witnesses] == ["explore"]
