"""A request that names one identity twice (`Config.duplicates`): the spec admits it only where
the configuration does, serves it in every variant as vLLM's release does (the first
occurrence's payload, then a reference that hits it), and under identity reuse serves the
first content for both occurrences (S1 holds, S4 is D7's documented limit)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from spec import (
    V3,
    VARIANTS,
    Config,
    InvalidConfiguration,
    Outcome,
    Variant,
    by_id,
    environment,
    initial,
    is_enabled,
    step,
)
from spec.state import ClientItem, State
from spec.transitions import P0Handle, P0ReceiveReply, P1Receive, Retry, Submit
from spec.transitions.client import all_requests

A0, A1 = ClientItem("a", 0), ClientItem("a", 1)


def _run(config: Config, *items: ClientItem) -> State:
    state = initial(config)
    for action in (Submit(items), P0Handle(0), P1Receive(0)):
        state = step(config, state, action)
    return state


def test_duplicates_are_refused_unless_the_configuration_admits_them() -> None:
    twice = Submit((A0, A0))
    assert not is_enabled(Config(), initial(Config()), twice)
    admitting = Config(duplicates=True)
    assert is_enabled(admitting, initial(admitting), twice)
    with pytest.raises(InvalidConfiguration, match="duplicates must be True or False"):
        Config(duplicates=1)  # type: ignore[arg-type]


def test_all_requests_lists_the_repeated_tuples_only_with_duplicates() -> None:
    plain = list(all_requests(Config(identities=("a", "b"))))
    admitting = list(all_requests(Config(identities=("a", "b"), duplicates=True)))
    assert admitting[: len(plain)] == plain  # the distinct ones first, in the same order
    repeated = [r for r in admitting if len({i.identity for i in r}) < len(r)]
    assert repeated and len(admitting) == len(plain) + len(repeated)
    assert all(len({i.identity for i in r}) == len(r) for r in plain)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_the_same_image_twice_is_a_payload_then_a_hit(variant: Variant) -> None:
    config = Config(variant=variant, duplicates=True)
    state = initial(config)
    state = step(config, state, Submit((A0, A0)))
    state = step(config, state, P0Handle(0))
    first, second = state.to_engine[0].items
    assert first.data is not None and second.data is None  # recorded, then hit
    assert second.placeholders == first.data
    state = step(config, state, P1Receive(0))
    assert state.last_delivery is not None and not state.last_delivery.missed
    served = state.last_delivery.served
    assert [(s.tensor, s.placeholders) for s in served] == [(first.data, first.data)] * 2
    state = step(config, state, P0ReceiveReply())
    assert state.requests[0].outcome is Outcome.SUCCESS
    for prop in ("S1", "S2", "S3", "S4", "H1"):
        assert by_id(prop).check_state(config, state) == [], prop


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_a_reused_identity_twice_serves_the_first_content(variant: Variant) -> None:
    config = Config(variant=variant, duplicates=True, versions=2,
                    environment=environment("D7"))
    state = _run(config, A0, A1)
    assert state.last_delivery is not None
    served = state.last_delivery.served
    assert [s.sent_version for s in served] == [0, 1]  # per item, not per identity
    assert by_id("S1").check_state(config, state) == []
    assert by_id("S4").check_state(config, state) == [
        "request 0 item 'a': client sent version 1, tensor are of version 0",
        "request 0 item 'a': client sent version 1, placeholders are of version 0",
    ]


def test_references_first_resolves_a_reference_after_its_own_payload() -> None:
    """V3 resolves references before payloads, except a reference to an identity whose
    payload the same message carries: the order P0 updated them in."""
    config = Config(variant=V3, duplicates=True, identities=("a", "b"), max_items=3)
    state = initial(config)
    # b is recorded by an earlier request, so the next request sends it as a reference
    for action in (Submit((ClientItem("b"),)), P0Handle(0), P1Receive(0), P0ReceiveReply(),
                   Submit((A0, ClientItem("b"), A0)), P0Handle(1)):
        state = step(config, state, action)
    kinds = [(w.identity, w.data is None) for w in state.to_engine[0].items]
    assert kinds == [("a", False), ("b", True), ("a", True)]
    state = step(config, state, P1Receive(0))
    assert state.last_delivery is not None and not state.last_delivery.missed


def test_the_mutant_that_resolves_every_reference_first_never_recovers() -> None:
    """The flawed order: the second occurrence's reference is resolved before the payload
    that would cache it, so every attempt misses it (the miss reply lists it once)."""
    flawed = replace(V3, name="V3-flawed", references_after_own_payload=False)
    config = Config(variant=flawed, duplicates=True, max_retries=3)
    state = initial(config)
    for action in (Submit((A0, A0)), P0Handle(0), P1Receive(0), P0ReceiveReply()):
        state = step(config, state, action)
    for _ in range(config.max_retries):
        assert state.requests[0].outcome is Outcome.MISS
        assert state.requests[0].missed == ("a",)
        for action in (Retry(0), P0Handle(0), P1Receive(0), P0ReceiveReply()):
            state = step(config, state, action)
    assert state.requests[0].outcome is Outcome.MISS  # out of retries: L4 fails
