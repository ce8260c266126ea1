"""The LRU design's explicit witnesses: hand-written traces a must-break search falls back on
(per design by nature: traces of its actions, read through `simulate.lru_matrix`).

Hypothesis finds short counterexamples quickly, but the deep liveness ones (three drift events
defeating two retries: 27 steps) are out of reach of the ci budget. Like Hypothesis's explicit
examples, these traces are tried when the search found nothing: a witness applies to a cell
whose environment contains its drift sources, is run on the cell's own configuration (a
witness whose step is not enabled there is skipped), driven to quiescence by the fair
scheduler, checked with the registry, and shortened by deleting steps while the property still
breaks. Records say "explicit witness" in their detail, so a reader can tell them from
counterexamples the search found. The scenario suite's scripts are witnesses too.
"""

from __future__ import annotations

from collections.abc import Sequence

from model_checks.scenarios import SCENARIOS
from model_checks.scenarios.base import item, submit
from model_checks.simulate.matrix_design import Script
from spec import ClientItem, Config, Trace, by_id, initial, is_enabled, step
from spec.drift import ROUTER
from spec.fairness import drive_to_quiescence
from spec.trace import Step
from spec.transitions import (
    Action,
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1Reset,
    P1Restart,
    Retry,
)


def _round_trip(rid: int, identity: str = "a") -> list[Action]:
    return [submit(item(identity)), P0Handle(rid), P1Receive(0), P0ReceiveReply()]


def _retry(rid: int) -> list[Action]:
    return [Retry(rid), P0Handle(rid), P1Receive(0), P0ReceiveReply()]


def _wipes_defeat_retries(wipe: Sequence[Action]) -> tuple[Action, ...]:
    """R+1 = 3 wipes of P1, each after another request re-recorded a: request 1 misses three
    times and ends with no retry left (L4)."""
    return (
        *_round_trip(0), *wipe, *_round_trip(1),
        *_round_trip(2), *wipe, *_retry(1),
        *_round_trip(3), *wipe, *_retry(1),
    )


def _larger_content_evicts_its_hit(then: ClientItem) -> tuple[Action, ...]:
    """D7 with b's second content over half the budget (the matrix's instance): after [b@1],
    the request [a b] finds b a hit of 2 bytes and recording a evicts it before P0 reaches it
    (P0's assertion: S3, L4), leaving a recorded and never sent. A request for `then` follows:
    b (P0 misses and sends b@0 while P1 holds b@1: where the cache wins, S1) or a (a
    reference P1 cannot resolve: H1)."""
    return (submit(item("b", 1)), submit(item("a"), item("b")), P0Handle(0), P0Handle(1),
            submit(then), P0Handle(2), P1Receive(0), P1Receive(0))


_HAND: tuple[Script, ...] = (
    Script("larger-reused-content-then-stale", frozenset({"D7"}),
            _larger_content_evicts_its_hit(item("b"))),
    Script("larger-reused-content-then-unsent", frozenset({"D7"}),
            _larger_content_evicts_its_hit(item("a"))),
    Script("p1-clears-defeat-retries", frozenset({"D3"}), _wipes_defeat_retries([P1Clear()])),
    Script("p1-restarts-defeat-retries", frozenset({"D10"}),
            _wipes_defeat_retries([P1Restart()])),
    Script(
        "resets-defeat-retries", frozenset({"D4"}),
        (
            P0ClearForReset(0), *_round_trip(0), P1Reset(), *_round_trip(1),
            P0ClearForReset(0), *_round_trip(2), P1Reset(), *_retry(1),
            P0ClearForReset(0), *_round_trip(3), P1Reset(), *_retry(1),
        ),
    ),
    Script(
        "rejections-defeat-retries", frozenset({"D2"}),
        (
            submit(item("a")), P0HandleRejected(0), *_round_trip(1),
            submit(item("a")), P0HandleRejected(2), *_retry(1),
            submit(item("a")), P0HandleRejected(3), *_retry(1),
        ),
    ),
    Script(
        "rejection-re-records-dropped-key", frozenset({"D2"}),
        (
            submit(item("a")), P0HandleRejected(0), *_round_trip(1),
            submit(item("a")), P0HandleRejected(2), Retry(1), P0Handle(1),
        ),
    ),
    Script(
        "split-update-re-records-dropped-key", frozenset({"D6"}),
        (
            submit(item("a"), item("b")), P0Process(0),
            submit(item("a")), P0Process(1),
            P0UpdateItem(0),  # request 0 records a (payload), b still to do
            P0UpdateItem(1),  # request 1 finds a: a reference, sent before a's payload
            P1Receive(0), P0ReceiveReply(),  # the miss: P0 drops a
            submit(item("a"), item("c")), P0Process(2),
            P0UpdateItem(2),  # request 2 records a again, c still to do
            Retry(1), P0Process(1), P0UpdateItem(1),  # the retry sends a as a reference
        ),
    ),
    Script(
        # L3 with 2 unfinished requests: request 0 is processed (the drift event) before the
        # miss and updated after it; its insert of c evicts b on P0 but a on P1, which took
        # the requests in another order, so the retry's reference to a misses again.
        "split-update-evicts-retry-reference", frozenset({"D6"}),
        (
            submit(item("b"), item("c")), P0Process(0),
            submit(item("b"), item("a")), P0UpdateItem(0), P0Handle(1),
            P1Receive(0), P0UpdateItem(0), P0ReceiveReply(),  # the miss on b
            Retry(1), P0Handle(1),  # [b payload, a reference], sent after request 0's b, c
        ),
    ),
    Script(
        "probed-hit-evicted-before-update", frozenset({"D6"}),
        (*_round_trip(0), submit(item("a")), P0Process(1), submit(item("b"), item("c")),
         P0Handle(2), P0UpdateItem(1)),
    ),
    Script(
        "other-front-end-evicts-retry-reference", frozenset({"D5"}),
        (
            submit(item("a"), item("b")), P0Handle(0), P1Receive(0), P0ReceiveReply(),
            submit(item("c"), front_end=1), P0Handle(1), P1Receive(0), P0ReceiveReply(),
            submit(item("a"), item("b")), P0Handle(2), P1Receive(0), P0ReceiveReply(),
            submit(item("c"), item("a"), front_end=1), P0Handle(3), P1Receive(0),
            P0ReceiveReply(), *_retry(2),
        ),
    ),
    Script(
        "skewed-insert-evicts-retry-reference", frozenset({"D9"}),
        (
            submit(item("a"), item("b")), P0Handle(0), P1Receive(0), P0ReceiveReply(),
            submit(item("a"), item("b")), P0Handle(1), P1Receive(0), P0ReceiveReply(),
            submit(item("c")), P0Handle(2), P1Receive(0), P0ReceiveReply(),
            *_retry(1),
        ),
    ),
    Script(
        "skewed-payload-evicts-retry-reference", frozenset({"D9"}),
        (
            submit(item("a"), item("b")), P0Handle(0), P1Receive(0), P0ReceiveReply(),
            submit(item("a"), item("b")), P0Handle(1), P1Receive(0), P0ReceiveReply(),
            *_round_trip(2, "a"),
            *_retry(1),
        ),
    ),
    Script(
        # L4 of V1 under D9, as the ci search finds it: two requests' retries
        # keep re-recording each other's items, whose skewed payloads evict the other's
        # reference from P1.
        "skewed-retries-evict-each-other", frozenset({"D9"}),
        (
            submit(item("a")), submit(item("a"), item("c")), P0Handle(0), P0Handle(1),
            P1Receive(0), P0ReceiveReply(), submit(item("b"), item("a")), P1Receive(0),
            P0ReceiveReply(), P0Handle(2), P1Receive(0), submit(item("a"), item("b")),
            P0Handle(3), P1Receive(0), P0ReceiveReply(), P0ReceiveReply(), *_retry(3),
        ),
    ),
    Script(
        # L2: the retry's reference to a overtakes the payload of a that request 2 sent after
        # the miss.
        "reordered-retry-overtakes-re-sent-payload", frozenset({"D1"}),
        (
            submit(item("a")), P0Handle(0), submit(item("a")), P0Handle(1),
            P1Receive(1), P0ReceiveReply(),  # request 1's reference first: the miss, a dropped
            submit(item("a")), P0Handle(2),  # request 2 re-sends a's payload
            Retry(1), P0Handle(1), P1Receive(2), P0ReceiveReply(),
        ),
    ),
    *(
        Script(
            f"{name}-after-re-sent-payload", frozenset({drift}),
            (*prefix, *_round_trip(0), *wipe, *_round_trip(1), *_round_trip(2), *wipe,
             *_retry(1)),
        )
        for name, drift, prefix, wipe in (
            ("p1-clear", "D3", (), (P1Clear(),)),
            ("p1-restart", "D10", (), (P1Restart(),)),
            ("reset", "D4", (P0ClearForReset(0),), (P1Reset(), P0ClearForReset(0))),
        )
    ),
    Script(
        # D8, V1/V2: P0's assertion fails request 1 and leaves b and c recorded, never sent;
        # request 2's reference to b misses; request 3 re-records b unsent and asserts; the
        # retry sends b as a reference and misses again (L1, L2, L3: no drift event).
        "asserting-requests-re-record-dropped-key", frozenset({"D8"}),
        (
            *_round_trip(0),
            submit(item("b"), item("c"), item("a")), P0Handle(1),
            *_round_trip(2, "b"),
            submit(item("b"), item("a"), item("c")), P0Handle(3),
            *_retry(2),
        ),
    ),
    Script(
        # The same where c's first content is over the budget (D11) and a second one is not.
        "asserting-requests-re-record-dropped-key-second-content", frozenset({"D7", "D8"}),
        (
            *_round_trip(0),
            submit(item("b"), item("c", 1), item("a")), P0Handle(1),
            *_round_trip(2, "b"),
            submit(item("b"), item("a"), item("c", 1)), P0Handle(3),
            *_retry(2),
        ),
    ),
    Script(
        # D9 with c cached by P0 only: every reference to c misses; two other requests
        # re-record c before each retry, so request 1 misses c three times (L2, L3, L4).
        "one-sided-item-re-recorded-before-each-retry", frozenset({"D9"}),
        (
            *_round_trip(0, "c"), *_round_trip(1, "c"),
            *_round_trip(2, "c"), *_retry(1),
            *_round_trip(3, "c"), *_retry(1),
        ),
    ),
    Script(
        # D9: skewed payloads (b 2 bytes on P1) evict the b that request 3 re-sent after the
        # miss, so the retry's reference to b misses again (L2), in V3 too.
        "skewed-payloads-evict-re-sent-item", frozenset({"D9"}),
        (
            submit(item("a"), item("b")), P0Handle(0), P1Receive(0), P0ReceiveReply(),
            *_round_trip(1, "c"), *_round_trip(2, "b"),
            submit(item("b"), item("a")), P0Handle(3), P1Receive(0), P0ReceiveReply(),
            *_retry(2),
        ),
    ),
    Script(
        # D5's router: two requests re-send a's payload to engine 0, each before a retry
        # routed to engine 1, which references a and misses it: three misses, R = 2 (L4).
        "router-retries-routed-away-from-the-payload", frozenset({ROUTER}),
        (
            *_round_trip(0),
            submit(item("a")), P0Handle(1, 1), P1Receive(0, 1), P0ReceiveReply(),
            *_round_trip(2),
            Retry(1), P0Handle(1, 1), P1Receive(0, 1), P0ReceiveReply(),
            *_round_trip(3),
            Retry(1), P0Handle(1, 1), P1Receive(0, 1), P0ReceiveReply(),
        ),
    ),
    Script(
        "front-end-cleared-then-identity-reused", frozenset({"D3", "D7"}),
        (*_round_trip(0), P0Clear(0), submit(item("a", 1)), P0Handle(1), P1Receive(0)),
    ),
    Script(
        "in-order-delivery-after-reorder-evicts-retry-reference", frozenset({"D1"}),
        (
            *_round_trip(0), ClearBoth(),
            submit(item("a"), item("b")), submit(item("a"), item("c")),
            P0Handle(1), P0Handle(2), P1Receive(1), P1Receive(0), P0ReceiveReply(),
            Retry(2), P0Handle(2), P1Receive(0),
        ),
    ),
)

WITNESSES: tuple[Script, ...] = (
    *_HAND,
    *(Script(f"scenario {s.name}", frozenset(s.drift), s.script) for s in SCENARIOS),
)


def _run_settled(config: Config, script: Sequence[Action]) -> Trace | None:
    """The script (up to a fault, which is absorbing), then the fair tail; None if a step
    is not enabled in this configuration."""
    state = initial(config)
    steps: list[Step] = []
    for action in script:
        if state.fault is not None:
            break
        if not is_enabled(config, state, action):
            return None
        state = step(config, state, action)
        steps.append(Step(action, state))
    steps.extend(Step(a, s) for a, s in drive_to_quiescence(config, state))
    return Trace(config, initial(config), tuple(steps))


def _breaks(config: Config, script: Sequence[Action], prop: str) -> tuple[Trace, int] | None:
    trace = _run_settled(config, script)
    if trace is None:
        return None
    violation = by_id(prop).check_trace(trace)
    return None if violation is None else (trace, violation.step)


def shortest_witness(
    config: Config, env: Sequence[str], prop: str, extra: Sequence[Script] = ()
) -> tuple[str, Trace, int, int, str] | None:
    """(name, trace, step, script length, reason) of the shortest applicable witness breaking
    `prop` on `config`, each shortened by deleting steps while it still breaks `prop`."""
    best: tuple[str, Trace, int, int, str] | None = None
    for witness in (*extra, *WITNESSES):
        if not witness.drift <= set(env):
            continue
        script = list(witness.script)
        found = _breaks(config, script, prop)
        if found is None:
            continue
        index = len(script) - 1
        while index >= 0:
            shorter = script[:index] + script[index + 1 :]
            again = _breaks(config, shorter, prop)
            if again is not None:
                script, found = shorter, again
            index -= 1
        trace, step = found
        violation = by_id(prop).check_trace(trace)
        reason = violation.reason if violation else ""
        if best is None or step < best[2]:
            best = (witness.name, trace, step, len(script), reason)
    return best
