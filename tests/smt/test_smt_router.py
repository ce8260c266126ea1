"""The SMT encoding of D5's router configuration (one front end, two engines): a receiver per
engine ("p1", "p1e1"), the routing choice as a step argument (`eng`), each engine taking its
own messages in order. Cross-checked with the spec in both directions, its counterexamples
replayed on the spec with the router's choices, and a wrong encoding (every engine using
engine 0's receiver) is caught by the cross-check."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.kernel.instance import config_for
from model_checks.scenarios import SCENARIOS
from model_checks.smt.decode.crosscheck import first_disagreement
from model_checks.smt.encode import engine as smt_engine
from model_checks.smt.encode.symbols import Encoding, encoding_for
from model_checks.smt.results import Violated, to_record
from model_checks.smt.search.bmc import bmc_many
from spec import V0, V1, V2, V3, Config, Variant, environment
from spec.drift import ROUTER, Environment
from spec.transitions import P0Handle, P1Receive
from tests.expected_cells import expected_cell
from tests.smt.test_smt_both_directions import both_directions
from tests.smt.test_smt_crosscheck import random_walk

SCENARIO = next(s for s in SCENARIOS if s.name == "router-retry-to-the-other-engine")


def _router(variant: Variant, *drift: str, max_items: int = 1) -> Config:
    return Config(variant=variant, environment=environment("D5", *drift), engines=2,
                  max_items=max_items)


def test_the_matrix_router_cell_is_encoded_with_two_engines_and_one_front_end() -> None:
    enc = encoding_for(V1, (ROUTER,))
    assert (enc.engines, enc.front_ends, enc.receivers) == (2, 1, ("p1", "p1e1"))
    assert Environment.of_config(enc).sources == (ROUTER,)
    assert Environment.of_config(encoding_for(V1, ("D5",))).sources == ("D5",)
    with pytest.raises(ValueError, match="with D5"):
        Encoding(V1, frozenset(), engines=2)


@pytest.mark.parametrize("variant", [V0, V1, V2, V3], ids=lambda v: v.name)
def test_the_router_scenario_is_accepted_step_by_step(variant: Variant) -> None:
    trace = SCENARIO.run(variant)
    assert any(isinstance(s.action, P1Receive) and s.action.engine == 1 for s in trace.steps)
    enc = Encoding(variant, trace.config.environment, engines=2)
    assert first_disagreement(enc, trace) is None


@pytest.mark.parametrize(("variant", "drift", "items", "steps"), [
    (V1, (), 1, 14),
    (V3, (), 1, 14),
    (V0, ("D1", "D3", "D10"), 1, 10),  # per-engine reordering, clears and restarts
    (V2, ("D4",), 1, 10),  # the reset wipes every engine
    (V3, ("D6",), 2, 6),  # split updates: only the sending update chooses the engine
])
def test_sampled_router_states_enable_the_same_actions_with_the_same_successors(
    variant: Variant, drift: tuple[str, ...], items: int, steps: int
) -> None:
    config = _router(variant, *drift, max_items=items)
    trace = random_walk(config, steps, len(drift) + items)
    assert len(trace.steps) == steps
    assert both_directions(Encoding(variant, config.environment, engines=2), trace) is None


def test_a_z3_counterexample_replays_on_the_spec_with_the_routing_choices() -> None:
    enc = encoding_for(V1, (ROUTER,))
    found = bmc_many(enc, ("H1",), 6)["H1"]
    assert isinstance(found, Violated)
    assert found.config.engines == 2
    routed = {s.action.engine for s in found.trace.steps if isinstance(s.action, P0Handle)}
    assert routed == {0, 1}  # a payload to one engine, the reference to the other
    record = to_record(enc, found)
    assert record.environment == (ROUTER,)
    assert expected_cell("V1", (ROUTER,)).expectations["H1"].value == "breaks"


def test_an_encoding_that_ignores_the_routing_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Known-bad encoding: every engine resolves items in engine 0's receiver."""
    monkeypatch.setattr(smt_engine, "receiver_side", lambda engine: "p1")
    trace = SCENARIO.run(V2)
    problem = first_disagreement(Encoding(V2, trace.config.environment, engines=2), trace)
    assert problem is not None and "P1Receive(index=0, engine=1)" in problem


def test_matrix_configuration_and_encoding_agree_on_the_instance() -> None:
    config = config_for(V3, (ROUTER,))
    enc = encoding_for(V3, (ROUTER,))
    assert (config.front_ends, config.engines) == (enc.front_ends, enc.engines)
    assert replace(config, max_items=1).environment == enc.environment
