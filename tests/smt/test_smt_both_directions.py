"""SMT -> spec on sampled reachable states: the relation enables exactly the spec's actions,
and each successor is the spec's (`crosscheck.both_directions`)."""

from __future__ import annotations

import random

import pytest

from model_checks.smt.decode.crosscheck import StepChecker, both_directions
from model_checks.smt.encode.symbols import Encoding
from spec import V0, V1, V2, V3, V4, Variant, enabled, environment, initial
from tests.smt.test_smt_crosscheck import _config, random_walk


@pytest.mark.parametrize(("variant", "drift", "steps"), [
    (V0, ("D1", "D3"), 10),
    (V1, ("D2", "D4", "D9", "D10", "D11"), 10),
    (V2, ("D7", "D8"), 5),  # two items per request: many Submit choices per state
    (V3, ("D5", "D7"), 10),
    (V3, ("D6",), 10),
    (V4, ("D3", "D6"), 10),  # one-sided clears miss; the resends' split updates
])
def test_sampled_states_enable_the_same_actions_with_the_same_successors(
    variant: Variant, drift: tuple[str, ...], steps: int
) -> None:
    seed = len(drift)
    config = _config(variant, drift, random.Random(seed))
    trace = random_walk(config, steps, seed)
    assert len(trace.steps) == steps
    assert both_directions(Encoding(variant, config.environment), trace) is None


def test_a_step_the_spec_does_not_enable_is_found() -> None:
    """The relation of an environment with D3 (one-sided clears) against a spec state of an
    environment without it: the relation may clear P1 where the spec may not."""
    config = _config(V2, (), random.Random(0))
    checker = StepChecker(Encoding(V2, environment("D3")), config)
    state = initial(config)
    problem = checker.extra_step(state, list(enabled(config, state)))
    assert problem is not None
    assert "P1Clear" in problem or "P0Clear" in problem


def test_a_spec_action_left_out_is_found() -> None:
    config = _config(V3, ("D1",), random.Random(1))
    checker = StepChecker(Encoding(V3, config.environment), config)
    state = initial(config)
    actions = list(enabled(config, state))
    assert checker.extra_step(state, actions) is None
    assert checker.extra_step(state, actions[1:]) is not None
