"""Spec -> SMT: traces generated from the spec are accepted by the SMT transition relation, step
by step, and no other successor is allowed; a disagreement names its step."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from model_checks.mutation.spec_mutants import spec_mutants
from model_checks.scenarios import SCENARIOS
from model_checks.smt.decode.crosscheck import first_disagreement
from model_checks.smt.encode.symbols import Bounds, Encoding
from spec import (
    DRIFT_IDS,
    V0,
    V1,
    V2,
    V3,
    V4,
    Config,
    Content,
    Drift,
    ItemSize,
    Trace,
    Variant,
    enabled,
    environment,
    initial,
)


def random_walk(config: Config, steps: int, seed: int) -> Trace:
    """A spec trace of up to `steps` uniformly chosen enabled actions (stops at a fault)."""
    rng = random.Random(seed)
    trace = Trace(config, initial(config))
    for _ in range(steps):
        choices = enabled(config, trace.final)
        if not choices:
            break
        trace = trace.extended(rng.choice(choices))
    return trace


ENCODED = DRIFT_IDS  # the encoding covers every drift source
VARIANTS: tuple[Variant, ...] = (V0, V1, V2, V3, V4, *(m.variant for m in spec_mutants()))


def _config(variant: Variant, drift: tuple[str, ...], rng: random.Random) -> Config:
    env = environment(*drift)
    versions = 2 if Drift.D7 in env else 1
    budget = rng.randint(1, 4)
    top = 3 if Drift.D11 in env else min(3, budget)
    sizes = []
    for identity in "abc":
        for version in range(versions):
            shadow = rng.randint(1, top)
            receiver = rng.randint(1, top) if Drift.D9 in env else shadow
            sizes.append(ItemSize(Content(identity, version), shadow, receiver))
    return Config(budget=budget, sizes=tuple(sizes), versions=versions, variant=variant,
                  environment=env, max_items=2 if env & {Drift.D6, Drift.D8} else 1,
                  front_ends=2 if Drift.D5 in env else 1)


def _check(variant: Variant, drift: tuple[str, ...], seed: int, steps: int) -> None:
    config = _config(variant, drift, random.Random(seed))
    trace = random_walk(config, steps, seed)
    assert first_disagreement(Encoding(variant, config.environment), trace) is None


def test_random_walks_of_every_variant_and_mutant_are_accepted() -> None:
    for index, variant in enumerate(VARIANTS):
        rng = random.Random(index)
        drift = tuple(d for d in ENCODED if rng.random() < 0.6)
        _check(variant, drift, index, 24)


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(
    variant=st.sampled_from(VARIANTS),
    drift=st.sets(st.sampled_from(ENCODED)).map(lambda s: tuple(sorted(s))),
    seed=st.integers(0, 10_000),
)
def test_hypothesis_generated_traces_are_accepted(
    variant: Variant, drift: tuple[str, ...], seed: int
) -> None:
    _check(variant, drift, seed, 20)


def test_encodable_scenarios_are_accepted() -> None:
    """Every scenario whose requests fit the encoding's items per request (M = 1; 2 under D8)."""
    for scenario in SCENARIOS:
        most = 2 if {"D6", "D8"} & set(scenario.drift) else 1
        if any(len(getattr(a, "items", ())) > most for a in scenario.script):
            continue
        for variant in (V0, V2, V3, V4):
            trace = scenario.run(variant)
            bounds = Bounds(max_in_flight=trace.config.max_in_flight)  # 3 in one scenario
            encoding = Encoding(variant, trace.config.environment, bounds,
                                engines=trace.config.engines)  # 2: D5's router
            assert first_disagreement(encoding, trace) is None


def test_a_disagreement_names_its_step() -> None:
    """A V1 trace (the cache wins) checked against the V2 relation (the payload wins)."""
    scenario = next(s for s in SCENARIOS if s.name == "identity-reuse-after-front-end-restart")
    trace = scenario.run(V1)
    problem = first_disagreement(Encoding(V2, trace.config.environment), trace)
    assert problem is not None
    assert problem.startswith("step 8 (P1Receive(index=0, engine=0))"), problem


def test_a_resend_that_reads_the_shadow_is_not_v4() -> None:
    """V3's resend references a (the shadow re-recorded it) where V4's sends its payload: the
    V4 relation accepts V4's trace and rejects V3's at the resend's send."""
    scenario = next(s for s in SCENARIOS if s.name == "router-retry-to-the-other-engine")
    v4_trace = scenario.run(V4)
    encoding = Encoding(V4, v4_trace.config.environment, engines=v4_trace.config.engines)
    assert first_disagreement(encoding, v4_trace) is None
    problem = first_disagreement(encoding, scenario.run(V3))
    assert problem is not None
    assert "P0Handle(rid=1, engine=1)" in problem, problem
