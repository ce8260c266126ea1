"""V3's S1-S3 for every instance size (`smt.parametric`): proved, and each check can fail."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import z3

from model_checks.cli import main
from model_checks.records import Verdict, read_records
from model_checks.smt.parametric import (
    CERTIFICATE,
    UNCHECKED_LATER_ITEMS,
    ParametricRejected,
    PInvariant,
    PModel,
    prove,
)
from spec import V2, V3, LruFlaw, MissHandling


def test_v3_is_proved_for_any_instance() -> None:
    proofs = prove()
    assert [p.property for p in proofs] == ["S1", "S2", "S3"]
    assert all(p.instance == "any" for p in proofs)


def test_a_tag_not_checked_on_one_path_makes_the_proof_fail() -> None:
    with pytest.raises(ParametricRejected, match="served-from-one-processing under 'P1 takes a "
                                                  "reference'"):
        prove(PModel(V3, UNCHECKED_LATER_ITEMS))


@pytest.mark.parametrize(("model", "broken"), [
    (PModel(V2), "entry-tag-is-its-processing"),
    (PModel(replace(V3, name="V3-ignores-new-size", receiver_lru=LruFlaw.IGNORE_NEW_SIZE)),
     "within-budget"),
    (PModel(replace(V3, name="V3-crashes", miss_handling=MissHandling.CRASH)), "no-fault"),
])
def test_each_property_has_a_variant_that_fails_it(model: PModel, broken: str) -> None:
    with pytest.raises(ParametricRejected, match=f"consecution of {broken}"):
        prove(model)


def test_an_unsatisfiable_certificate_is_rejected() -> None:
    vacuous = (*CERTIFICATE, PInvariant("false", "nothing holds", lambda s, p: z3.BoolVal(False)))
    with pytest.raises(ParametricRejected, match="non-vacuity"):
        prove(certificate=vacuous)


def test_prove_parametric_writes_one_record_per_property(tmp_path: Path) -> None:
    out = tmp_path / "parametric.json"
    assert main(["prove", "--parametric", "--json", str(out)]) == 0
    records = read_records(out)
    assert [r.property for r in records] == ["S1", "S2", "S3"]
    for record in records:
        assert (record.variant, record.verdict, record.instance) == ("V3", Verdict.PROVED, "any")
        assert record.bound is None


def test_prove_parametric_refuses_a_cell_selection() -> None:
    assert main(["prove", "--parametric", "--variant", "V0"]) == 2
    assert main(["prove", "--parametric", "--rlimit-certificate", "0"]) == 2
