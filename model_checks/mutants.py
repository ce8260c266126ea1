"""Known-bad variants (mutants), each with a witness scenario that must expose it.

A mutant is a `Variant` with one knob changed, so the spec's transitions run it unchanged. A
check that no mutant can fail is a defect: `tests/test_spec_mutants.py` asserts that every
witness breaks the listed properties on the mutant, and that the unmutated base variant does
not break them on the same script.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model_checks.scenarios.base import Scenario, every_variant, item, submit
from model_checks.scenarios.catalog import SCENARIOS, configured, round_trip
from spec import V2, V3, V4, Content, ItemSize, LruFlaw, MissHandling, Variant
from spec.transitions import (
    P0Clear,
    P0Handle,
    P0HandleRejected,
    P0ReceiveReply,
    P1Clear,
    P1Receive,
    Retry,
)


@dataclass(frozen=True)
class Mutant:
    """name: stable id; variant: the mutated variant; base: the variant it mutates;
    witness: a scenario exposing it; breaks: properties the witness must violate on the
    mutant and not on the base."""

    name: str
    variant: Variant
    base: Variant
    witness: Scenario
    breaks: frozenset[str]


def _scenario(name: str) -> Scenario:
    return next(s for s in SCENARIOS if s.name == name)


def _mutant(
    name: str, breaks: str, witness: Scenario, base: Variant = V2, **knobs: object
) -> Mutant:
    variant = replace(base, name=f"{base.name}-{name}", **knobs)  # type: ignore[arg-type]
    return Mutant(name, variant, base, witness, frozenset(breaks.split()))


_STALE_ON_RESEND = Scenario(
    "oversized-resend-keeps-stale",
    ("D3", "D7", "D9", "D11"),
    "P1 holds a (version 0); P0 forgets a and sends a's new content, which P1 sizes over the "
    "budget. Dropping first leaves P1 without a; the mutant keeps the old tensor, and P0's "
    "next reference pairs it with the new placeholders.",
    configured("D3", "D7", "D9", "D11", versions=2, sizes=(ItemSize(Content("a", 1), 1, 3),)),
    (
        *round_trip(0, item("a", 0)),
        P0Clear(0),
        *round_trip(1, item("a", 1)),
        *round_trip(2, item("a", 1)),
    ),
    every_variant(""),
)

_GHOST = Scenario(
    "ghost-key-hang",
    ("D3",),
    "A reference that misses leaves a ghost of a in P1's order; a later insert that must "
    "evict reaches the ghost and makes no progress.",
    configured("D3", budget=1),
    (
        *round_trip(0, item("a")),
        P1Clear(),
        *round_trip(1, item("a")),
        *round_trip(2, item("b")),
        *round_trip(3, item("c")),
    ),
    every_variant(""),
)

_NO_DRIFT_EVICTIONS = Scenario(
    "evictions-without-drift",
    (),
    "Three items through a 2-byte budget with nothing drifting, then a reference to b.",
    configured(),
    (
        *round_trip(0, item("a")),
        *round_trip(1, item("b")),
        *round_trip(2, item("c")),
        *round_trip(3, item("b")),
    ),
    every_variant(""),
)

_TWO_MISSES = Scenario(
    "two-identities-miss",
    ("D3",),
    "P1 is cleared while P0 records a and b; the next request references both.",
    configured("D3"),
    (*round_trip(0, item("a"), item("b")), P1Clear(), submit(item("a"), item("b"))),
    every_variant(""),
)

_REJECTED_RE_RECORDS = Scenario(
    "rejection-re-records-a-missed-identity",
    ("D2",),
    "A rejected request leaves a in P0's shadow only; the next reference to a misses and P0 "
    "drops it; another rejected request records a again before the client's resend, which "
    "then finds a in the shadow: unless it bypasses the shadow, it references a and misses "
    "again.",
    configured("D2"),
    (
        submit(item("a")), submit(item("a")), P0HandleRejected(0), submit(item("a")),
        P0Handle(1), P1Receive(0), P0ReceiveReply(), P0HandleRejected(2),
        Retry(1), P0Handle(1), P1Receive(0), P0ReceiveReply(),
    ),
    every_variant(""),
)

MUTANTS: tuple[Mutant, ...] = (
    _mutant("engine-asserts", "S3 L4", _scenario("engine-cleared-alone"),
            miss_handling=MissHandling.CRASH),
    _mutant("keeps-stale-on-resend", "S1", _STALE_ON_RESEND, drop_before_replace=False),
    _mutant("never-invalidates", "L1 L2 L3 L4", _scenario("engine-cleared-alone"),
            invalidates=False),
    _mutant("ghost-touch", "S3", _GHOST, receiver_lru=LruFlaw.GHOST_TOUCH),
    _mutant("evicts-most-recent", "H1", _NO_DRIFT_EVICTIONS,
            receiver_lru=LruFlaw.EVICT_MOST_RECENT),
    _mutant("ignores-new-size", "S2", _NO_DRIFT_EVICTIONS, receiver_lru=LruFlaw.IGNORE_NEW_SIZE),
    _mutant("reports-first-miss", "L3", _TWO_MISSES, miss_handling=MissHandling.REPORT_FIRST),
    _mutant("untagged", "S1 S4", _scenario("two-front-ends-reuse-identity"), base=V3,
            tagged=False),
    _mutant("no-late-miss-reprocess", "S3 L4", _scenario("probed-hit-lost-before-update"),
            base=V3, late_miss_reprocess=False),
    _mutant("resends-use-shadow", "L1 L2", _REJECTED_RE_RECORDS, base=V4,
            resends_bypass_shadow=False),
)
