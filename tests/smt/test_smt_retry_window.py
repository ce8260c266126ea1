"""The undisturbed-attempt theorem for every instance (`smt.prove.retry_window`): each goal is
proved and not vacuous, each mutant is rejected (V3 under split updates, a variant that keeps
the missed identities, a side that may evict a request's own items), bad input is refused,
and the one LRU fact the model assumes holds of `spec.lru`."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from model_checks.kernel.retries import THEOREM
from model_checks.smt.budget import CERTIFICATE_RLIMIT
from model_checks.smt.prove.parametric import ParametricRejected
from model_checks.smt.prove.retry_window import (
    GOALS,
    WINDOW_SOURCES,
    WITHOUT_SPLIT,
    WindowModel,
    describe,
    prove,
)
from spec import V0, V2, V3, Drift, lru
from tests.retry_monitor import claimed_environment


@pytest.mark.parametrize("goal", GOALS, ids=lambda g: g.variant.name)
def test_each_goal_is_proved_for_every_instance(goal: WindowModel) -> None:
    proof = prove(goal)
    assert proof.instance == "any" and proof.peak > 0


def test_the_goals_are_the_theorem_as_stated() -> None:
    stated = {name: claimed_environment(THEOREM, name) for name in THEOREM.variants}
    proved = {g.variant.name: tuple(sorted((d.value for d in g.environment),
                                           key=lambda d: int(d[1:]))) for g in GOALS}
    assert stated == {name: proved[name] for name in stated}


@pytest.mark.parametrize("mutant", [
    WindowModel(V3, WINDOW_SOURCES),
    WindowModel(replace(V2, invalidates=False, name="V2 keeping what missed"), WINDOW_SOURCES),
    WindowModel(V2, WITHOUT_SPLIT, keeps_the_request=False),
    WindowModel(V3, WITHOUT_SPLIT, keeps_the_request=False),
], ids=["V3 under D6", "no invalidation", "V2 evicting its own", "V3 evicting its own"])
def test_each_mutant_is_rejected_where_the_next_attempt_can_miss(mutant: WindowModel) -> None:
    with pytest.raises(ParametricRejected, match="the next attempt misses no reference"):
        prove(mutant)


@pytest.mark.parametrize("bad", [
    lambda: WindowModel(V2, frozenset({Drift.D8})),
    lambda: WindowModel(V3, frozenset({Drift.D5, Drift.D9})),
    lambda: WindowModel(V0, WITHOUT_SPLIT),
])
def test_a_model_outside_the_theorem_is_a_clear_error(bad: object) -> None:
    with pytest.raises(ValueError, match="window model") as error:
        bad()  # type: ignore[operator]
    assert "\n" not in str(error.value)


def test_environments_are_named_in_drift_order() -> None:
    assert describe(WITHOUT_SPLIT) == "D1+D2+D3+D4+D10+D11"
    assert describe(frozenset()) == "none"


def _request_keeps_its_items(rng: random.Random, budget: int) -> None:
    """One sampled case of `KEEPS_THE_REQUEST` on `spec.lru`: a side holding any entries
    handles a request (items fitting the budget together, one size per identity): touches
    all, then per item in any order a get if held, else a put. No held item of the request
    is evicted, and each put of an item within the budget leaves it held."""
    names = "abcdef"
    size = {n: rng.randint(1, budget + 1) for n in names}
    held: lru.Lru = ()
    for name in rng.sample(names, rng.randint(0, len(names))):
        held, _ = lru.put(held, lru.Entry(name, size[name], 0, 0), budget)
    request = rng.sample(names, rng.randint(1, 4))
    if sum(size[n] for n in request if size[n] <= budget) > budget:
        return
    side = held
    for name in request:
        side = lru.touch(side, name)
    for name in rng.sample(request, len(request)):
        before = {n for n in request if lru.probe(side, n)}
        if lru.probe(side, name):
            _, side = lru.get(side, name)
        else:
            side, _ = lru.put(side, lru.Entry(name, size[name], 1, 1), budget)
            assert lru.probe(side, name) == (size[name] <= budget)
        assert before <= {n for n in request if lru.probe(side, n)}, (held, request)


def test_the_lru_keeps_a_requests_items_while_it_handles_them() -> None:
    rng = random.Random(7)
    for budget, _ in itertools.product(range(1, 6), range(2_000)):
        _request_keeps_its_items(rng, budget)


def test_the_lru_fact_fails_for_a_request_over_the_budget() -> None:
    """Without the fit (D8) the fact is false: the sampler is not blind to it."""
    side: lru.Lru = ()
    side, _ = lru.put(side, lru.Entry("a", 1, 0, 0), 2)
    side = lru.touch(side, "a")
    side, _ = lru.put(side, lru.Entry("b", 2, 1, 1), 2)
    assert not lru.probe(side, "a")


def test_prove_parametric_prints_the_theorem_and_fails_on_a_rejected_goal(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from model_checks.smt import command
    from model_checks.smt.prove import retry_window

    assert command._retry_theorem(CERTIFICATE_RLIMIT)
    out = capsys.readouterr().out
    assert "V3 under D1+D2+D3+D4+D10+D11: proved for instance 'any'" in out
    monkeypatch.setattr(retry_window, "GOALS", (WindowModel(V3, WINDOW_SOURCES),))
    assert not command._retry_theorem(CERTIFICATE_RLIMIT)
    assert "V3 under D1+D2+D3+D4+D6+D10+D11: unknown" in capsys.readouterr().out
