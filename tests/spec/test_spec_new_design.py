"""The recipe for a new design (docs/architecture.md, "A new design"), followed in full: a one-slot
cache declared here as a `spec.designs.base.Design`, registered with `spec.designs.register`, is
judged by every design-generic checker (explore, simulate, prove, the lattice and `explore
--design`) with no edit to them, refuses the source it cannot have with its reason, and is
withdrawn at teardown.

The design: P0 remembers which key P1's one slot holds and sends a key it remembers as a
hit (no data); P1 stores what it is sent and serves a hit from its slot. Under D3 P1 drops
its slot without telling P0, and the next hit finds nothing: S3 (no crash) breaks there;
Q1 (a quiescent slot holds a key a client sent) holds everywhere.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

from model_checks.cli import main
from model_checks.designs.lattice import LatticeOptions, search
from model_checks.designs.results import to_json
from model_checks.explore.exploration import explore, replay
from model_checks.simulate.designs import NOT_FOUND, simulate
from spec.designs import (
    DesignProperty,
    DriftSource,
    RefusedDrift,
    Scope,
    UnknownDesign,
    check_environment,
    check_variant,
    design_named,
    designs,
    register,
    withdraw,
)
from tests.designs.design_prove import BREAKS, HOLDS, ProofOptions, prove


@dataclass(frozen=True, slots=True)
class SlotConfig:
    keys: tuple[str, ...] = ("a", "b")
    max_requests: int = 3
    environment: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class SlotState:
    remembered: str | None = None  # P0's record of P1's slot
    slot: str | None = None  # P1's slot
    sent: frozenset[str] = frozenset()
    requests: int = 0
    fault: str | None = None


@dataclass(frozen=True, slots=True)
class Send:
    """A client request for `key`: a hit if P0 remembers it in the slot, data otherwise."""

    key: str


@dataclass(frozen=True, slots=True)
class Drop:
    """D3: P1 drops its slot; P0 is not told."""


def _send(state: SlotState, key: str) -> SlotState:
    after = replace(state, requests=state.requests + 1, sent=state.sent | {key})
    if state.remembered != key:
        return replace(after, remembered=key, slot=key)
    if state.slot != key:
        return replace(after, fault=f"P1 has no data for the hit on {key!r}")
    return after


def no_crash(config: SlotConfig, state: SlotState) -> list[str]:
    return [] if state.fault is None else [state.fault]


def slot_holds_sent(config: SlotConfig, state: SlotState) -> list[str]:
    return [] if state.slot is None or state.slot in state.sent else [
        f"slot holds {state.slot!r}, never sent"]


@dataclass(frozen=True)
class OneSlotDesign:
    name: str = "one-slot"
    title: str = "a one-slot cache (the recipe's example)"
    variants: tuple[str, ...] = ("W1",)
    sources: tuple[DriftSource, ...] = (
        DriftSource("D3", "P1 drops its slot", "P1 empties its slot without telling P0"),)
    properties: tuple[DesignProperty, ...] = (
        DesignProperty("S3", "no crash", "P1 serves every hit", Scope.EVERY_STATE, no_crash),
        DesignProperty("Q1", "slot holds sent", "a quiescent slot holds a key a client sent",
                       Scope.QUIESCENT, slot_holds_sent),
    )

    @property
    def refused(self) -> Mapping[str, str]:
        return {"D5": "one front end owns the one slot"}

    rungs: tuple[str, ...] = ("3 requests", "4 requests")
    trace_tags: tuple[type, ...] = ()

    def instance(self, variant: str, environment: frozenset[str], rung: int = 0
                 ) -> SlotConfig:
        check_variant(self, variant)
        check_environment(self, environment)
        return SlotConfig(max_requests=3 + rung, environment=environment)

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment: frozenset[str]) -> SlotConfig:
        return SlotConfig(tuple(data["keys"]), data["max_requests"], environment)

    def initial(self, config: SlotConfig) -> SlotState:
        return SlotState()

    def enabled(self, config: SlotConfig, state: SlotState) -> list[Send | Drop]:
        if state.fault is not None:
            return []
        found: list[Send | Drop] = []
        if state.requests < config.max_requests:
            found += [Send(k) for k in config.keys]
        if "D3" in config.environment and state.slot is not None:
            found.append(Drop())
        return found

    def step(self, config: SlotConfig, state: SlotState, action: Send | Drop) -> SlotState:
        if action not in self.enabled(config, state):
            raise ValueError(f"{action!r} is not enabled")
        return _send(state, action.key) if isinstance(action, Send) else replace(state,
                                                                                  slot=None)

    def is_quiescent(self, config: SlotConfig, state: SlotState) -> bool:
        return True  # a request is served in the step that sends it

    def action_to_json(self, action: Send | Drop) -> dict[str, Any]:
        return {"action": "send", "key": action.key} if isinstance(action, Send) else {
            "action": "drop"}

    def action_from_json(self, data: Mapping[str, Any]) -> Send | Drop:
        return Send(str(data["key"])) if data["action"] == "send" else Drop()


ONE_SLOT = OneSlotDesign()
PROPERTIES = {p.id: p for p in ONE_SLOT.properties}


@pytest.fixture
def registered() -> Iterator[OneSlotDesign]:
    register(ONE_SLOT)
    yield ONE_SLOT
    withdraw(ONE_SLOT.name)
    assert ONE_SLOT.name not in {d.name for d in designs()}


def test_the_registry_lists_it_after_the_built_in_designs(registered: OneSlotDesign) -> None:
    assert design_named("one-slot") is registered
    assert designs()[-1] is registered
    with pytest.raises(ValueError, match="exists"):
        register(ONE_SLOT)


def test_the_explorer_judges_it(registered: OneSlotDesign) -> None:
    config = registered.instance("W1", frozenset({"D3"}))
    explored = explore(registered, config, environment=frozenset({"D3"}))
    witness = explored.witness("S3")
    assert witness is not None and replay(registered, config, witness.actions, PROPERTIES["S3"])
    assert explored.verdict("Q1") == "holds"
    quiet = explore(registered, registered.instance("W1", frozenset()))
    assert {quiet.verdict(p) for p in PROPERTIES} == {"holds"}


def test_simulate_judges_it(registered: OneSlotDesign) -> None:
    config = registered.instance("W1", frozenset({"D3"}))
    found = simulate(registered, config, examples=30, steps=8)
    counterexample = found.counterexample("S3")
    assert counterexample is not None
    assert replay(registered, config, counterexample.actions, PROPERTIES["S3"])
    assert found.verdict("Q1") == NOT_FOUND and found.steps > 0


def test_prove_judges_it(registered: OneSlotDesign) -> None:
    config = registered.instance("W1", frozenset({"D3"}))
    proved = prove(registered, config,
                   ProofOptions(max_depth=6, variant="W1", environment=frozenset({"D3"})))
    assert proved.verdict("S3") == BREAKS and proved.verdict("Q1") == HOLDS
    assert replay(registered, config, proved.proof("S3").actions, PROPERTIES["S3"])
    assert "one-slot" in proved.instance


def test_a_refused_source_raises_with_its_reason(registered: OneSlotDesign) -> None:
    with pytest.raises(RefusedDrift, match="one front end owns the one slot"):
        registered.instance("W1", frozenset({"D5"}))
    with pytest.raises(UnknownDesign, match="no drift source D7"):
        registered.instance("W1", frozenset({"D7"}))
    with pytest.raises(UnknownDesign, match="no variant"):
        registered.instance("V0", frozenset())


def test_its_actions_round_trip_through_json(registered: OneSlotDesign) -> None:
    for action in (Send("a"), Drop()):
        assert registered.action_from_json(registered.action_to_json(action)) == action


def test_a_run_with_nothing_enabled_is_a_simulation_failure(registered: OneSlotDesign) -> None:
    idle = replace(registered.instance("W1", frozenset()), max_requests=0)
    found = simulate(registered, idle, examples=5, steps=5)
    assert found.failed and found.steps == 0


def test_the_lattice_judges_it(registered: OneSlotDesign) -> None:
    result = search(registered, "W1", LatticeOptions(sizes=(1, 1)))
    assert [sorted(b.environment) for b in result.minimal["S3"]] == [["D3"]]
    assert result.minimal["Q1"] == []
    assert result.answer(frozenset(), "S3").verdict == "holds"
    assert result.answer(frozenset({"D3"}), "Q1").basis == "4 requests: search of D3"
    data = to_json(result)
    assert data["answers"]["S3"]["D3"]["verdict"] == "breaks"


def test_the_explore_command_judges_it(registered: OneSlotDesign,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--design", "one-slot", "--environment", "D3"]) == 4  # a break
    out = capsys.readouterr().out
    assert "S3 breaks in" in out and "Q1 holds" in out
    assert main(["explore", "--design", "one-slot", "--environment", "D5"]) == 2
    assert "D5 cannot occur in design 'one-slot': one front end owns the one slot" in \
        capsys.readouterr().err
