"""SMT -> spec on sampled reachable states: the relation enables exactly the spec's actions,
and each successor is the spec's (`both_directions`, over `crosscheck.StepChecker`)."""

from __future__ import annotations

import random

import pytest
import z3

from model_checks.smt.decode.crosscheck import StepChecker, arguments, matches
from model_checks.smt.encode.actions import ACTIONS, args_at
from model_checks.smt.encode.symbols import Encoding
from spec import (
    V0,
    V1,
    V2,
    V3,
    V4,
    Action,
    State,
    Trace,
    Variant,
    enabled,
    environment,
    initial,
    step,
)
from tests.smt.test_smt_crosscheck import _config, random_walk


def extra_step(checker: StepChecker, before: State, actions: list[Action]) -> str | None:
    """None when, from `before`, the relation takes no step whose arguments are not those
    of one of `actions` (the spec's enabled actions there); otherwise the step it takes."""
    solver = checker.solver
    solver.push()
    try:
        solver.add(matches(checker.enc, checker.s, before))
        spec_steps = [z3.And(arguments(checker.enc, before, a)) for a in actions]
        if checker._ask(z3.Not(z3.Or(spec_steps))) == z3.unsat:
            return None
        model = solver.model()
        code = model.eval(args_at(0).act, model_completion=True).as_long()
        taken = ACTIONS[code]
        chosen = {k: model.eval(v, model_completion=True)
                  for k, v in vars(args_at(0)).items() if not isinstance(v, tuple)}
        return (f"the SMT relation takes a step the spec does not enable: "
                f"{taken.spec_class.__name__} (front end {taken.front_end}, engine "
                f"{taken.engine}), {chosen}")
    finally:
        solver.pop()


def enabled_disagreement(checker: StepChecker, state: State) -> str | None:
    """Both directions at one spec state: every action the spec enables is a step of the
    relation to the spec's successor, and only one; the relation enables nothing else."""
    actions = list(enabled(checker.config, state))
    for action in actions:
        problem = checker.check(state, action, step(checker.config, state, action))
        if problem is not None:
            return problem
    return extra_step(checker, state, actions)


def both_directions(enc: Encoding, trace: Trace) -> str | None:
    """`enabled_disagreement` at every state of `trace` (a sample of reachable states)."""
    checker = StepChecker(enc, trace.config)
    for number, state in enumerate(trace.states()):
        problem = enabled_disagreement(checker, state)
        if problem is not None:
            return f"state {number}: {problem}"
    return None


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
    problem = extra_step(checker, state, list(enabled(config, state)))
    assert problem is not None
    assert "P1Clear" in problem or "P0Clear" in problem


def test_a_spec_action_left_out_is_found() -> None:
    config = _config(V3, ("D1",), random.Random(1))
    checker = StepChecker(Encoding(V3, config.environment), config)
    state = initial(config)
    actions = list(enabled(config, state))
    assert extra_step(checker, state, actions) is None
    assert extra_step(checker, state, actions[1:]) is not None
