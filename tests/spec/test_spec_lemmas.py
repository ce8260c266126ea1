"""The strengthening invariants I1-I7: hold on every state V3 reaches, and each can fail."""

from __future__ import annotations

from dataclasses import replace

import pytest
from test_spec_machine import all_drift_config, random_walk

from spec import V2, V3, Config, Kind, by_id, lemmas, registry
from spec.lru import Entry, Ghost
from spec.state import (
    ClientItem,
    Delivery,
    Message,
    Processing,
    Request,
    Served,
    State,
    WireItem,
)

TAGGED = Config(variant=V3)


def test_lemmas_are_declared_apart_from_the_properties() -> None:
    assert [p.id for p in lemmas()] == [f"I{i}" for i in range(1, 8)]
    assert all(p.kind is Kind.LEMMA and p.statement for p in lemmas())
    assert not {p.id for p in lemmas()} & {p.id for p in registry()}
    assert by_id("I3").title == "served from one processing"


def test_every_lemma_holds_on_every_state_of_v3_walks_under_all_drift() -> None:
    config = all_drift_config(V3)
    for seed in range(60):
        trace = random_walk(config, seed)
        for lemma in lemmas():
            assert lemma.check_trace(trace) is None, (seed, lemma.id)


ONE = (Processing("a", 0),)
BAD_STATES: dict[str, State] = {
    "I1": State(shadows=((Entry("a", 1, 0, tag=5),),), processings=ONE),
    "I2": State(
        shadows=((),), processings=ONE, to_engine=(Message(0, 0, (WireItem("a", None, 0, 7),)),)
    ),
    "I3": State(
        shadows=((),),
        processings=(*ONE, Processing("a", 0)),
        last_delivery=Delivery(Message(0, 0, ()), (Served(0, "a", 0, 1, 0),), ()),
    ),
    "I4": State(shadows=((Entry("a", 1, 3, 3),),), processings=ONE),
    "I5": State(shadows=((),), requests=(Request(0, 0, (ClientItem("z"),)),)),
    "I6": State(shadows=((Entry("a", 0, 0, 0),),), processings=ONE),
    "I7": State(shadows=((Ghost("a"),),)),
}


@pytest.mark.parametrize("lemma_id", sorted(BAD_STATES))
def test_each_lemma_fails_on_a_state_that_breaks_it(lemma_id: str) -> None:
    reasons = by_id(lemma_id).check_state(TAGGED, BAD_STATES[lemma_id])
    assert reasons, lemma_id


def test_tag_lemmas_say_nothing_about_untagged_variants() -> None:
    untagged = replace(TAGGED, variant=V2)
    for lemma_id in ("I1", "I2", "I3"):
        assert by_id(lemma_id).check_state(untagged, BAD_STATES[lemma_id]) == []
