"""The scenario suite: each run breaks exactly the properties its story says, per variant."""

from __future__ import annotations

import pytest

from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from model_checks.scenarios import SCENARIOS, Scenario, violated
from spec import V1, V2, V3, V4, VARIANTS, Drift, Outcome, Variant
from spec.drift import ROUTER
from spec.transitions import ACTION_TYPES

CASES = [(s, v) for s in SCENARIOS for v in VARIANTS]


@pytest.mark.parametrize(("scenario", "variant"), CASES, ids=lambda x: getattr(x, "name", ""))
def test_scenario_breaks_exactly_the_expected_properties(
    scenario: Scenario, variant: Variant
) -> None:
    assert violated(scenario.run(variant)) == scenario.expected[variant.name]


def test_every_drift_source_has_a_scenario() -> None:
    covered = {d for s in SCENARIOS for d in s.drift}
    assert covered == {d.value for d in Drift} | {ROUTER}  # D5's router half has its own


def test_every_action_is_exercised() -> None:
    used = {
        s.action.label
        for scenario in (*SCENARIOS, *(m.witness for m in spec_mutants()))
        for variant in VARIANTS
        for s in scenario.run(variant).steps
    }
    assert used == {t.label for t in ACTION_TYPES}


@pytest.mark.parametrize("variant", [V1, V2, V3], ids=lambda v: v.name)
def test_recovery_path_miss_invalidate_resend_success(variant: Variant) -> None:
    scenario = next(s for s in SCENARIOS if s.name == "engine-cleared-alone")
    trace = scenario.run(variant)
    labels = [s.action.label for s in trace.steps]
    assert "retry" in labels
    request = trace.final.requests[1]
    assert request.outcome is Outcome.SUCCESS and request.retries == 1
    retry_message = next(
        s.state.to_engine[-1] for s in trace.steps[labels.index("retry") + 1 :]
        if s.action.label == "p0_handle"
    )
    assert all(w.data is not None for w in retry_message.items)  # L1: the retry resends


def test_v0_crash_stops_the_run() -> None:
    scenario = next(s for s in SCENARIOS if s.name == "engine-cleared-alone")
    trace = scenario.run(VARIANTS[0])
    assert trace.final.fault is not None and trace.final.fault.kind.value == "engine-crash"


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_every_mutant_is_caught_by_its_witness(mutant: Mutant) -> None:
    assert mutant.breaks <= violated(mutant.witness.run(mutant.variant))
    assert not mutant.breaks & violated(mutant.witness.run(mutant.base))


def test_v2_is_the_base_of_the_mutants_unless_stated() -> None:
    assert all(m.base in (V2, V3, V4) for m in spec_mutants())


def test_v3_uuid_only_late_miss_is_a_client_error_that_changes_nothing() -> None:
    scenario = next(s for s in SCENARIOS if s.name == "uuid-only-hit-lost-before-update")
    trace = scenario.run(V3)
    last_update = max(i for i, s in enumerate(trace.steps) if s.action.label == "p0_update_item")
    before, after = trace.steps[last_update - 1].state, trace.steps[last_update].state
    assert after.requests[1].outcome is Outcome.CLIENT_ERROR
    assert after.shadows == before.shadows and after.processings == before.processings
