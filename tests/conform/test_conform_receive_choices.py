"""Implementation freedom on a receive under size skew (D9): a receiver that serves a
reference missing its cache from an earlier payload of its own request (same identity and
tag) conforms as the spec's `P1ReceiveOwnPayload`, and conformance says it observed that
choice; the reference receiver, which reports the miss, is seen making the other; a
receiver serving a reference from a payload of another identity is still a disagreement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from reference.messages import ModelInput, WireItem
from reference.receiver import Resolution
from spec import V3, V4, Action, Config, Content, ItemSize, Variant, environment
from spec.state import ClientItem
from spec.transitions import (
    P0Handle,
    P0ReceiveReply,
    P1Receive,
    P1ReceiveOwnPayload,
    Submit,
)
from tests.conform.choice_runs import Choice, check_neither_disagrees
from tests.conform.own_payload_pair import (
    OwnPayloadAdapter,
    OwnPayloadEngine,
    OwnPayloadReceiver,
)


def _config(variant: Variant) -> Config:
    """a is 1 byte at P0 and 3 at P1, over P1's 2-byte budget: P1 cannot cache it."""
    return Config(identities=("a", "b"), budget=2, variant=variant,
                  environment=environment("D9"), duplicates=True, max_requests=3,
                  sizes=(ItemSize(Content("a"), 1, 3),))


def _script(receive: type[P1Receive]) -> list[Action]:
    """One request naming a twice: P0 sends a payload, then a reference to it."""
    twice = (ClientItem("a"), ClientItem("a"))
    return [Submit(twice), P0Handle(0), receive(0), P0ReceiveReply()]


OWN = Choice(P1Receive, P1ReceiveOwnPayload, _config, _script, succeeds=0)


@pytest.mark.parametrize("variant", [V3, V4], ids=lambda v: v.name)
@pytest.mark.parametrize("named", [P1Receive, P1ReceiveOwnPayload],
                         ids=["script misses", "script serves"])
def test_a_receiver_serving_its_own_payload_conforms(
        variant: Variant, named: type[P1Receive]) -> None:
    OWN.check_made_by(variant, OwnPayloadAdapter(), named)


@pytest.mark.parametrize("named", [P1Receive, P1ReceiveOwnPayload],
                         ids=["script misses", "script serves"])
def test_the_reference_reports_the_miss_and_is_seen_doing_so(named: type[P1Receive]) -> None:
    """Seen three times: the miss fails the request, and the client's two retries (the
    configuration's default) miss again."""
    OWN.check_reference(named, seen=3)


class _ServesAnyPayload(OwnPayloadReceiver):
    """Neither choice: a reference that misses gets the tensor of its request's first
    payload, whatever that payload's identity."""

    def resolve(self, items: Sequence[WireItem]) -> Resolution:
        resolution = super().resolve(items)
        if not resolution.missed or not resolution.inputs:
            return resolution
        other = resolution.inputs[0].payload
        served = iter(resolution.inputs)
        inputs = tuple(
            ModelInput(item.identity, other, item.placeholders)
            if item.payload is None and item.identity in resolution.missed else next(served)
            for item in items)
        return Resolution(inputs, ())


class _ServesAnyEngine(OwnPayloadEngine):
    def __init__(self, budget: int, **kwargs: Any) -> None:
        super().__init__(budget, **kwargs)
        self._receiver = _ServesAnyPayload(budget, **kwargs)


def test_a_receiver_serving_another_identitys_payload_disagrees() -> None:
    """Both identities are too large for P1: after a's round trip P0 holds a and P1 does
    not, so in the request (b, a) a's reference misses, and this receiver serves it b's
    tensor (no choice the spec allows: b is another identity)."""
    config = Config(identities=("a", "b"), budget=2, variant=V3,
                    environment=environment("D9"), max_requests=3,
                    sizes=(ItemSize(Content("a"), 1, 3), ItemSize(Content("b"), 1, 3)))
    a, b = ClientItem("a"), ClientItem("b")
    script = [Submit((a,)), P0Handle(0), P1Receive(0), P0ReceiveReply(),
              Submit((b, a)), P0Handle(1), P1Receive(0)]
    check_neither_disagrees(config, OwnPayloadAdapter(engine_class=_ServesAnyEngine), script)


def test_each_receive_choice_has_the_other_as_its_alternative() -> None:
    OWN.check_alternatives(1, 0)
