"""The explorer decides every property over both choices on a receive under D9
(`P1ReceiveOwnPayload`): on a small V3 instance with a request naming one identity twice it
takes the choice, and with the choice planted wrong (a reference served from a payload of
another identity) it finds the stale pairing, with and without partial-order reduction."""

from __future__ import annotations

import pytest

from model_checks.explore.graph import build
from model_checks.explore.judge import Status, judge
from model_checks.explore.reduction import build_reduced
from spec import V3, Config, Content, ItemSize, by_id, environment
from spec.state import Message
from spec.transitions import P1ReceiveOwnPayload
from spec.transitions import engine as receive


def _config() -> Config:
    """a and b are 1 byte at P0 and 3 at P1, over P1's 2-byte budget: P1 caches neither.
    Two contents per identity (D7), so that S1 is no vacuous property here."""
    skewed = tuple(ItemSize(Content(i, v), 1, 3) for i in "ab" for v in (0, 1))
    return Config(identities=("a", "b"), budget=2, variant=V3, versions=2,
                  environment=environment("D7", "D9"), duplicates=True, max_requests=2,
                  max_in_flight=1, max_items=2, sizes=skewed)


def _any_payload(config: Config, message: Message) -> tuple[tuple[int, int], ...]:
    """Planted: every reference paired with the message's first payload, any identity."""
    items = message.items
    payload = next((i for i, w in enumerate(items) if w.data is not None), None)
    if payload is None:
        return ()
    return tuple((payload, i) for i, w in enumerate(items) if w.data is None)


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
    monkeypatch.setattr(receive, "own_payload_pairs", _any_payload)
    graph = build_reduced(_config()) if por else build(_config())
    judgement = judge(graph, by_id("S1"))
    assert judgement.status is Status.COUNTEREXAMPLE and judgement.trace is not None
    assert any(isinstance(s.action, P1ReceiveOwnPayload) for s in judgement.trace.steps)
