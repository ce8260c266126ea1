"""The two choices on a rejection after P0's update (D2): keep the shadow update
(`P0HandleRejected`) or undo it (`P0HandleRejectedUndo`, dropping exactly the entries the
attempt recorded: its payloads', not its references'). Both are enabled wherever D2 is, so
every checker that reads `enabled` decides every property over both."""

from __future__ import annotations

from spec import V2, V3, Config, enabled, environment, initial, run, step
from spec.state import ClientItem
from spec.transitions import (
    P0Handle,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P0ReceiveReply,
    P1Receive,
    Submit,
)

A, B = ClientItem("a"), ClientItem("b")


def _config(*drift: str) -> Config:
    return Config(identities=("a", "b"), budget=2, variant=V3, environment=environment(*drift))


def test_both_choices_are_enabled_exactly_where_d2_is() -> None:
    for drift, expected in ((("D2",), True), ((), False)):
        config = _config(*drift)
        state = step(config, initial(config), Submit((A,)))
        kinds = {type(a) for a in enabled(config, state)}
        assert (P0HandleRejected in kinds) == expected
        assert (P0HandleRejectedUndo in kinds) == expected


def test_the_undo_drops_what_the_attempt_recorded_and_keeps_its_references() -> None:
    """a is held (sent before), so the rejected request (a, b) references a and records b:
    keeping leaves both in the shadow, undoing leaves a only; neither sends anything."""
    config = _config("D2")
    before = (Submit((A,)), P0Handle(0), P1Receive(0), P0ReceiveReply(), Submit((A, B)))
    kept = run(config, (*before, P0HandleRejected(1))).final
    undone = run(config, (*before, P0HandleRejectedUndo(1))).final
    assert sorted(e.identity for e in kept.shadows[0]) == ["a", "b"]
    assert [e.identity for e in undone.shadows[0]] == ["a"]
    for state in (kept, undone):
        assert state.to_engine == () and state.requests[1].outcome is not None
        assert state.requests[1].outcome.value == "rejected"


def test_after_an_undo_the_next_request_sends_the_data_and_nothing_misses() -> None:
    config = Config(identities=("a",), budget=2, variant=V2, environment=environment("D2"))
    trace = run(config, (Submit((A,)), P0HandleRejectedUndo(0), Submit((A,)), P0Handle(1),
                         P1Receive(0), P0ReceiveReply()))
    assert trace.final.requests[1].outcome is not None
    assert trace.final.requests[1].outcome.value == "success"
