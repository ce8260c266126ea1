"""The all-depth proof of V3 and the checks that keep a certificate honest."""

from __future__ import annotations

import pytest
import z3

from model_checks.mutation.spec_mutants import spec_mutants
from model_checks.smt.encode.symbols import Encoding
from model_checks.smt.prove.invariant import (
    BUDGET_INVARIANTS,
    V3_INVARIANTS,
    CertificateRejected,
    Invariant,
    certificates,
    prove,
)
from model_checks.smt.results import ProvedAllDepths
from spec import ALL_DRIFT, V0, V2, V3, environment


def test_v3_is_safe_for_all_depths_under_every_drift_source_at_once() -> None:
    """The main job leaves Z3's every-source group to the nightly job
    (`jobs.phases.PROVE_NIGHTLY_ONLY`): this is where CI checks V3's certificate under every
    drift source at once."""
    results = prove(Encoding(V3, ALL_DRIFT), V3_INVARIANTS, ("S1", "S2", "S3"))
    assert [r.property for r in results] == ["S1", "S2", "S3"]
    assert all(isinstance(r, ProvedAllDepths) for r in results)


def test_v3_is_safe_for_all_depths_with_two_front_ends_split_updates_and_two_items() -> None:
    enc = Encoding(V3, environment("D5", "D6", "D8"))
    assert enc.front_ends == 2 and enc.split and enc.m == 2
    results = prove(enc, V3_INVARIANTS, ("S1", "S2", "S3"))
    assert all(isinstance(r, ProvedAllDepths) for r in results)


def test_the_budget_certificate_proves_s2_for_every_variant() -> None:
    enc = Encoding(V0, ALL_DRIFT)
    assert [invariants for invariants, _ in certificates(enc)] == [BUDGET_INVARIANTS]
    (result,) = prove(enc, BUDGET_INVARIANTS, ("S2",))
    assert isinstance(result, ProvedAllDepths)


def test_the_budget_certificate_does_not_prove_a_mutant_that_ignores_the_new_size() -> None:
    mutant = next(m for m in spec_mutants() if m.name == "ignores-new-size")
    rejected = r"consecution of within-budget, on P1Receive \(engine 0\): expected unsat"
    with pytest.raises(CertificateRejected, match=rejected):
        prove(Encoding(mutant.variant, environment()), BUDGET_INVARIANTS, ("S2",))


def test_the_certificate_does_not_prove_v2() -> None:
    with pytest.raises(CertificateRejected, match="consecution"):
        prove(Encoding(V2, ALL_DRIFT), V3_INVARIANTS, ("S1",))


def test_a_false_invariant_is_rejected() -> None:
    false = Invariant("false", "Nothing holds.", lambda enc, p, s: z3.BoolVal(False))
    with pytest.raises(CertificateRejected, match="initiation"):
        prove(Encoding(V3, environment("D3")), (*V3_INVARIANTS, false), ("S1",))


def test_a_non_inductive_invariant_is_rejected() -> None:
    budget_only = tuple(i for i in V3_INVARIANTS if i.name == "within-budget")
    with pytest.raises(CertificateRejected, match="consecution of within-budget"):
        prove(Encoding(V3, environment("D3")), budget_only, ("S2",))


def test_an_invariant_too_weak_for_the_property_is_rejected() -> None:
    weak = tuple(i for i in V3_INVARIANTS if i.name in ("no-ghost-slots",))
    with pytest.raises(CertificateRejected):
        prove(Encoding(V3, environment("D3")), weak, ("S2",))


def test_every_invariant_states_what_it_asserts() -> None:
    names = [i.name for i in V3_INVARIANTS]
    assert len(set(names)) == len(names)
    assert all(len(i.statement) > 30 for i in V3_INVARIANTS)
