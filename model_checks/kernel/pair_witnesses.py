"""Hand-built witnesses (the LRU design's: traces of its actions) of the pair cells' reasoned
interactions (`pair_reasons.PAIR_REASONS`): per (pair, variants), an action sequence that
breaks S1 on the matrix's own instance (`instance.config_for`) at its last step.
`tests/test_matrix_pairs.py` replays each; the drift lattice takes them as evidence
(`explore --lattice --evidence`, `lattice_lru.pair_witnesses`).
"""

from __future__ import annotations

from spec import Action, ClientItem
from spec.transitions.client import Retry, Submit
from spec.transitions.engine import P1Receive
from spec.transitions.front_end import (
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
)


def _done(rid: int, *items: ClientItem) -> list[Action]:
    """A request handled, delivered in order and answered."""
    return [Submit(items), P0Handle(rid), P1Receive(0), P0ReceiveReply()]


_A, _B, _C = ClientItem("a"), ClientItem("b"), ClientItem("c")
_A1 = ClientItem("a", 1)

WITNESSES: dict[tuple[tuple[str, ...], str], list[Action]] = {
    # the overtaken reference's miss drops a; P1 then caches a@0; the retry records a@1 and
    # the next reference to a overtakes its payload
    (("D1", "D7"), "V2"): [
        Submit((_A,)), P0Handle(0), Submit((_A1,)), P0Handle(1), P1Receive(1),
        P0ReceiveReply(), P1Receive(0), P0ReceiveReply(), Retry(1), P0Handle(1),
        Submit((_A1,)), P0Handle(2), P1Receive(1)],
    # P0 evicts a for c while P1, taking c before b, keeps a; a@1's payload meets it
    (("D1", "D7"), "V0"): [
        *_done(0, _A), Submit((_B,)), P0Handle(1), Submit((_C,)), P0Handle(2), P1Receive(1),
        P0ReceiveReply(), Submit((_A1,)), P0Handle(3), P1Receive(1)],
    # a rejected [b, c] evicts a on P0 only; a rejected [a@1] records a@1 unsent
    (("D2", "D7"), "V0 V1 V2"): [
        *_done(0, _A), Submit((_B, _C)), P0HandleRejected(1), Submit((_A1,)),
        P0HandleRejected(2), Submit((_A1,)), P0Handle(3), P1Receive(0)],
    # Y's reference is sent before Q's payload; after the miss, X records a@1 and Z's
    # reference is sent before X's payload
    (("D6", "D7"), "V1 V2"): [
        Submit((_A, _B)), P0Process(0), P0UpdateItem(0), Submit((_A1,)), P0Process(1),
        P0UpdateItem(1), P0UpdateItem(0), P1Receive(0), P0ReceiveReply(), P1Receive(0),
        P0ReceiveReply(), Submit((_A1, _B)), P0Process(2), P0UpdateItem(2), Submit((_A1,)),
        P0Process(3), P0UpdateItem(3), P1Receive(0)],
    # two requests over the budget fail P0's assertion; the second leaves a@1 recorded
    (("D7", "D8"), "V0 V1 V2"): [
        Submit((_A, _B)), P0Handle(0), P1Receive(0), P0ReceiveReply(), Submit((_B, _C, _A)),
        P0Handle(1), Submit((_A1, _B, _C)), P0Handle(2), Submit((_A1,)), P0Handle(3),
        P1Receive(0)],
}
"""Hand-built traces of the interactions the explorer's small instance cannot reach, on the
matrix's own instance (`config_for`)."""
