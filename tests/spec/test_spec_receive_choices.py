"""The two choices on a receive under size skew (D9): a reference that misses the cache is
a miss (`P1Receive`), or is served from an earlier payload of its own message with the same
identity and tag (`P1ReceiveOwnPayload`). The second is enabled exactly under D9 where the
message has such a pair, and serves only where tagged (V3, V4): an untagged receiver cannot
tell that the reference names the record the payload made, so there the step is the
first's. Every checker that reads `enabled` decides every property over both."""

from __future__ import annotations

from spec import V2, V3, V4, Config, Content, ItemSize, Variant, enabled, environment, run
from spec.state import ClientItem
from spec.transitions import P0Handle, P1Receive, P1ReceiveOwnPayload, Submit

A = ClientItem("a")


def _config(variant: Variant, *drift: str) -> Config:
    """a is 1 byte at P0 and 3 at P1 (under D9): over P1's 2-byte budget."""
    sizes = (ItemSize(Content("a"), 1, 3),) if "D9" in drift else ()
    return Config(identities=("a", "b"), budget=2, variant=variant, duplicates=True,
                  environment=environment(*drift), sizes=sizes)


def test_enabled_exactly_under_d9_where_the_message_references_its_own_payload() -> None:
    for drift, items, expected in ((("D9",), (A, A), True), ((), (A, A), False),
                                   (("D9",), (A, ClientItem("b")), False)):
        config = _config(V3, *drift)
        state = run(config, (Submit(items), P0Handle(0))).final
        assert (P1ReceiveOwnPayload(0) in enabled(config, state)) == expected, (drift, items)


def test_a_tagged_receiver_serves_the_reference_from_its_own_payload() -> None:
    for variant in (V3, V4):
        config = _config(variant, "D9")
        before = (Submit((A, A)), P0Handle(0))
        missed = run(config, (*before, P1Receive(0))).final
        served = run(config, (*before, P1ReceiveOwnPayload(0))).final
        assert missed.last_delivery is not None and missed.last_delivery.missed == ("a",)
        delivery = served.last_delivery
        assert delivery is not None and delivery.missed == ()
        assert [s.tensor for s in delivery.served] == [0, 0]  # the request's own processing
        assert served.receiver == missed.receiver  # nothing more cached either way


def test_an_untagged_receiver_has_no_such_choice() -> None:
    config = _config(V2, "D9")
    before = (Submit((A, A)), P0Handle(0))
    assert (run(config, (*before, P1ReceiveOwnPayload(0))).final
            == run(config, (*before, P1Receive(0))).final)
