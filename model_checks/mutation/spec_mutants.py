"""The spec mutants' definitions: per mutant, the knobs of its base variant it changes and the
witness scenario that must expose it. The registry (`model_checks.mutation.registry`) names
each mutant, its base and the properties it must break; `spec_mutants()` builds them.

A mutant is a `Variant` with one knob changed, so the spec's transitions run it unchanged. A
check that no mutant can fail is a defect: `tests/test_scenarios.py` asserts that every
witness breaks the listed properties on the mutant, and that the unmutated base variant does
not break them on the same script.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, replace

from model_checks.mutation.registry import Entry, Target, entries
from model_checks.scenarios.base import Scenario, every_variant, item, submit
from model_checks.scenarios.catalog import SCENARIOS, configured, round_trip
from spec import Config, Content, ItemSize, LruFlaw, MissHandling, Variant, variant_named
from spec.transitions import (
    P0Clear,
    P0Handle,
    P0HandleRejected,
    P0ReceiveReply,
    P1Clear,
    P1Receive,
    Retry,
    Submit,
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

    def witness_config(self) -> Config:
        """The witness's configuration, cut down to what its script uses: its identities,
        its number of requests, its largest request, and its most requests unfinished at
        once (the instance an exhaustive search of the mutant completes)."""
        config = self.witness.config(self.variant)
        submits = [a for a in self.witness.script if isinstance(a, Submit)]
        used = {i.identity for s in submits for i in s.items}
        unfinished = max(s.unfinished() for s in self.witness.run(self.base).states())
        return replace(
            config,
            identities=tuple(i for i in config.identities if i in used),
            max_requests=len(submits),
            max_items=max(len(s.items) for s in submits),
            max_in_flight=max(unfinished, 1),
        )


@dataclass(frozen=True)
class Change:
    """What a spec mutant changes: `knobs` of its base variant (field -> value), and the
    `witness` scenario exposing the change."""

    witness: Scenario
    knobs: Mapping[str, object]


def _scenario(name: str) -> Scenario:
    return next(s for s in SCENARIOS if s.name == name)


def _change(witness: Scenario, **knobs: object) -> Change:
    return Change(witness, knobs)


def mutant(entry: Entry) -> Mutant:
    """The spec mutant of a registry entry: its base variant with the knobs of its `Change`."""
    change = getattr(importlib.import_module(entry.module), entry.attr)
    if not isinstance(change, Change):
        raise TypeError(f"{entry.definition} is a {type(change).__name__}, not a Change")
    base = variant_named(entry.base)
    variant = replace(base, name=f"{base.name}-{entry.name}", **change.knobs)  # type: ignore[arg-type]
    return Mutant(entry.name, variant, base, change.witness, entry.breaks)


@functools.cache
def spec_mutants() -> tuple[Mutant, ...]:
    """Every spec mutant of the registry, in its order (built once per process)."""
    return tuple(mutant(e) for e in entries(Target.SPEC))


def spec_mutant(name: str) -> Mutant:
    """The spec mutant called `name`; a `KeyError` lists the names there are."""
    for found in spec_mutants():
        if found.name == name:
            return found
    known = ", ".join(m.name for m in spec_mutants())
    raise KeyError(f"unknown spec mutant {name!r}, expected one of {known}")


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

ENGINE_ASSERTS = _change(_scenario("engine-cleared-alone"), miss_handling=MissHandling.CRASH)
KEEPS_STALE_ON_RESEND = _change(_STALE_ON_RESEND, drop_before_replace=False)
NEVER_INVALIDATES = _change(_scenario("engine-cleared-alone"), invalidates=False)
GHOST_TOUCH = _change(_GHOST, receiver_lru=LruFlaw.GHOST_TOUCH)
EVICTS_MOST_RECENT = _change(_NO_DRIFT_EVICTIONS, receiver_lru=LruFlaw.EVICT_MOST_RECENT)
IGNORES_NEW_SIZE = _change(_NO_DRIFT_EVICTIONS, receiver_lru=LruFlaw.IGNORE_NEW_SIZE)
REPORTS_FIRST_MISS = _change(_TWO_MISSES, miss_handling=MissHandling.REPORT_FIRST)
UNTAGGED = _change(_scenario("two-front-ends-reuse-identity"), tagged=False)
NO_LATE_MISS_REPROCESS = _change(_scenario("probed-hit-lost-before-update"),
                                 late_miss_reprocess=False)
RESENDS_USE_SHADOW = _change(_REJECTED_RE_RECORDS, resends_bypass_shadow=False)
REFERENCES_BEFORE_OWN_PAYLOAD = _change(_scenario("same-image-twice"),
                                        references_after_own_payload=False)
