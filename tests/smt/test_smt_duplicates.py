"""The SMT encoding admits a request that names one identity twice (`Bounds.duplicates`): spec
traces with duplicates are accepted step by step, the mutant that resolves every reference
first included; bounded model checking finds the mutant's livelock (H1 with no drift) and
none for V3."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from model_checks.mutation.spec_mutants import spec_mutant
from model_checks.smt.decode.crosscheck import first_disagreement
from model_checks.smt.encode.symbols import Bounds, Encoding
from model_checks.smt.results import ProvedToBound, Violated
from model_checks.smt.search.bmc import bmc
from spec import V0, V2, V3, V4, Config, Content, Drift, ItemSize, Variant, environment
from spec.transitions import Submit
from tests.smt.test_smt_crosscheck import random_walk

FLAWED = spec_mutant("references-before-own-payload").variant
BOUNDS = Bounds(duplicates=True)


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
                  environment=env, max_items=2, front_ends=2 if Drift.D5 in env else 1,
                  duplicates=True)


@pytest.mark.parametrize("variant", [V0, V2, V3, V4, FLAWED], ids=lambda v: v.name)
@pytest.mark.parametrize("drift", [(), ("D7",), ("D6", "D9"), ("D2", "D7", "D11")],
                         ids="+".join)
def test_random_walks_with_duplicates_are_accepted(variant: Variant,
                                                  drift: tuple[str, ...]) -> None:
    seed = len(drift) * 7 + len(variant.name)
    config = _config(variant, drift, random.Random(seed))
    trace = random_walk(config, 22, seed)
    assert first_disagreement(Encoding(variant, config.environment, BOUNDS), trace) is None


def test_without_duplicates_the_encoding_refuses_a_repeated_identity() -> None:
    config = replace(_config(V3, (), random.Random(0)), duplicates=False)
    trace = random_walk(replace(config, duplicates=True), 30, 3)
    repeated = any(len({i.identity for i in r.items}) < len(r.items)
                   for r in trace.final.requests)
    assert repeated
    assert first_disagreement(Encoding(V3, config.environment, Bounds(max_items=2)),
                              trace) is not None


def test_bmc_finds_the_livelock_mutant_and_not_v3() -> None:
    found = bmc(Encoding(FLAWED, frozenset(), BOUNDS), "H1", 3)
    assert isinstance(found, Violated), found
    first = found.trace.steps[0].action
    assert isinstance(first, Submit)
    assert len(first.items) == 2 and first.items[0].identity == first.items[1].identity
    assert isinstance(bmc(Encoding(V3, frozenset(), BOUNDS), "H1", 3), ProvedToBound)
