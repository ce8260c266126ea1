"""V3's S1-S3 for every instance size (`smt.prove.parametric`): proved, and each check can fail."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
import z3

from model_checks.cli import main
from model_checks.kernel.verdict_records import Verdict, read_records
from model_checks.smt.prove.parametric import (
    CERTIFICATE,
    Flaw,
    ParametricInvariant,
    ParametricModel,
    ParametricRejected,
    prove,
)
from spec import V2, V3, V4, LruFlaw, MissHandling, Variant
from tests.smt.parametric_abstraction import check_state
from tests.smt.test_smt_crosscheck import _config, random_walk


def test_v3_is_proved_for_any_instance() -> None:
    proofs = prove()
    assert [p.property for p in proofs] == ["S1", "S2", "S3"]
    assert all(p.instance == "any" for p in proofs)


UNCHECKED_LATER_ITEMS = Flaw("tag checked on a message's first item only",
                             tag_checked_on_first_item_only=True)


def test_a_tag_not_checked_on_one_path_makes_the_proof_fail() -> None:
    with pytest.raises(ParametricRejected, match="served-from-one-processing under 'P1 takes a "
                                                  "reference'"):
        prove(ParametricModel(V3, UNCHECKED_LATER_ITEMS))


@pytest.mark.parametrize(("model", "broken"), [
    (ParametricModel(V2), "entry-tag-is-its-processing"),
    (ParametricModel(replace(V3, name="V3-ignores-new-size", receiver_lru=LruFlaw.IGNORE_NEW_SIZE)),
     "within-budget"),
    (ParametricModel(replace(V3, name="V3-crashes", miss_handling=MissHandling.CRASH)), "no-fault"),
])
def test_each_property_has_a_variant_that_fails_it(model: ParametricModel, broken: str) -> None:
    with pytest.raises(ParametricRejected, match=f"consecution of {broken}"):
        prove(model)


def test_an_unsatisfiable_certificate_is_rejected() -> None:
    vacuous = (*CERTIFICATE,
               ParametricInvariant("false", "nothing holds", lambda s, p: z3.BoolVal(False)))
    with pytest.raises(ParametricRejected, match="non-vacuity"):
        prove(certificate=vacuous)


def test_prove_parametric_writes_one_record_per_goal(tmp_path: Path) -> None:
    """One record per goal (`parametric_goals.goals`), V3's S1-S3 under every source among
    them, every one proved for instance "any"."""
    out = tmp_path / "parametric.json"
    assert main(["prove", "--parametric", "--json", str(out)]) == 0
    records = read_records(out)
    v3 = [r for r in records if r.variant == "V3" and len(r.environment) == 11]
    assert sorted(r.property for r in v3) == ["S1", "S2", "S3"]
    assert {r.variant for r in records} == {"V0", "V1", "V2", "V3", "V4"}
    for record in records:
        assert (record.verdict, record.instance, record.bound) == (Verdict.PROVED, "any", None)


def test_prove_parametric_refuses_a_cell_selection() -> None:
    assert main(["prove", "--parametric", "--variant", "V0"]) == 2
    assert main(["prove", "--parametric", "--rlimit-certificate", "0"]) == 2


@pytest.mark.parametrize("drift", [("D1", "D7"), ("D5", "D7", "D3"),
                                   ("D6", "D8", "D7", "D9", "D11"), ("D2", "D4", "D10", "D7")])
@pytest.mark.parametrize("variant", [V3, V4], ids=lambda v: v.name)
def test_sampled_reachable_v3_states_satisfy_the_certificate(variant: Variant,
                                                              drift: tuple[str, ...]) -> None:
    """The abstraction of every state of a V3 (and V4) random walk satisfies the certificate:
    it states what the spec's states are, not only what the abstract model's are."""
    config = _config(variant, drift, random.Random(len(drift)))
    trace = random_walk(config, 20, len(drift))
    assert len(trace.steps) == 20
    assert [check_state(config, s) for s in trace.states()] == [None] * 21


def test_the_state_check_can_fail() -> None:
    """V2 keeps no tags: its entries are not tagged with their processing."""
    config = _config(V2, ("D1", "D7"), random.Random(0))
    trace = random_walk(config, 30, 0)
    problems = [p for s in trace.states() if (p := check_state(config, s)) is not None]
    assert problems and problems[0].startswith("entry-tag-is-its-processing fails")
