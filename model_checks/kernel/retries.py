"""L4 as a theorem about retries: how many retries recovery needs, as a function of what
happens during a request's life.

Counting drift events is not enough: with no drift event between a miss and its retry, a
retry can still miss in V1-V3, because other requests' ordinary work changes the caches in
between (a rejected request earlier is enough: `tests/smt/parametric_witness_liveness.py`,
"rejected-l3").
What a retry needs is that nothing but its own request touch the caches while it recovers.

`THEOREM` (an undisturbed attempt is followed by success). One engine; variants V1, V2
and V4 under any environment within `ENVIRONMENT` (D1, D2, D3, D4, D6, D10, D11), V3 within
the same without D6 (`SPLIT_FREE`). An attempt of request r is undisturbed when, from the
step that sends it to the delivery of r's next attempt, no drift event happens and no step
but r's own (P1 taking r's messages, P0 taking r's reply and handling r's retry, the
client's retry) changes a shadow or a receiver (`disturbed`). If an undisturbed attempt
misses, the next attempt does not.

Proved for every instance by `model_checks.smt.prove.retry_window` (a symbolic run of the
window over uninterpreted identities and processings, with the one LRU fact it assumes
tested on `spec.lru`). In outline, with A the missed attempt and B the next: (1) each item
of A that P0's shadow holds once A is sent is in P1's cache once A is delivered, with the
same tag, unless it is among the missed ones; that needs A to carry, for each such item, the
tag of P0's entry at the send, which P0's handling in one step gives and a split update
(D6) does not: between A's update of an item and A's send, other requests can replace the
entry (a clear and a rejection, or other split updates), and V3's P1 then holds A's tag
while P0 holds the new one (`model_checks.kernel.retry_witnesses`: two such runs of V3,
12 and 20 steps, replayed on the spec). Untagged variants (V1, V2) compare no tags, so D6
does not break them. (2) Nothing else changes either cache until B's delivery
(undisturbed), and P0 taking A's reply drops exactly the missed identities. (3) So each item
P0 sends by reference in B is in P1's cache with B's tag, and every missed identity is sent
with its data; P1 touches B's items first and B's payloads evict older entries first, so no
reference of B misses. D5 is left out because a router may send B to the other engine; D7,
D8, D9 because a size can differ between the sides or between contents (the sanity pair
below breaks it under D9).

`COROLLARY` (retries needed). In the same variants and environments, a request with at most
k disturbed attempts ends in success within k + 1 retries, so R >= k + 1 suffices; unless P0's
assertion fails it first (V1, V2 under D6), which no retry cures. (If attempts 0..m all
miss, attempts 0..m-1 each have a successor that missed, so each is disturbed: m <= k.)

`STANDING_DRIFT` (no R is enough). Under size skew alone (D9: an item P0 records at a size
within the budget, P1's over it, so P1 never caches it), with no drift event at all, for
every R a request ends as a miss after R retries in every variant that reports misses:
before each of its attempts another request re-sends the item's payload, P0 re-records it,
and the attempt references what P1 never held (`standing_drift_run`, replayed for R = 1..6).

`FIRST_RESEND` (one retry is enough). A variant whose resends bypass the shadow (V4), every
source D1-D11: with R >= 1, every request ends final for the client (success, client error
or rejected). Argument, for every instance (its two premises are machine-checked proofs,
the step from them to L4 is not a solver's): an attempt ends in success, a client error, a
rejection (D2), a miss, or P0's assertion; V4 reprocesses a late miss instead of asserting
and never faults (S3 for every instance under every source, `parametric_goals`), so only a
miss is not final, and it is retried (R >= 1). The retry's attempt is a resend: every item
processed, carrying data and sent as a payload, so it holds no reference and P1 cannot
answer it with a miss (L2 for every instance under every source:
`parametric_liveness.RESEND_CERTIFICATE`, "P1 has missed no resend's reference"); under fair
delivery it is taken and ends in success or a rejection. This holds whatever the drift,
standing (D9: `STANDING_DRIFT` is about the variants that read the shadow on a resend) or
not. `resend_missed` is the claim's core as a monitor (a resend P1 answers with a miss),
`search_resends` runs it over every reachable state of an instance.

`undisturbed_retry_missed` is the theorem as a trace monitor (`advance` its step); `search`
runs it over every reachable state of an instance. The tests run both within `ENVIRONMENT`
(exhaustively on a small instance, sampled on larger ones) and show they fail under D9.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from model_checks.kernel.parent_links import path_to
from spec import (
    DRIFT_IDS,
    V2,
    VARIANTS,
    Config,
    Content,
    ItemSize,
    Trace,
    Variant,
    enabled,
    environment,
    initial,
    step,
)
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

REPORTING: tuple[str, ...] = tuple(v.name for v in VARIANTS if v.reports_misses)
"""The variants the claims are about: those that report a miss (V0's engine crashes)."""

SHADOW_READING: tuple[str, ...] = tuple(
    v.name for v in VARIANTS if v.reports_misses and not v.resends_bypass_shadow)
"""The variants that report a miss and whose resend reads the shadow (V1-V3)."""

BYPASSING: tuple[str, ...] = tuple(v.name for v in VARIANTS if v.resends_bypass_shadow)
"""The variants whose resend bypasses the shadow, every item a payload (V4)."""

EVERY_SOURCE: tuple[str, ...] = DRIFT_IDS

ENVIRONMENT: tuple[str, ...] = ("D1", "D2", "D3", "D4", "D6", "D10", "D11")
"""The sources the theorem allows (any subset) in V1, V2 and V4: none of them changes a size
or adds an engine."""

SPLIT_FREE: tuple[str, ...] = tuple(d for d in ENVIRONMENT if d != "D6")
"""The sources the theorem allows in V3: without split updates, whose tag can differ from
P0's entry at the send (`model_checks.kernel.retry_witnesses`)."""


@dataclass(frozen=True)
class Claim:
    """A statement about retries, where it holds, and what backs it."""

    name: str
    statement: str
    variants: tuple[str, ...]
    environment: tuple[str, ...]
    evidence: str
    narrower: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Variants for which the claim holds only under a smaller environment: (variant, its
    environment)."""

    def environment_for(self, variant: str) -> tuple[str, ...]:
        """The environment the claim allows for `variant` (one of `variants`)."""
        return dict(self.narrower).get(variant, self.environment)


THEOREM = Claim(
    "undisturbed attempt", "an undisturbed attempt that misses is followed by one that does "
    "not miss", REPORTING, ENVIRONMENT,
    "proved for every instance (`model_checks.smt.prove.retry_window`, run by `prove "
    "--parametric`; its LRU fact tested on `spec.lru`, tests/smt/test_smt_retry_window.py); "
    "checked in every run of small instances under combined environments (`search`; "
    "tests/test_retries.py::test_the_theorem_holds_in_every_run_of_a_small_instance) and on "
    "sampled runs of five requests (`undisturbed_retry_missed`); false for V3 under D6 "
    "(`model_checks.kernel.retry_witnesses`)",
    narrower=(("V3", SPLIT_FREE),))
COROLLARY = Claim(
    "retries needed", "with at most k disturbed attempts a request succeeds within k + 1 "
    "retries (R >= k + 1), unless P0's assertion fails it (V1, V2 under D6)",
    REPORTING, ENVIRONMENT, "follows from the theorem (docstring)",
    narrower=(("V3", SPLIT_FREE),))
STANDING_DRIFT = Claim(
    "standing drift", "under D9 alone, for every R, a request ends as a miss after R retries, "
    "with no drift event", SHADOW_READING, ("D9",),
    "`standing_drift_run(R)` replayed for R = 1..6 "
    "(tests/test_retries.py::test_no_number_of_retries_is_enough_under_size_skew)")
FIRST_RESEND = Claim(
    "one retry is enough", "with R >= 1 every request ends final for the client (success, "
    "client error or rejected): the first resend holds no reference, so it cannot miss",
    BYPASSING, EVERY_SOURCE,
    "argued for every instance from L2 and S3 of V4, each proved for every instance under "
    "every source (`parametric_liveness.RESEND_CERTIFICATE`, `parametric_goals`; the step to "
    "L4 under fair delivery is this module's docstring's argument, no solver's); no resend "
    "misses in every run of a small instance per source (`search_resends`; "
    "tests/test_retries.py::test_no_resend_misses_in_every_run_of_a_small_instance), and the "
    "standing-drift family ends in success at the first resend")


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
    return caches_changed(before, after) and not _own(action, rid, before)


def caches_changed(before: State, after: State) -> bool:
    """The step changed a shadow or a receiver (any engine's): the caches' contents or their
    LRU order, compared by value."""
    return before.shadows != after.shadows or before.receivers() != after.receivers()


Memory = tuple[tuple[int, bool, bool, bool], ...]
"""The monitor's bookkeeping, per request seen (sorted by rid): whether its previous attempt
missed, and whether the windows of its previous and current attempts are undisturbed."""


def advance(memory: Memory, before: State, action: Action,
            after: State) -> tuple[Memory, bool | None]:
    """The monitor's step: its new memory, and, at a delivery that follows an undisturbed
    missed attempt of the same request, whether it missed (None at any other step)."""
    rows = {rid: [missed, prev, cur] for rid, missed, prev, cur in memory}
    for rid, row in rows.items():
        if disturbed(action, rid, before, after):
            row[1] = row[2] = False
    outcome = None
    delivery = after.last_delivery if isinstance(action, P1Receive) else None
    if delivery is not None:
        row = rows.setdefault(delivery.message.rid, [False, False, False])
        if row[0] and row[1]:
            outcome = bool(delivery.missed)
        row[0] = bool(delivery.missed)
    if len(after.to_engine) > len(before.to_engine):  # an attempt sent: its window opens
        row = rows.setdefault(after.to_engine[-1].rid, [False, False, False])
        row[1], row[2] = row[2], True
    return tuple((rid, r[0], r[1], r[2]) for rid, r in sorted(rows.items())), outcome


def recoveries(trace: Trace) -> Iterator[tuple[int, bool]]:
    """Each delivery of an attempt that follows an undisturbed missed attempt of the same
    request: its step and whether it missed (the theorem says never)."""
    memory: Memory = ()
    for number, before, action, after in trace.transitions():
        memory, outcome = advance(memory, before, action, after)
        if outcome is not None:
            yield number, outcome


def undisturbed_retry_missed(trace: Trace) -> int | None:
    """The first step at which an attempt that follows an undisturbed missed attempt is
    delivered and misses (the theorem violated); None if there is none."""
    return next((number for number, missed in recoveries(trace) if missed), None)


@dataclass(frozen=True)
class Search:
    """An exhaustive search of an instance for the theorem: the (state, memory) pairs
    visited, how many deliveries reached its premise, and a run that violates it (empty if
    none)."""

    states: int
    premises: int
    violation: tuple[Action, ...]


Watch = Callable[[Memory, State, Action, State], tuple[Memory, bool, bool]]
"""A monitor for `_breadth_first`: from the memory and one step, the new memory, whether the
step is a premise (counted), and whether it is the violation searched for."""


def search(config: Config, max_states: int = 200_000) -> Search:
    """Every reachable (state, monitor memory) of `config`, breadth-first; raises
    OverflowError past `max_states` (an instance too large to answer)."""
    def watch(memory: Memory, before: State, action: Action,
              after: State) -> tuple[Memory, bool, bool]:
        memory, outcome = advance(memory, before, action, after)
        return memory, outcome is not None, bool(outcome)

    return _breadth_first(config, max_states, watch)


def _breadth_first(config: Config, max_states: int, watch: Watch) -> Search:
    """Every reachable (state, memory) of `config` under `watch`, until a step it reports
    as the violation (its path returned); raises OverflowError past `max_states`."""
    start: tuple[State, Memory] = (initial(config), ())
    parent: dict[tuple[State, Memory], tuple[tuple[State, Memory], Action] | None] = {
        start: None}
    queue, premises = deque([start]), 0
    while queue:
        node = queue.popleft()
        for action in enabled(config, node[0]):
            after = step(config, node[0], action)
            memory, premise, found = watch(node[1], node[0], action, after)
            premises += premise
            nxt = (after, memory)
            if nxt in parent:
                continue
            parent[nxt] = (node, action)
            if found:
                return Search(len(parent), premises, path_to(parent, nxt))
            if len(parent) > max_states:
                raise OverflowError(f"more than {max_states} states")
            queue.append(nxt)
    return Search(len(parent), premises, ())


# -- the first resend --------------------------------------------------------------------------

def resend_missed(action: Action, after: State) -> bool:
    """The step is P1 answering a resend (an attempt with `retries > 0`) with a miss: a
    request has one attempt at a time, so the message P1 took is its request's current
    attempt's."""
    delivery = after.last_delivery if isinstance(action, P1Receive) else None
    if delivery is None or not delivery.missed:
        return False
    return after.requests[delivery.message.rid].retries > 0


def search_resends(config: Config, max_states: int = 200_000) -> Search:
    """Every reachable state of `config`, breadth-first, until a step where a resend misses
    (`resend_missed`; `premises` counts the resends P1 took); raises OverflowError past
    `max_states`."""
    def watch(memory: Memory, before: State, action: Action,
              after: State) -> tuple[Memory, bool, bool]:
        return (), _took_resend(action, after), resend_missed(action, after)

    return _breadth_first(config, max_states, watch)


def _took_resend(action: Action, after: State) -> bool:
    delivery = after.last_delivery if isinstance(action, P1Receive) else None
    return delivery is not None and after.requests[delivery.message.rid].retries > 0


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
