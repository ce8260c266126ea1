"""The property registry: complete, well-declared, and no property is vacuous."""

from __future__ import annotations

import pytest

from model_checks.mutants import MUTANTS
from model_checks.scenarios import SCENARIOS, violated
from spec import VARIANTS, Config, InvalidDefinition, Kind, by_id, registry
from spec.properties.registry import state_property, trace_property
from spec.state import Delivery, Message, State, WireItem
from spec.trace import Trace


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

        @state_property("S99", "nothing", Kind.SAFETY)
        def undocumented(config: Config, state: State) -> list[str]:
            return []


def test_liveness_needs_fairness_and_ids_are_unique() -> None:
    with pytest.raises(InvalidDefinition, match="fairness"):
        trace_property("L99", "x", "  ")
    with pytest.raises(InvalidDefinition, match="declared twice"):

        @state_property("S1", "again", Kind.SAFETY)
        def duplicate(config: Config, state: State) -> list[str]:
            """A duplicate."""
            return []


def test_unknown_property_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="unknown property 'S9'"):
        by_id("S9")


def test_l2_is_violated_by_a_state_reporting_a_payload_missing() -> None:
    message = Message(0, 0, (WireItem("a", 0, 0),))
    state = State(shadows=((),), last_delivery=Delivery(message, (), ("a",)))
    trace = Trace(Config(), state)
    violation = by_id("L2").check_trace(trace)
    assert violation is not None and "reported missing" in violation.reason


def test_every_property_is_violated_by_some_scenario_or_mutant() -> None:
    broken: set[str] = set()
    for scenario in SCENARIOS:
        for variant in VARIANTS:
            broken |= violated(scenario.run(variant))
    for mutant in MUTANTS:
        broken |= violated(mutant.witness.run(mutant.variant))
    broken.add("L2")  # by the hand-built state above: no variant or mutant reports payloads
    assert broken == {p.id for p in registry()}
