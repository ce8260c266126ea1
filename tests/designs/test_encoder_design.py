"""The encoder-cache design (`spec.designs.encoder`): what the explorer finds in it alone
(a reused identity of equal size serves the old encoder output, silently; the guard turns a
reused identity of another size into that request's error; nothing kills the engine), its
mutants (the guard off kills the engine, references never dropped pin entries), bad
configurations refused in one line, and actions that round-trip through JSON."""

from __future__ import annotations

import dataclasses

import pytest

from model_checks.explore.exploration import explore, replay
from spec.config import Content, InvalidConfiguration
from spec.designs.encoder import ENCODER
from spec.designs.encoder.actions import Arrive, Complete, Schedule
from spec.designs.encoder.config import EncoderConfig, EncoderKnobs
from spec.designs.encoder.state import Item, Outcome

PROPERTIES = {p.id: p for p in ENCODER.properties}


def _item(identity: str, version: int = 0) -> Item:
    content = Content(identity, version)
    return Item(identity, content, content, content)


def test_alone_a_reused_identity_serves_the_old_output_and_nothing_kills_the_engine() -> None:
    for environment in (frozenset(), frozenset({"D1"}), frozenset({"R1"}), frozenset({"D7"})):
        config = ENCODER.instance("EC", environment)
        found = explore(ENCODER, config, environment=environment)
        assert found.complete and found.states > 0
        assert found.verdict("S3") == "holds" and found.verdict("S2") == "holds"
        assert found.verdict("U1") == "holds"
        expected = "breaks" if "D7" in environment else "holds"
        assert found.verdict("S1") == expected and found.verdict("S4") == expected
    d7 = ENCODER.instance("EC", frozenset({"D7"}))
    witness = explore(ENCODER, d7).witness("S1")
    assert witness is not None and replay(ENCODER, d7, witness.actions, PROPERTIES["S1"])


def _run(config: EncoderConfig, *actions: object) -> object:
    state = ENCODER.initial(config)
    for action in actions:
        state = ENCODER.step(config, state, action)
    return state


def test_the_guard_rejects_another_size_while_the_entry_is_cached() -> None:
    config = ENCODER.instance("EC", frozenset({"D7"}))
    state = _run(config, Arrive((_item("a"),)), Schedule(0), Complete(0),
                 Arrive((_item("a", 2),)), Schedule(1))
    assert state.requests[1].outcome is Outcome.REJECTED and state.fault is None


def test_an_evicted_identity_is_computed_anew() -> None:
    config = dataclasses.replace(ENCODER.instance("EC", frozenset({"D7"})), max_requests=3)
    state = _run(config, Arrive((_item("a"),)), Schedule(0), Complete(0),
                 Arrive((_item("b"),)), Schedule(1), Complete(1),
                 Arrive((_item("a", 2),)), Schedule(2))
    assert [c.embeddings for c in state.last_consumed] == [Content("a", 2)]


@pytest.mark.parametrize(("knobs", "environment", "prop"), [
    (EncoderKnobs(guard_compares_counts=False), frozenset({"D7"}), "S3"),
    (EncoderKnobs(frees_computed_inputs=False), frozenset(), "U1"),
], ids=["no-guard", "keeps-references"])
def test_each_mutant_breaks_what_the_release_keeps(knobs: EncoderKnobs,
                                                   environment: frozenset[str],
                                                   prop: str) -> None:
    release = ENCODER.instance("EC", environment)
    mutant = dataclasses.replace(release, knobs=knobs)
    assert explore(ENCODER, release).verdict(prop) == "holds"
    witness = explore(ENCODER, mutant).witness(prop)
    assert witness is not None and replay(ENCODER, mutant, witness.actions, PROPERTIES[prop])


def test_an_item_larger_than_the_cache_is_refused_in_one_line() -> None:
    with pytest.raises(InvalidConfiguration, match="exceeds the cache") as raised:
        EncoderConfig(embeds=((Content("b"), 3),))
    assert "\n" not in str(raised.value)
    with pytest.raises(InvalidConfiguration, match="enable D7"):
        EncoderConfig(versions=2)


def test_actions_round_trip_through_json() -> None:
    config = ENCODER.instance("EC", frozenset({"D7", "R1"}))
    state = ENCODER.initial(config)
    seen = 0
    for action in ENCODER.enabled(config, state):
        assert ENCODER.action_from_json(ENCODER.action_to_json(action)) == action
        seen += 1
    assert seen > 0
