"""Where the all-instance prover fails for L1-L3, real breaks in larger instances.

`parametric_liveness` names the step each certificate fails on outside its environment; each
witness here is a run of the spec that takes that step and breaks the property, found by
looking where the failing step says (more requests than the lattice's rungs, budgets that
make a request's own insert evict, a size per content). Each is replayed before it counts,
and the lattice takes its committed trace as evidence (checker "scenarios").

- Identity reuse alone (D7), V1 and V2, L1 and L2: L1's certificate fails on "P0 records a
  payload it does not send". P0's assertion does that without D2: a request (h@0, x@1) whose
  probed hit x was recorded at the size of x@0 fits the budget by its own contents, but its
  insert of h evicts x, so P0 asserts with h recorded and nothing sent. After a miss on h,
  a second such request re-records h; the retry then sends h as a reference (L1) and P1,
  which never saw it, misses it again (L2). Five requests, two identities, budget 3.
- Identity reuse alone (D7), V1 and V2, L3: the same unsent record, with no drift event
  after the miss. Every submit of a second content happens before it; after it, a request
  of first contents (h@0, x@0) fits the budget, but x's entry is x@1's larger size, so the
  insert of h evicts x, P0 asserts with h recorded, and the retry references h and misses.
  Five requests, three identities, budget 3, a size per content.
- A rejected request alone (D2), V1, V2 and V3, L3: the certificates of L3 need the mirror,
  which a rejection breaks; with no drift event after the miss, the retry still sends a
  reference whose entry P1 evicted while P0 (its order changed by requests P1 never saw)
  kept it. Five requests of two items, budget 2.
- One-sided clear (D3), reset after P0's clear (D4) or restart (D10) alone, V1, V2 and V3,
  L3: once P1 has lost k, a request referencing k and g misses k; before P0 takes that
  reply, other requests evict k from the shadow and re-send its payload, so P1 caches k,
  and the reply then drops k on P0 alone. P1, fuller than P0 from then on, evicts g where
  P0 keeps it, and the retry references g and misses, with no drift event after the first
  miss. Six requests of two items, three unfinished, budget 3 (28-29 steps).
- Two front ends (D5), V1, V2 and V3, L2: after front end 0's request misses c, its retry
  carries c's data, but another request of front end 0 has re-recorded c (a payload, which
  excuses L1) and front end 1's traffic has made P1 evict it, so the retry, sending c as a
  reference, is answered with a miss for c again. Six one-item requests, budget 3, sizes
  2, 2 and 3 bytes (found by a random search of the spec, then shortened).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from spec import V1, V2, V3, Config, Content, ItemSize, environment
from spec.state import ClientItem
from spec.transitions import (
    Action,
    ClearBoth,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0ReceiveReply,
    P1Clear,
    P1Receive,
    P1Reset,
    P1Restart,
    Retry,
    Submit,
)
from tests.committed_witness import Witness, write_witnesses


def _item(identity: str, version: int = 0, data: bool = True) -> ClientItem:
    return ClientItem(identity, version, data)


_D7_SIZES = {("h", 0): 2, ("h", 1): 2, ("x", 0): 2, ("x", 1): 1}
_D7 = Config(identities=("h", "x"), budget=3, versions=2, variant=V2,
             environment=environment("D7"), max_items=2, max_requests=5,
             sizes=tuple(ItemSize(Content(i, v), n, n) for (i, v), n in _D7_SIZES.items()))
_D7_ACTIONS: tuple[Action, ...] = (
    Submit((_item("x"),)), P0Handle(0), P1Receive(0), P0ReceiveReply(),
    Submit((_item("h"), _item("x", 1))), P0Handle(1),  # h recorded, x evicted: P0 asserts
    Submit((_item("h", data=False),)), P0Handle(2), P1Receive(0), P0ReceiveReply(),  # miss
    Submit((_item("x"),)), P0Handle(3), P1Receive(0), P0ReceiveReply(),
    Submit((_item("h"), _item("x", 1))), P0Handle(4),  # h recorded again, unsent
    Retry(2), P0Handle(2),  # the retry sends h as a reference (L1)
)
_UNSENT = "P0 records a payload it does not send"

_D7_L3_SIZES = {("h", 0): 2, ("h", 1): 1, ("x", 0): 1, ("x", 1): 2, ("y", 0): 1, ("y", 1): 3}
_D7_L3 = replace(_D7, identities=("h", "x", "y"),
                 sizes=tuple(ItemSize(Content(i, v), n, n) for (i, v), n in _D7_L3_SIZES.items()))
_D7_L3_ACTIONS: tuple[Action, ...] = (
    Submit((_item("y", 1),)), P0Handle(0), P1Receive(0), P0ReceiveReply(),
    Submit((_item("h", 1), _item("y"))), P0Handle(1),  # h@1 recorded, y evicted: P0 asserts
    Submit((_item("x", 1),)), P0Handle(2), P1Receive(0), P0ReceiveReply(),
    Submit((_item("h", 1, data=False),)), P0Handle(3), P1Receive(0),  # the miss: watched
    P0ReceiveReply(), Submit((_item("h"), _item("x"))), P0Handle(4),  # no event: version 0
    Retry(3), P0Handle(3), P1Receive(0),  # the retry references h@0's entry: a miss
)

_D2 = Config(identities=("a", "b", "c"), budget=2, variant=V2,
             environment=environment("D2"), max_items=2, max_requests=5)
_D2_ACTIONS: tuple[Action, ...] = (
    Submit((_item("b", data=False),)), Submit((_item("b"), _item("c"))), P0Handle(0),
    Submit((_item("a"), _item("b"))), P0HandleRejected(2),
    Submit((_item("b"), _item("a", data=False))), P0Handle(3), P0Handle(1), P1Receive(0),
    P0ReceiveReply(), Submit((_item("c"), _item("b", data=False))), Retry(3), P0Handle(3),
    P0HandleRejected(4), P1Receive(0), P1Receive(0),  # request 1 misses: the watch starts
    P0ReceiveReply(), Retry(1), P0Handle(1), P1Receive(0),  # its retry misses c
)

_D5 = Config(identities=("a", "b", "c"), budget=3, variant=V2, environment=environment("D5"),
             max_items=2, max_requests=6, front_ends=2,
             sizes=tuple(ItemSize(Content(i, 0), n, n) for i, n in (("a", 2), ("b", 2),
                                                                    ("c", 3))))
_D5_ACTIONS: tuple[Action, ...] = (
    Submit((_item("b", data=False),)), Submit((_item("b"),), 1), P0Handle(0),
    Submit((_item("c"),)), P0Handle(2), P0Handle(1), P1Receive(0), P0ReceiveReply(),
    Submit((_item("c"),)), P0Handle(3), P1Receive(0), P1Receive(0),  # 3 misses c
    P0ReceiveReply(), Submit((_item("b"),), 1), P0ReceiveReply(), Submit((_item("c"),)),
    ClearBoth(), P0Handle(5), P0Handle(4), Retry(3), P1Receive(0), P1Receive(0), P0Handle(3),
    P0ReceiveReply(), P0ReceiveReply(), P1Receive(0), P0ReceiveReply(),  # the retry misses c
)

def _both(*identities: str) -> tuple[ClientItem, ...]:
    return tuple(_item(i) for i in identities)


_ONE_SIDED = Config(identities=("k", "g", "y", "c", "d"), budget=3, variant=V2,
                    environment=environment("D3"), max_items=2, max_requests=6,
                    max_in_flight=3)


def _one_sided_actions(loses_k: tuple[Action, ...]) -> tuple[Action, ...]:
    """After `loses_k` leaves k in P0's shadow only (P0: k, g, y; P1: g, y), request 2
    references k and g and misses k; before P0 takes that reply, two requests evict k from
    the shadow and re-send its payload, so P1 caches k, which the reply then drops on P0
    alone: P1 is fuller than P0, and a request of two new items evicts g on P1 only. The
    retry references g and misses, with no drift event after the first miss."""
    return (*loses_k, Submit(_both("g", "y")), P0Handle(1), P1Receive(0), P0ReceiveReply(),
            Submit(_both("k", "g")), P0Handle(2), Submit(_both("c", "d")), P0Handle(3),
            P1Receive(0), P1Receive(0), Submit(_both("g", "k")), P0Handle(4), P1Receive(0),
            P0ReceiveReply(), P0ReceiveReply(), P0ReceiveReply(),
            Submit(_both("y", "c")), P0Handle(5), P1Receive(0), P0ReceiveReply(),
            Retry(2), P0Handle(2), P1Receive(0))


_K_SENT: tuple[Action, ...] = (Submit(_both("k")), P0Handle(0), P1Receive(0), P0ReceiveReply())

WITNESSES: tuple[Witness, ...] = (
    Witness("reuse-l1", "L1", (V1, V2), _D7, _D7_ACTIONS, _UNSENT),
    Witness("reuse-l2", "L2", (V1, V2), _D7,
            (*_D7_ACTIONS, P1Receive(0), P0ReceiveReply()), _UNSENT),
    Witness("reuse-l3", "L3", (V1, V2), _D7_L3, _D7_L3_ACTIONS,
            "the mirror does not apply (P0's assertion: a key P1 never saw)"),
    Witness("rejected-l3", "L3", (V1, V2, V3), _D2, _D2_ACTIONS,
            "the mirror does not apply (D2: a key P1 never saw)"),
    Witness("one-sided-clear-l3", "L3", (V1, V2, V3), _ONE_SIDED,
            _one_sided_actions((*_K_SENT, P1Clear())),
            "the mirror does not apply (D3: P1 cleared alone)"),
    Witness("reset-l3", "L3", (V1, V2, V3), replace(_ONE_SIDED, environment=environment("D4")),
            _one_sided_actions((P0ClearForReset(), *_K_SENT, P1Reset())),
            "the mirror does not apply (D4: P1 reset after P0's clear)"),
    Witness("restart-l3", "L3", (V1, V2, V3),
            replace(_ONE_SIDED, environment=environment("D10")),
            _one_sided_actions((*_K_SENT, P1Restart())),
            "the mirror does not apply (D10: P1 restarted)"),
    Witness("two-front-ends-l2", "L2", (V1, V2, V3), _D5, _D5_ACTIONS,
            "the mirror does not apply (D5: a second shadow)"),
)


def write(root: Path = Path(".")) -> list[Path]:
    """Write every witness's trace file, one per variant, under `root`; returns the paths."""
    return write_witnesses(WITNESSES, root)
