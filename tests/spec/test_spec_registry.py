"""The property registry: complete, well-declared, and no property is vacuous."""

from __future__ import annotations

import pytest

from model_checks.mutation.spec_mutants import spec_mutants
from model_checks.scenarios import SCENARIOS, violated
from spec import (
    VARIANTS,
    ClientItem,
    Config,
    InvalidDefinition,
    Kind,
    Outcome,
    by_id,
    environment,
    registry,
    run,
)
from spec.properties.declare import state_property, trace_property
from spec.state import State
from spec.transitions import P0Handle, P0ReceiveReply, P1Clear, P1Receive, Retry, Submit


def test_registry_lists_every_property_once_in_order() -> None:
    assert [p.id for p in registry()] == ["S1", "S2", "S3", "S4", "H1", "L1", "L2", "L3", "L4"]
    kinds = {p.id: p.kind for p in registry()}
    assert kinds["S4"] is Kind.LIMIT and kinds["H1"] is Kind.DIAGNOSTIC
    assert all(kinds[f"L{i}"] is Kind.LIVENESS for i in range(1, 5))
    for prop in registry():
        assert prop.statement and prop.title
        assert (prop.fairness is not None) == (prop.kind is Kind.LIVENESS)


def test_a_property_without_a_statement_fails_at_declaration() -> None:
    with pytest.raises(InvalidDefinition, match="write what it asserts"):
        state_property("S99", "nothing", Kind.SAFETY, statement=" \n  ")


def test_liveness_needs_fairness_and_ids_are_unique() -> None:
    with pytest.raises(InvalidDefinition, match="fairness"):
        trace_property("L99", "x", "  ", statement="Something.")
    with pytest.raises(InvalidDefinition, match="declared twice"):

        @state_property("S1", "again", Kind.SAFETY, statement="A duplicate.")
        def duplicate(config: Config, state: State) -> list[str]:
            return []


def test_unknown_property_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="unknown property 'S9'"):
        by_id("S9")


def test_l2_breaks_on_the_never_invalidates_mutant_and_not_on_its_base() -> None:
    # P0 keeps a after the miss, so the retry (media attached) sends a as a reference again
    # and is answered with a miss for a: the client-level statement of L2 can fail.
    mutant = next(m for m in spec_mutants() if m.name == "never-invalidates")
    violation = by_id("L2").check_trace(mutant.witness.run(mutant.variant))
    assert violation is not None and "carried data for a, was answered" in violation.reason
    assert by_id("L2").check_trace(mutant.witness.run(mutant.base)) is None


def test_l1_is_met_by_the_retry_not_by_another_request() -> None:
    # After the miss on a, request 2 sends a's payload (P0 dropped a): the retry may then send
    # a as a reference, which P1 serves. Without that payload in between, it may not.
    config = Config(environment=environment("D3"))
    a = ClientItem("a")
    script = [
        Submit((a,)), P0Handle(0), P1Receive(0), P0ReceiveReply(), P1Clear(),
        Submit((a,)), P0Handle(1), P1Receive(0), P0ReceiveReply(),
        Submit((a,)), P0Handle(2), P1Receive(0), P0ReceiveReply(),
        Retry(1), P0Handle(1), P1Receive(0), P0ReceiveReply(),
    ]
    trace = run(config, script)
    assert trace.final.requests[1].outcome is Outcome.SUCCESS
    assert by_id("L1").check_trace(trace) is None
    assert by_id("L2").check_trace(trace) is None


def test_every_property_is_violated_by_some_scenario_or_mutant() -> None:
    broken: set[str] = set()
    for scenario in SCENARIOS:
        for variant in VARIANTS:
            broken |= violated(scenario.run(variant))
    for mutant in spec_mutants():
        broken |= violated(mutant.witness.run(mutant.variant))
    assert broken == {p.id for p in registry()}
