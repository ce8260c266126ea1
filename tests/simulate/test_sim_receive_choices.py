"""The Hypothesis machine has a rule for the other choice on a receive under D9
(`P1ReceiveOwnPayload`): on V3 with a request naming one identity twice it fires, S1 holds
over both choices, and with the choice planted wrong (a reference served from a payload of
another identity) the search finds the stale pairing through that rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.simulate.machine import RuleStats, rule_names
from model_checks.simulate.run import PROFILES, search
from spec import V3, Config, Content, ItemSize, environment
from spec.state import Message
from spec.transitions import P1ReceiveOwnPayload
from spec.transitions import engine as receive

PROFILE = replace(PROFILES["ci"], name="test", max_shrinks=0, jobs=1)
LABEL = P1ReceiveOwnPayload.label


def _config() -> Config:
    """a and b are 1 byte at P0 and 3 at P1, over P1's 2-byte budget: P1 caches neither."""
    return Config(identities=("a", "b"), budget=2, variant=V3, environment=environment("D9"),
                  duplicates=True, max_requests=3, max_items=2,
                  sizes=(ItemSize(Content("a"), 1, 3), ItemSize(Content("b"), 1, 3)))


def _any_payload(config: Config, message: Message) -> tuple[tuple[int, int], ...]:
    """Planted: every reference paired with the message's first payload, any identity."""
    items = message.items
    payload = next((i for i, w in enumerate(items) if w.data is not None), None)
    if payload is None:
        return ()
    return tuple((payload, i) for i, w in enumerate(items) if w.data is None)


def test_the_rule_exists_exactly_under_d9() -> None:
    assert LABEL in rule_names(_config())
    assert LABEL not in rule_names(replace(_config(), environment=environment(), sizes=()))


def test_the_rule_fires_and_s1_holds_over_both_choices() -> None:
    stats = RuleStats()
    found = search("V3_D9_choice", _config(), ("S1",), PROFILE, 150, stats)
    assert found.finding is None
    assert stats.fired[LABEL] > 0


def test_a_wrong_choice_is_found_through_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(receive, "own_payload_pairs", _any_payload)
    found = search("V3_D9_wrong_choice", _config(), ("S1",), PROFILE, 400, RuleStats())
    assert found.finding is not None and found.finding.property_id == "S1"
    assert any(isinstance(s.action, P1ReceiveOwnPayload) for s in found.finding.trace.steps)
