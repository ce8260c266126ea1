"""The Hypothesis machine has a rule for the other choice on a receive under D9
(`P1ReceiveOwnPayload`): on V3 with a request naming one identity twice it fires, S1 holds
over both choices, and with the choice planted wrong (a reference served from a payload of
another identity) the search finds the stale pairing through that rule."""

from __future__ import annotations

from dataclasses import replace

import pytest
from receive_choice import plant_wrong_choice, skewed_config

from model_checks.simulate.lru_rules import LRU_RULES
from model_checks.simulate.machine import RuleStats, rule_names
from model_checks.simulate.run import PROFILES, search
from spec import Config, environment
from spec.transitions import P1ReceiveOwnPayload

PROFILE = replace(PROFILES["ci"], name="test", max_shrinks=0, jobs=1)
LABEL = P1ReceiveOwnPayload.label


def _config() -> Config:
    return skewed_config(max_requests=3)


def test_the_rule_exists_exactly_under_d9() -> None:
    assert LABEL in rule_names(LRU_RULES, _config())
    without = replace(_config(), environment=environment(), sizes=())
    assert LABEL not in rule_names(LRU_RULES, without)


def test_the_rule_fires_and_s1_holds_over_both_choices() -> None:
    stats = RuleStats()
    found = search("V3_D9_choice", _config(), ("S1",), PROFILE, 150, stats)
    assert found.finding is None
    assert stats.fired[LABEL] > 0


def test_a_wrong_choice_is_found_through_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    plant_wrong_choice(monkeypatch)
    found = search("V3_D9_wrong_choice", _config(), ("S1",), PROFILE, 400, RuleStats())
    assert found.finding is not None and found.finding.property_id == "S1"
    assert any(isinstance(s.action, P1ReceiveOwnPayload) for s in found.finding.trace.steps)
