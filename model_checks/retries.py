"""L4 as a theorem about retries: how many retries recovery needs, as a function of what
happens during a request's life.

Counting drift events is not enough: with no drift event between a miss and its retry, a
retry can still miss in V1-V3, because other requests' ordinary work changes the caches in
between (a rejected request earlier is enough: `parametric_witness_liveness`, "rejected-l3").
What a retry needs is that nothing but its own request touch the caches while it recovers.

`THEOREM` (an undisturbed attempt is followed by success). Variants V1-V3, one engine,
environments within `ENVIRONMENT` (D1, D2, D3, D4, D6, D10, D11). An attempt of request r is
undisturbed when, from the step that sends it to the delivery of r's next attempt, no drift
event happens and no step but r's own (P1 taking r's messages, P0 taking r's reply and
handling r's retry, the client's retry) changes a shadow or a receiver (`disturbed`). If an
undisturbed attempt misses, the next attempt succeeds.

Proof, for every instance (identities, sizes, budget, items, requests): let A be the missed
attempt and B the next. (1) Each item of A that P0's shadow holds once A is sent is in P1's
cache once A is delivered, with the same tag, unless it is among the missed ones: a
reference that P1 served stays (P1 touched every item of A first, and A's items fit the
budget together without D8, so its payloads evict older entries first, never one of A's,
and without D7 no entry is larger than the content it holds); a payload P0 recorded fits the
budget at P0's size, which is P1's size without D9, so P1 caches it too (V1: or keeps the
entry it has), with the same tag. (2) Nothing else changes either cache until B's delivery
(undisturbed), and P0 taking A's reply drops exactly the missed identities. (3) So each
item P0 sends by reference in B is in P1's cache with B's tag, and every missed identity is
sent with its data; P1 touches B's items first and B's payloads evict older entries first,
so no reference of B misses: B succeeds. D5 is left out because a router may send B to the
other engine; D7, D8, D9 because a size can differ between the sides or between contents
(the sanity pair below breaks it under D9).

`COROLLARY` (retries needed). In the same variants and environments, a request with at most
k disturbed attempts ends in success within k + 1 retries, so R >= k + 1 suffices; unless
P0's assertion fails it first (V1, V2 under D6), which no retry cures. (If attempts 0..m all
miss, attempts 0..m-1 each have a successor that missed, so each is disturbed: m <= k.)

`STANDING_DRIFT` (no R is enough). Under size skew alone (D9: an item P0 records at a size
within the budget, P1's over it, so P1 never caches it), with no drift event at all, for
every R a request ends as a miss after R retries in every variant that reports misses:
before each of its attempts another request re-sends the item's payload, P0 re-records it,
and the attempt references what P1 never held (`standing_drift_run`, replayed for R = 1..6).

`undisturbed_retry_missed` is the theorem as a trace monitor; the tests run it on sampled
runs within `ENVIRONMENT` and show it fails on the D9 sanity run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from spec import V2, Config, Content, ItemSize, Trace, Variant, environment
from spec.state import ClientItem, State
from spec.transitions import (
    Action,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
    P1Receive,
    Retry,
    Submit,
)

ENVIRONMENT: tuple[str, ...] = ("D1", "D2", "D3", "D4", "D6", "D10", "D11")
"""The sources the theorem allows (any subset): none of them changes a size or adds an
engine."""


@dataclass(frozen=True)
class Claim:
    """A statement about retries, where it holds, and what backs it."""

    name: str
    statement: str
    variants: tuple[str, ...]
    environment: tuple[str, ...]
    evidence: str


THEOREM = Claim(
    "undisturbed attempt", "an undisturbed attempt that misses is followed by a successful "
    "one", ("V1", "V2", "V3"), ENVIRONMENT,
    "proved by hand for every instance (this module's docstring); checked by "
    "`undisturbed_retry_missed` on sampled spec runs "
    "(tests/test_retries.py::test_no_undisturbed_attempt_is_followed_by_a_miss)")
COROLLARY = Claim(
    "retries needed", "with at most k disturbed attempts a request succeeds within k + 1 "
    "retries (R >= k + 1), unless P0's assertion fails it (V1, V2 under D6)",
    ("V1", "V2", "V3"), ENVIRONMENT, "follows from the theorem (docstring)")
STANDING_DRIFT = Claim(
    "standing drift", "under D9 alone, for every R, a request ends as a miss after R retries, "
    "with no drift event", ("V1", "V2", "V3"), ("D9",),
    "`standing_drift_run(R)` replayed for R = 1..6 "
    "(tests/test_retries.py::test_no_number_of_retries_is_enough_under_size_skew)")


# -- the theorem as a monitor ------------------------------------------------------------------


def _own(action: Action, rid: int, before: State) -> bool:
    """The step belongs to request rid: P0 handles its attempt, the client retries it, P1
    takes its message, or P0 takes its reply."""
    if isinstance(action, P0Handle | P0HandleRejected | P0Process | P0UpdateItem | Retry):
        return action.rid == rid
    if isinstance(action, P1Receive):
        at = before.queue_of(action.engine)[action.index]
        return before.to_engine[at].rid == rid
    if isinstance(action, P0ReceiveReply):
        return before.to_front_end[0].rid == rid
    return False


def disturbed(action: Action, rid: int, before: State, after: State) -> bool:
    """A step that disturbs request rid's attempt: a drift event, or another request's step
    (or any other step) that changes a shadow or a receiver."""
    if action.drift_event() is not None:
        return True
    changed = before.shadows != after.shadows or before.receivers != after.receivers
    return changed and not _own(action, rid, before)


@dataclass
class _Attempts:
    """Per request: whether its previous attempt missed, and whether the windows of its
    previous and current attempts are still undisturbed."""

    previous_missed: bool = False
    previous_clean: bool = False
    current_clean: bool = False


def recoveries(trace: Trace) -> Iterator[tuple[int, bool]]:
    """Each delivery of an attempt that follows an undisturbed missed attempt of the same
    request: its step and whether it missed (the theorem says never)."""
    watch: dict[int, _Attempts] = {}
    for number, before, action, after in trace.transitions():
        for rid, attempts in watch.items():
            if disturbed(action, rid, before, after):
                attempts.previous_clean = attempts.current_clean = False
        delivery = after.last_delivery if isinstance(action, P1Receive) else None
        if delivery is not None:
            attempts = watch.setdefault(delivery.message.rid, _Attempts())
            if attempts.previous_missed and attempts.previous_clean:
                yield number, bool(delivery.missed)
            attempts.previous_missed = bool(delivery.missed)
        _note_send(watch, before, after)


def undisturbed_retry_missed(trace: Trace) -> int | None:
    """The first step at which an attempt that follows an undisturbed missed attempt is
    delivered and misses (the theorem violated); None if there is none."""
    return next((number for number, missed in recoveries(trace) if missed), None)


def _note_send(watch: dict[int, _Attempts], before: State, after: State) -> None:
    """A new attempt sent: the current window becomes the previous one, a clean one opens."""
    if len(after.to_engine) <= len(before.to_engine) or not after.to_engine:
        return
    rid = after.to_engine[-1].rid
    attempts = watch.setdefault(rid, _Attempts())
    attempts.previous_clean, attempts.current_clean = attempts.current_clean, True


# -- the standing-drift family -----------------------------------------------------------------


def standing_drift_config(retries: int, variant: Variant = V2) -> Config:
    """Size skew alone: identity s recorded at 1 byte by P0, 3 bytes at P1 (over the budget
    of 2, so P1 never caches it); the client retries up to `retries` times."""
    return Config(identities=("s",), budget=2, variant=variant, environment=environment("D9"),
                  sizes=(ItemSize(Content("s", 0), 1, 3),), max_retries=retries,
                  max_requests=retries + 3, max_items=1)


def standing_drift_run(retries: int) -> tuple[Action, ...]:
    """Request 1 misses `retries` + 1 times: before each attempt, another request re-sends
    s's payload and P0 re-records s, and the attempt references it."""
    data, ref = (ClientItem("s", 0, True),), (ClientItem("s", 0, False),)
    steps: list[Action] = [Submit(data), P0Handle(0), P1Receive(0), P0ReceiveReply(),
                           Submit(ref), P0Handle(1), P1Receive(0), P0ReceiveReply()]
    for attempt in range(retries):
        other = attempt + 2
        steps += [Submit(data), P0Handle(other), P1Receive(0), P0ReceiveReply(),
                  Retry(1), P0Handle(1), P1Receive(0), P0ReceiveReply()]
    return tuple(steps)
