"""Runs of the spec where an undisturbed attempt misses and so does the next one: where the
undisturbed-attempt theorem (`model_checks.kernel.retries`) does not hold, each replayed as a
break of L3 and flagged by the theorem's monitor (`retry_monitor.undisturbed_retry_missed`) at its
last step.

Both are V3 runs with split updates (D6). The argument for the theorem needs, for every item
P0's shadow holds once the missed attempt A is sent, that A carried the tag of P0's entry.
An atomic handling (`P0Handle`) gives it; a split update does not: between A's update of an
item and A's send, the shadow's entry can be replaced by another processing of the same
identity, whose tag P1 never sees. The retry then references the new tag, P1 holds A's, and
the retry misses with no drift event and no other request's step in its window.

- `split-update-rejected` (D2+D3+D6, 12 steps, two requests of two items, identities a, b,
  budget 2): request 0's split update records b with tag 0; P0 is cleared (D3); a rejected
  request (D2) re-records b (tag 2) and a (tag 3); request 0's last update sends b's payload
  (tag 0) and a by reference (tag 3); P1 caches b with tag 0 and misses a; P0 drops a; the
  retry sends b by reference with tag 2 and misses b.
- `split-update` (D6 alone, 20 steps, three requests of up to two items, identities a, b,
  budget 2): request 1's split update records a (tag 0); request 0 references a, misses it,
  and P0 drops a; request 2's split update records b (tag 2), never sent yet; request 0's
  retry re-records a (tag 4) and P1 caches it; request 1's last update sends a's payload
  with tag 0 (P1 replaces its entry; P0 keeps tag 4) and b by reference (tag 2), which P1
  misses; P0 takes request 0's success and then request 1's miss (neither changes a cache
  the other's window needs: a step the bound-method comparison counted as disturbing); the
  retry references a with tag 4 and misses.

Each is the shortest such run of its instance (`retry_monitor.search`, breadth-first over the spec's
states paired with the monitor's memory, finds one of its length first).
"""

from __future__ import annotations

from spec import V3, Config, environment
from spec.state import ClientItem
from spec.transitions import (
    Action,
    P0Clear,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
    P1Receive,
    Retry,
    Submit,
)
from tests.committed_witness import Witness

FOLDER = "docs/results/retries"
"""Where the trace files are kept (one per witness, V3)."""

_SPLIT_STEP = ("the theorem's first step: an item P0 holds once the missed attempt is sent "
               "was sent with P0's entry's tag (a split update, D6, breaks it)")


def _items(*identities: str) -> tuple[ClientItem, ...]:
    return tuple(ClientItem(i) for i in identities)


_TWO = Config(identities=("a", "b"), budget=2, variant=V3,
              environment=environment("D2", "D3", "D6"), max_items=2, max_requests=2)
_REJECTED: tuple[Action, ...] = (
    Submit(_items("b", "a")), P0Process(0), P0UpdateItem(0),  # b recorded, tag 0
    P0Clear(), Submit(_items("b", "a")), P0HandleRejected(1),  # b, a re-recorded: tags 2, 3
    P0UpdateItem(0),  # the send: b's payload (tag 0), a by reference (tag 3)
    P1Receive(0), P0ReceiveReply(),  # P1 caches b (tag 0), misses a; P0 drops a
    Retry(0), P0Handle(0), P1Receive(0),  # b by reference with tag 2: a miss
)

_THREE = Config(identities=("a", "b"), budget=2, variant=V3, environment=environment("D6"),
                max_items=2, max_requests=3)
_SPLIT: tuple[Action, ...] = (
    Submit(_items("a")), Submit(_items("a", "b")), P0Process(1), P0UpdateItem(1),
    P0Handle(0), P1Receive(0), P0ReceiveReply(),
    Submit(_items("b", "a")), P0Process(2), P0UpdateItem(2),
    Retry(0), P0Handle(0), P1Receive(0),
    P0UpdateItem(1),  # request 1's send: its entry of b was replaced meanwhile
    P1Receive(0), P0ReceiveReply(), P0ReceiveReply(),  # request 1 missed
    Retry(1), P0Handle(1), P1Receive(0),  # its retry, undisturbed, misses again
)

BREAKS: tuple[Witness, ...] = (
    Witness("split-update-rejected", "L3", (V3,), _TWO, _REJECTED, _SPLIT_STEP, FOLDER),
    Witness("split-update", "L3", (V3,), _THREE, _SPLIT, _SPLIT_STEP, FOLDER),
)
"""The theorem's breaks: each an L3 break of V3 at its last step, which the monitor flags."""
