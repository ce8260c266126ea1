"""The all-instance certificates on wide spec instances: two items per request in every
environment, a size per content (a reused identity's new content of another size under D7),
and D5's router (one front end, two engines): the abstraction of every state of a random walk,
seen from each engine, satisfies the budget certificate of every variant, the owner
certificate of V0-V2 and V3's certificate (`tests/smt/parametric_abstraction.py`)."""

from __future__ import annotations

import random

import pytest

from model_checks.smt.prove.parametric import CERTIFICATE
from model_checks.smt.prove.parametric_goals import BUDGET_CERTIFICATE, OWNER_CERTIFICATE
from spec import V0, V1, V2, V3, Config, Content, Drift, ItemSize, State, Variant, environment, lru
from tests.smt.parametric_abstraction import check_state
from tests.smt.test_smt_crosscheck import random_walk


def wide_config(variant: Variant, drift: tuple[str, ...], seed: int, engines: int = 1) -> Config:
    """Identities a, b, c (two contents each under D7, each content its own size, over the
    budget only under D11, the sides' sizes apart only under D9), two items per request."""
    rng, env = random.Random(seed), environment(*drift)
    versions = 2 if Drift.D7 in env else 1
    budget = rng.randint(2, 4)
    top = budget + 1 if Drift.D11 in env else budget
    sizes = []
    for identity in "abc":
        for version in range(versions):
            shadow = rng.randint(1, top)
            receiver = rng.randint(1, top) if Drift.D9 in env else shadow
            sizes.append(ItemSize(Content(identity, version), shadow, receiver))
    return Config(budget=budget, sizes=tuple(sizes), versions=versions, variant=variant,
                  environment=env, max_items=2, engines=engines,
                  front_ends=2 if Drift.D5 in env and engines == 1 else 1)


def _walk_states(config: Config, steps: int, seed: int) -> list[State]:
    trace = random_walk(config, steps, seed)
    assert len(trace.steps) >= steps // 2, "the walk stopped early: it checks too little"
    return list(trace.states())


@pytest.mark.parametrize("variant", [V0, V1, V2, V3])
def test_every_engine_of_the_router_satisfies_the_budget_certificate(variant: Variant) -> None:
    """Under D5's router each engine's receiver is the model's P1 in its projection."""
    config = wide_config(variant, ("D5", "D1", "D7"), 2, engines=2)
    states = _walk_states(config, 30, 2)
    assert any(s.other_receivers and s.other_receivers[0] for s in states), (
        "engine 1 never cached anything: the walk does not exercise the router")
    certificates = [BUDGET_CERTIFICATE] + ([CERTIFICATE] if variant.tagged else [])
    for certificate in certificates:
        assert [check_state(config, s, certificate=certificate)
                for s in states] == [None] * len(states)


@pytest.mark.parametrize(("variant", "drift"), [
    (V0, ("D7",)), (V1, ("D7", "D9", "D11")), (V2, ("D7", "D2", "D3")), (V0, ("D9", "D10")),
])
def test_wide_walks_satisfy_the_budget_and_owner_certificates(variant: Variant,
                                                             drift: tuple[str, ...]) -> None:
    """Two items per request and a size per content in every environment, D7 alone among
    them: the budget certificate holds; the owner one too (a processing of identity i is of
    i whatever its content)."""
    config = wide_config(variant, drift, len(drift))
    for state in _walk_states(config, 24, len(drift)):
        for certificate in (BUDGET_CERTIFICATE, OWNER_CERTIFICATE):
            assert check_state(config, state, certificate=certificate) is None


def test_an_over_budget_receiver_on_engine_1_is_caught() -> None:
    """The per-engine check can fail: engine 1's receiver pushed over the budget by hand."""
    config = wide_config(V2, ("D5",), 1, engines=2)
    states = _walk_states(config, 16, 1)
    base = states[-1]
    over = lru.Entry("a", config.budget + 1, 0, None)
    broken = base.evolve(other_receivers=((over,),))
    failed = check_state(config, broken, certificate=BUDGET_CERTIFICATE)
    assert failed is not None and failed.startswith("engine 1: within-budget fails")
