"""The gate's coverage names the spec's guards too: those that held in a state of the runs
but whose action no step took, and those that never held, so "never broken in N steps" says
how much of the spec's behaviour the runs came near."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from model_checks.conform.lru_lockstep.report import coverage_line
from model_checks.conform.lru_lockstep.run import (
    ConformRun,
    Outcome,
    conform,
    guards_held,
    names_an_identity_twice,
)
from model_checks.conform.profiles import PROFILES
from model_checks.conform.reference_adapter import factory
from spec import ClientItem, Config
from spec.transitions import Submit


def test_a_guard_that_held_is_counted_per_state() -> None:
    config = Config()
    held = guards_held(config, [Submit((ClientItem("a"),))])
    assert held["Submit"] >= 1  # the initial state: a request can be submitted
    assert held["P0Handle"] == 1  # after it, only: P0 can handle the request


def test_the_report_names_guards_held_but_not_taken_and_guards_never_held() -> None:
    outcome = Outcome("pair", steps=3, actions=Counter({"Submit": 1, "P0Handle": 1}),
                      guards=Counter({"Submit": 2, "P0Handle": 1, "P1Receive": 1}))
    line = coverage_line(outcome, frozenset())
    assert "guards that held but were never taken (states): P1Receive x1" in line
    assert "guards that never held: P0ReceiveReply" in line
    full = Outcome("pair", steps=3, actions=Counter({"Submit": 1}), guards=Counter())
    assert "guards that never held: Submit" in coverage_line(full, frozenset())


def test_the_report_counts_requests_that_name_an_identity_twice() -> None:
    twice = Submit((ClientItem("a"), ClientItem("a")))
    assert names_an_identity_twice(twice)
    assert not names_an_identity_twice(Submit((ClientItem("a"), ClientItem("b"))))
    outcome = Outcome("pair", steps=1, actions=Counter({"Submit": 1}), repeated=1)
    assert coverage_line(outcome, None).endswith("requests naming one identity twice: 1")


def test_the_generated_runs_of_the_reference_submit_duplicates() -> None:
    """Conformance's generated runs admit duplicates (`configurations`), and the reference
    serves them in lockstep with the spec."""
    profile = replace(PROFILES["ci"], corpus=False)
    outcome = conform(factory(), profile, ConformRun(variants=("V3",)))
    assert outcome.failure is None and outcome.harness is None
    assert outcome.repeated > 0
