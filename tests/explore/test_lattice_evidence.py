"""Every checker's evidence counts in the lattice: breaks of Z3, Hypothesis, the per-cell
explorer, the scenarios and the pair cells' witnesses are replayed (and with every source
added) before they count, a trace that does not replay is rejected with its reason, the
minimal sets are taken over all of it, and an all-instance proof is reported as such."""

from __future__ import annotations

import copy
from pathlib import Path

from model_checks.docs.lattice_page import answer
from model_checks.explore import evidence
from model_checks.explore.lattice import (
    HOLDS,
    EnvOutcome,
    LatticeRequest,
    Proof,
    seeded,
)
from model_checks.explore.lattice_instance import Rung
from model_checks.explore.lattice_lru import LRU_LATTICE, replayed_break
from model_checks.explore.lattice_report import summarise
from model_checks.kernel import itf

SNAPSHOT = Path(__file__).resolve().parents[2] / "docs" / "results" / "records.json.gz"


def test_the_snapshot_and_the_pair_witnesses_are_replayed_evidence() -> None:
    found = LRU_LATTICE.evidence([SNAPSHOT])
    assert found and not evidence.rejected
    v2_s1 = {b.environment: b for b in found if (b.variant, b.property) == ("V2", "S1")}
    assert v2_s1[("D5", "D7")].checker == "z3-bmc"
    assert {"hypothesis", "z3-bmc"} <= set(v2_s1[("D5", "D7")].found_by)
    for pair in (("D1", "D7"), ("D2", "D7"), ("D6", "D7"), ("D7", "D8")):
        assert v2_s1[pair].checker == "pair-witness", pair


def test_a_trace_that_does_not_replay_is_not_evidence() -> None:
    good = next(b for b in LRU_LATTICE.evidence([SNAPSHOT]) if b.checker == "pair-witness")
    bad = copy.deepcopy(good.trace)
    itf.project(bad)["step"] = good.steps + 1
    made = replayed_break(bad, good.variant, "S1", good.environment, "z3-bmc", "x")
    assert isinstance(made, str) and "without breaking S1" in made
    cut = copy.deepcopy(good.trace)
    cut["states"] = cut["states"][:-1]
    made = replayed_break(cut, good.variant, "S1", good.environment, "z3-bmc", "y")
    assert isinstance(made, str)


def _request() -> LatticeRequest:
    return LatticeRequest(("V2",), ("D5", "D7"), 2, ladder=(Rung(),), design=LRU_LATTICE,
                          processes=1)


def _holding(env: tuple[str, ...]) -> EnvOutcome:
    return EnvOutcome("V2", env, 10, 3, True, 0.0, {"S1": HOLDS}, {}, {"S1": 0})


def test_a_break_from_another_checker_makes_a_minimal_set() -> None:
    """The explorer holds S1 under D5 and D7 alone and under D5+D7 at its rung; Z3's replayed
    D5+D7 break (a larger instance) is the answer, with its checker and instance, and the
    explorer's rung beside it; never "no breaking environment found"."""
    z3 = next(b for b in LRU_LATTICE.evidence([SNAPSHOT])
              if (b.variant, b.property, b.environment) == ("V2", "S1", ("D5", "D7")))
    knowledge = seeded(LRU_LATTICE, ("D5", "D7"), "V2")
    for env in ((), ("D5",), ("D7",), ("D5", "D7")):
        knowledge.learn(_holding(env))
    entry = next(e for e in summarise(_request(), {"V2": knowledge}, [z3])
                 if e["property"] == "S1")
    assert entry["minimal_breaking"] == [["D5", "D7"]]
    witness = entry["traces"][0]
    assert witness["checker"] == "z3-bmc" and witness["held_short"] == "2 requests"
    text = answer({**entry, "traces": [{**witness, "trace": "docs/x.json"}]})
    assert "no breaking environment" not in text and "Z3, its instance" in text
    assert "the explorer holds it with 2 requests" in text
    without = next(e for e in summarise(_request(), {"V2": knowledge}) if e["property"] == "S1")
    assert without["minimal_breaking"] == []  # the check can fail: evidence is what breaks it


def test_an_all_instance_proof_is_reported_as_one() -> None:
    request = LatticeRequest(("V3",), ("D5", "D7"), 2, ladder=(Rung(),), design=LRU_LATTICE,
                             processes=1,
                             proofs=(Proof("V3", "S1", ("D5", "D7"), "z3-parametric", "x"),))
    knowledge = seeded(LRU_LATTICE, request.sources, "V3")
    knowledge.holds["S1"][frozenset(("D5", "D7"))] = 1 << 30
    entry = next(e for e in summarise(request, {"V3": knowledge}) if e["property"] == "S1")
    assert entry["proved_every_instance"]
    assert "for all depths and every instance" in answer(entry)
