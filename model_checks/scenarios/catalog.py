"""The LRU design's scenario suite: one or more hand-written traces per drift source, with the
properties each variant must break. Expectations are reasoned out from the protocol (see each
story), not copied from a run; `tests/test_scenarios.py` asserts them. Per design by nature
(traces of the LRU design's actions on its configurations), read by the one runner
(`scenarios.run`) through `suite_for`.

Defaults: identities a, b, c; budget 2; every item 1 byte on both sides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from model_checks.scenarios.base import (
    Scenario,
    every_variant,
    item,
    per_variant,
    submit,
    uuid_only,
    violated,
)
from spec import VARIANTS, Config, Content, ItemSize, Variant, environment, registry, variant_named
from spec.designs.lru_design import LRU
from spec.drift import ROUTER
from spec.state import ClientItem
from spec.transitions import (
    Action,
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P0Process,
    P0ReceiveReply,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1ReceiveOwnPayload,
    P1Reset,
    P1Restart,
    Retry,
)


def configured(*drift: str, **fields: object) -> Callable[[Variant], Config]:
    """A config factory: the given drift sources and fields, for whichever variant."""

    def make(variant: Variant) -> Config:
        return Config(variant=variant, environment=environment(*drift), **fields)  # type: ignore[arg-type]

    return make


def round_trip(rid: int, *items: ClientItem, front_end: int = 0) -> tuple[Action, ...]:
    """Submit, handle, deliver, take the reply: one request end to end, nothing interleaved."""
    return (submit(*items, front_end=front_end), P0Handle(rid), P1Receive(0), P0ReceiveReply())


def routed_round_trip(rid: int, engine: int, *items: ClientItem) -> tuple[Action, ...]:
    """`round_trip` with the message routed to `engine` (D5's router configuration)."""
    return (submit(*items), P0Handle(rid, engine), P1Receive(0, engine), P0ReceiveReply())


def probed_hit_evicted(again: ClientItem) -> tuple[Action, ...]:
    """a is cached; request 1 (`again`, naming a) is probed, then request 2's b evicts a from
    a 1-byte shadow before request 1's update."""
    return (
        *round_trip(0, item("a")),
        submit(again),
        P0Process(1),
        submit(item("b")),
        P0Handle(2),
        P0UpdateItem(1),
    )


CRASH = "S3 H1 L4"  # V0 on a reference P1 cannot serve: the engine's input thread dies

SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "no-drift-baseline",
        (),
        "Hits, misses and evictions with nothing drifting: the two LRUs mirror, every "
        "reference is served, nothing breaks in any variant.",
        configured(),
        (
            *round_trip(0, item("a")),
            *round_trip(1, item("a")),
            *round_trip(2, item("b"), item("c")),
            *round_trip(3, item("a")),
        ),
        every_variant(""),
    ),
    Scenario(
        "clear-both-when-idle",
        (),
        "The protocol's own clear of both sides while nothing is in flight is safe: the next "
        "request misses on P0 and sends its data.",
        configured(),
        (*round_trip(0, item("a")), ClearBoth(), *round_trip(1, item("a"))),
        every_variant(""),
    ),
    Scenario(
        "reordered-delivery",
        ("D1",),
        "P0 sends a's payload, then a reference to a; P1 takes the reference first and has "
        "nothing for it. V0 crashes; V1-V3 report the miss and the retry succeeds.",
        configured("D1"),
        (submit(item("a")), P0Handle(0), submit(item("a")), P0Handle(1), P1Receive(1)),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "rejected-after-update",
        ("D2",),
        "P0 records a, then the request is rejected before it is sent; the next request for "
        "a is a shadow hit that P1 never saw.",
        configured("D2"),
        (submit(item("a")), P0HandleRejected(0), *round_trip(1, item("a"))),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "rejected-after-update-undone",
        ("D2",),
        "P0 records a, then the request is rejected before it is sent, and P0 undoes its "
        "update (the other choice the spec allows): a is gone from the shadow, so the next "
        "request for a sends its data and nothing misses.",
        configured("D2"),
        (submit(item("a")), P0HandleRejectedUndo(0), *round_trip(1, item("a"))),
        every_variant(""),
    ),
    Scenario(
        "engine-cleared-alone",
        ("D3",),
        "P1's cache is cleared alone (sleep); P0 still sends a reference to a. The recovery "
        "path: miss, invalidation, retry with data, success (L1).",
        configured("D3"),
        (*round_trip(0, item("a")), P1Clear(), *round_trip(1, item("a"))),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "front-end-cleared-alone",
        ("D3",),
        "Only P0's shadow is cleared: removing keys from P0 is always safe; the next request "
        "sends a's data again.",
        configured("D3"),
        (*round_trip(0, item("a")), P0Clear(0), *round_trip(1, item("a"))),
        every_variant(""),
    ),
    Scenario(
        "clear-races-in-flight",
        ("D4",),
        "P0 clears and asks for P1's reset; a request handled before the reset arrives is "
        "cached by P1, then wiped, while P0 still records it.",
        configured("D4"),
        (
            P0ClearForReset(0),
            *round_trip(0, item("a")),
            P1Reset(),
            *round_trip(1, item("a")),
        ),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "two-front-ends-evict",
        ("D5",),
        "Two front ends share P1 (budget 1): front end 1's b evicts front end 0's a from P1, "
        "but not from front end 0's shadow.",
        configured("D5", front_ends=2, budget=1),
        (
            *round_trip(0, item("a")),
            *round_trip(1, item("b"), front_end=1),
            *round_trip(2, item("a")),
        ),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "two-front-ends-reuse-identity",
        ("D5", "D7"),
        "Front end 0 sends a (version 0), front end 1 sends a (version 1), front end 0 then "
        "references a. Cache-wins variants pair the old tensor with the new placeholders at "
        "once; V2 pairs the new tensor with front end 0's old placeholders (vllm#55546); V3's "
        "tag mismatch turns it into a miss and the retry resends.",
        configured("D5", "D7", front_ends=2, versions=2),
        (
            *round_trip(0, item("a", 0)),
            *round_trip(1, item("a", 1), front_end=1),
            *round_trip(2, item("a", 0)),
        ),
        per_variant(V0="S1 S4", V1="S1 S4", V2="S1 S4", V3="H1", V4="H1"),
    ),
    Scenario(
        "router-retry-to-the-other-engine",
        (ROUTER,),
        "One front end, two engines behind a router (D5's other half): a's payload goes to "
        "engine 0, the next request for a is routed to engine 1 and its reference misses there; "
        "P0 drops a, another request re-sends a's payload to engine 0 (P0 records a again), and "
        "the retry, routed to engine 1, references a and misses again, with no drift event "
        "since the first miss (L2, L3). The settled tail's second retry sends a's payload.",
        configured("D5", engines=2),
        (
            *round_trip(0, item("a")),
            *routed_round_trip(1, 1, item("a")),
            *round_trip(2, item("a")),
            Retry(1), P0Handle(1, 1), P1Receive(0, 1), P0ReceiveReply(),
        ),
        per_variant(V0=CRASH, V1="H1 L2 L3", V2="H1 L2 L3", V3="H1 L2 L3", V4="H1"),
    ),
    Scenario(
        "probed-hit-lost-before-update",
        ("D6",),
        "Request 1 probes a as a hit; while it is processed, request 2's b evicts a from the "
        "shadow (budget 1); request 1's update finds no a and has no data: the real front "
        "end's assertion. V3 processes a then and sends it.",
        configured("D6", budget=1),
        probed_hit_evicted(item("a")),
        per_variant(V0="S3 L4", V1="S3 L4", V2="S3 L4", V3="", V4=""),
    ),
    Scenario(
        "three-unfinished-split-updates",
        ("D6",),
        "With 3 unfinished requests (the matrix's instance allows 2): request 0 records a "
        "and has b still to update when request 1 references a and is sent first: P1 misses "
        "a and P0 drops it. Request 2 was processed before that miss (its drift event, "
        "P0Process, comes before the miss) and records a after it, unsent; the client's "
        "retry of request 1, handled in one step, finds a and sends it as a reference (L1), "
        "which P1 misses again (L2) with no drift event since the miss (L3). 13 steps; V0's "
        "engine crashes at the first miss.",
        configured("D6", max_in_flight=3),
        (
            submit(item("a"), item("b")), P0Process(0),
            submit(item("a")), P0Process(1),
            submit(item("a"), item("c")), P0Process(2),
            P0UpdateItem(0),  # request 0 records a (payload), b still to do
            P0UpdateItem(1),  # request 1 finds a: a reference, sent before a's payload
            P1Receive(0), P0ReceiveReply(),  # the miss: P0 drops a
            P0UpdateItem(2),  # request 2, processed before the miss, records a unsent
            Retry(1), P0Handle(1),  # the retry finds a: a reference again
        ),
        per_variant(V0=CRASH, V1="H1 L1 L2 L3", V2="H1 L1 L2 L3", V3="H1 L1 L2 L3", V4="H1"),
        judges_cell=False,
    ),
    Scenario(
        "uuid-only-hit-lost-before-update",
        ("D6",),
        "As above, but request 1 sent a UUID only: V3 has no media to reprocess, so the "
        "attempt ends as a clear client error before anything changes; V0-V2 assert.",
        configured("D6", budget=1),
        probed_hit_evicted(uuid_only("a")),
        per_variant(V0="S3 L4", V1="S3 L4", V2="S3 L4", V3="", V4=""),
    ),
    Scenario(
        "rejected-record-over-a-skewed-payload",
        ("D2", "D7", "D9", "D11"),
        "Found by Z3 (1-byte budget): P0 sends a's new content without recording it (2 bytes "
        "on P0's side, 1 on P1's), then records a's old content for a request that is rejected "
        "before it is sent; P1 caches the new content; a UUID-only reference to a carries the "
        "old placeholders. Every untagged variant pairs them with the new tensor (S1 breaks "
        "without a second front end); V3's tag mismatch makes it a miss.",
        configured(
            "D2", "D7", "D9", "D11", budget=1, versions=2,
            sizes=(ItemSize(Content("a", 1), 2, 1),),
        ),
        (
            submit(item("a", 1)),
            P0Handle(0),
            submit(item("a", 0)),
            P0HandleRejected(1),
            P1Receive(0),
            P0ReceiveReply(),
            submit(uuid_only("a", 0)),
            P0Handle(2),
            P1Receive(0),
        ),
        per_variant(V0="S1 S4", V1="S1 S4", V2="S1 S4", V3="H1", V4="H1"),
    ),
    Scenario(
        "identity-reuse-serves-old-content",
        ("D7",),
        "The client reuses identity a for new content; P0's shadow hits and P1 serves the old "
        "content, consistently paired (S1 holds) but not what the client sent: S4 is a "
        "documented limit under D7 in every variant.",
        configured("D7", versions=2),
        (*round_trip(0, item("a", 0)), *round_trip(1, item("a", 1))),
        every_variant("S4"),
    ),
    Scenario(
        "identity-reuse-after-front-end-restart",
        ("D7", "D10"),
        "P0 restarts and forgets a; the client sends a with new content; P0 sends the payload. "
        "Cache-wins variants (V0, V1) use P1's old tensor with the new placeholders; the "
        "payload wins in V2 and V3.",
        configured("D7", "D10", versions=2),
        (*round_trip(0, item("a", 0)), P0Restart(0), *round_trip(1, item("a", 1))),
        per_variant(V0="S1 S4", V1="S1 S4", V2="", V3="", V4=""),
    ),
    Scenario(
        "request-over-budget",
        ("D8",),
        "a is cached; the request [b, c, a] needs 3 bytes of a 2-byte budget. In request order "
        "c's insert evicts a before P0 reaches it, with no data for a: the P0 assertion fails "
        "that request (S3, and L4: an internal error is no clear client error), and leaves b "
        "and c recorded in the shadow, never sent. The system goes on: the next request's "
        "reference to b misses at P1 (H1; V0's engine crashes). V3 resolves references first "
        "on both sides: both sides hold b and c, and the reference is served.",
        configured("D8", max_items=3),
        (
            *round_trip(0, item("a")),
            submit(item("b"), item("c"), item("a")),
            P0Handle(1),
            submit(item("b")),
            P0Handle(2),
            P1Receive(0),
        ),
        per_variant(V0="S3 H1 L4", V1="S3 H1 L4", V2="S3 H1 L4", V3="", V4=""),
    ),
    Scenario(
        "size-skew",
        ("D9",),
        "P1 sizes b at 2 bytes, P0 at 1: caching b evicts a from P1 only; the next reference "
        "to a misses.",
        configured("D9", sizes=(ItemSize(Content("b"), 1, 2),)),
        (*round_trip(0, item("a")), *round_trip(1, item("b")), *round_trip(2, item("a"))),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "engine-restart",
        ("D10",),
        "The engine restarts and loses its cache; P0 still references a.",
        configured("D10"),
        (*round_trip(0, item("a")), P1Restart(), *round_trip(1, item("a"))),
        per_variant(V0=CRASH, V1="H1", V2="H1", V3="H1", V4="H1"),
    ),
    Scenario(
        "front-end-restart",
        ("D10",),
        "The front end restarts and loses its shadow: safe, it sends a's data again.",
        configured("D10"),
        (*round_trip(0, item("a")), P0Restart(0), *round_trip(1, item("a"))),
        every_variant(""),
    ),
    Scenario(
        "oversize-item",
        ("D11",),
        "c (3 bytes) is over the 2-byte budget: neither side caches it, the request is still "
        "served; a later UUID-only request for c is a clear client error at P0, not a crash.",
        configured("D11", sizes=(ItemSize(Content("c"), 3, 3),)),
        (*round_trip(0, item("c")), submit(uuid_only("c")), P0Handle(1)),
        every_variant(""),
    ),
    Scenario(
        "same-image-twice",
        (),
        "One request names a twice (the same image twice in one prompt; two equal images "
        "have equal content hashes): P0 probes both occurrences (both miss), processes both, "
        "records the first and sends its payload, then finds the second in the shadow and "
        "sends it as a reference; P1 caches the payload first, so the reference hits. The "
        "next request for a twice sends two references. Nothing breaks in any variant.",
        configured(duplicates=True),
        (*round_trip(0, item("a"), item("a")), *round_trip(1, item("a"), item("a"))),
        every_variant(""),
    ),
    Scenario(
        "same-image-twice-served-from-its-payload",
        ("D9",),
        "Under size skew P1 cannot cache a (3 bytes at P1, 1 at P0, a 2-byte budget): one "
        "request names a twice, P0 records the first occurrence and sends the second as a "
        "reference to that record. A tagged receiver may serve that reference from the "
        "request's own payload (the other choice the spec allows, equal tags naming the same "
        "record), so nothing misses in V3 and V4. An untagged one cannot tell: it misses, "
        "and every retry is sent the same way and misses again (V0's engine crashes).",
        configured("D9", duplicates=True, sizes=(ItemSize(Content("a"), 1, 3),)),
        (submit(item("a"), item("a")), P0Handle(0), P1ReceiveOwnPayload(0), P0ReceiveReply()),
        per_variant(V0=CRASH, V1="H1 L2 L3 L4", V2="H1 L2 L3 L4", V3="", V4=""),
    ),
    Scenario(
        "reused-identity-twice-in-one-request",
        ("D7",),
        "Under identity reuse one request names a with two contents: the first occurrence "
        "is recorded and sent as a payload, the second finds that entry in the shadow and is "
        "sent as a reference to it, so P1 serves the first content for both. The pairing is "
        "consistent (S1), the content is not the one sent (S4, the documented limit of D7).",
        configured("D7", versions=2, duplicates=True),
        round_trip(0, item("a", 0), item("a", 1)),
        every_variant("S4"),
    ),
)


@dataclass(frozen=True)
class LruSuite:
    """The LRU design's scenario suite as the one runner (`scenarios.run.ScenarioSuite`)
    reads it: `SCENARIOS`, replayed on every variant of `spec.VARIANTS`, judged by every
    property of the registry."""

    scenarios: tuple[Scenario, ...] = SCENARIOS

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(v.name for v in VARIANTS)

    @property
    def properties(self) -> tuple[str, ...]:
        return tuple(p.id for p in registry())

    def run(self, scenario: Scenario, variant: str) -> tuple[frozenset[str], int]:
        trace = scenario.run(variant_named(variant))
        return violated(trace), len(trace.steps)


LRU_SUITE = LruSuite()


def suite_for(design: str) -> LruSuite | None:
    """The one table of the designs' hand-written scenario suites: the LRU design's; None
    for a design that declares none."""
    return LRU_SUITE if design == LRU.name else None
