"""docs/requirements.md's registry: every obligation names a mutant that exists and is caught
where the registry says (the spec mutant by its witness, on a property the obligation protects,
while its base keeps it; the implementation mutant by conformance), and a registry entry
without a mutant is rejected at construction."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.docs.requirements import OBLIGATIONS, InvalidObligation, Obligation
from model_checks.docs.requirements_page import omitted_by, spec_mutant
from model_checks.mutant_run.factory import mutant_named
from model_checks.mutant_run.killmatrix import kill_matrix
from model_checks.mutant_run.reference_mutants import history_mutants
from model_checks.scenarios import SCENARIOS, violated
from model_checks.scenarios.run import replay_all
from spec import V2, V3, V4

WITH_SPEC = [o for o in OBLIGATIONS if o.spec_mutant is not None]
WITH_IMPL = [o for o in OBLIGATIONS if o.impl_mutant is not None]


@pytest.mark.parametrize("obligation", WITH_SPEC, ids=lambda o: o.id)
def test_the_spec_mutant_breaks_a_protected_property_its_base_keeps(
    obligation: Obligation,
) -> None:
    mutant = spec_mutant(obligation.spec_mutant or "")
    protected = set(obligation.protects) & mutant.breaks
    assert protected, f"{mutant.name} breaks none of {obligation.protects}"
    assert protected <= violated(mutant.witness.run(mutant.variant))
    assert not protected & violated(mutant.witness.run(mutant.base))


def test_the_implementation_mutants_exist_and_conformance_catches_them() -> None:
    mutants = [mutant_named(history_mutants(), o.impl_mutant or "") for o in WITH_IMPL]
    rows = kill_matrix(processes=False, mutants=mutants)
    for obligation, row in zip(WITH_IMPL, rows, strict=True):
        assert row.in_process.harness is None, obligation.id
        assert row.in_process.caught_by is not None, f"{obligation.id}: {row.mutant.name} survived"


def test_an_obligation_without_a_mutant_or_with_an_unknown_property_is_rejected() -> None:
    with pytest.raises(InvalidObligation, match="names no mutant"):
        Obligation("O99", "t", "P0", "must", ("S1",), "why")
    with pytest.raises(InvalidObligation, match="property ids"):
        Obligation("O99", "t", "P0", "must", ("S9",), "why", spec_mutant="untagged")


def test_ids_are_unique_and_v4_meets_every_spec_obligation() -> None:
    assert len({o.id for o in OBLIGATIONS}) == len(OBLIGATIONS)
    assert omitted_by(V4) == []
    assert omitted_by(V3) == ["O12"]  # the resend bypass: V4's one mechanism
    assert {"O1", "O3"} <= set(omitted_by(V2))


def test_references_first_alone_changes_no_verdict_of_the_scenario_suite() -> None:
    """The page's claim that references first is not (yet) a checked obligation."""
    payloads_first = replace(V3, name="V3-payloads-first", references_first=False)
    v3 = {v.scenario: v.found for v in replay_all() if v.variant == "V3"}
    for scenario in SCENARIOS:
        assert violated(scenario.run(payloads_first)) <= v3[scenario.name], scenario.name
