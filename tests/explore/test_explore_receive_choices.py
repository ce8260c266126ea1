"""The explorer decides every property over both choices on a receive under D9
(`P1ReceiveOwnPayload`): on a small V3 instance with a request naming one identity twice it
takes the choice, and with the choice planted wrong (a reference served from a payload of
another identity) it finds the stale pairing, with and without partial-order reduction."""

from __future__ import annotations

import pytest
from receive_choice import plant_wrong_choice, skewed_config

from model_checks.explore.graph import build
from model_checks.explore.lru_judging.judge import Status, judge
from model_checks.explore.lru_judging.reduction import build_reduced
from spec import Config, by_id
from spec.transitions import P1ReceiveOwnPayload


def _config() -> Config:
    """Two contents per identity (D7), so that S1 is no vacuous property here; one request in
    flight keeps the full search small."""
    return skewed_config("D7", versions=2, max_requests=2, max_in_flight=1)


@pytest.mark.parametrize("por", [True, False], ids=["por", "no por"])
def test_the_choice_is_explored_and_keeps_s1(por: bool) -> None:
    graph = build_reduced(_config()) if por else build(_config())
    assert graph.complete
    assert any(isinstance(a, P1ReceiveOwnPayload) for a in graph.actions)
    assert judge(graph, by_id("S1")).status is Status.PROVED
    broken = judge(graph, by_id("H1"))  # the other choice still misses
    assert broken.status is Status.COUNTEREXAMPLE


@pytest.mark.parametrize("por", [True, False], ids=["por", "no por"])
def test_a_wrong_choice_is_a_stale_pairing_the_explorer_finds(
        monkeypatch: pytest.MonkeyPatch, por: bool) -> None:
    plant_wrong_choice(monkeypatch)
    graph = build_reduced(_config()) if por else build(_config())
    judgement = judge(graph, by_id("S1"))
    assert judgement.status is Status.COUNTEREXAMPLE and judgement.trace is not None
    assert any(isinstance(s.action, P1ReceiveOwnPayload) for s in judgement.trace.steps)
