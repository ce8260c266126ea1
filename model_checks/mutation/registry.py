"""The one registry of mutants: every known-bad variant the checkers must catch, as data.

An entry says what it mutates (`target`: the spec, or the reference implementation), which
set it belongs to (`set`: one knob of a spec variant; a bug of the system's history; a
single-change slip), the variant it mutates (`base`), and where its definition lives
(`definition`, `module:attr`, loaded only when the mutant is built: listing the names imports
neither torch nor a checker). What must catch it follows from the target: a spec mutant's
witness must break every property of `breaks` on the mutant and not on the base (the
scenario, Hypothesis and, for the safety properties, Z3 checkers), and a reference mutant
must be told from the reference by the conformance run (any disagreement counts).

The definitions: `model_checks.mutation.spec_mutants` (the knobs changed and the witness
scenarios; built by `spec_mutants.spec_mutants`), and, for the reference, the classes of
`model_checks.mutant_run.history_mutants` and `model_checks.mutant_run.slip_mutants`, each
wired into the reference in the place `part` names (built by
`model_checks.mutant_run.reference_mutants`). The sets only tests run live under tests/.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Target(Enum):
    """What a mutant mutates."""

    SPEC = "spec"
    REFERENCE = "reference"


class MutantSet(Enum):
    """The set a mutant belongs to: `knob` (a spec variant with one knob changed), `history`
    (a bug of the system's history, reproduced in the reference), `slip` (a single-change
    slip an implementer makes, an independent set measuring what conformance alone
    catches)."""

    KNOB = "knob"
    HISTORY = "history"
    SLIP = "slip"


class Part(Enum):
    """The part of the reference a reference mutant's class replaces."""

    SENDER = "sender"  # P0's sender cache, in the front end
    RECEIVER = "receiver"  # P1's receiver cache, in the engine
    SENDER_LRU = "sender-lru"  # the LRU of P0's sender cache
    RECEIVER_LRU = "receiver-lru"  # the LRU of P1's receiver cache
    FRONT_END = "front-end"
    ENGINE = "engine"
    ADAPTER = "adapter"  # the reference adapter itself


@dataclass(frozen=True)
class Entry:
    """One mutant. name: stable id (unique within its target); definition: `module:attr` of
    what it changes; breaks: the properties its witness must break (spec mutants); story:
    the bug it mirrors (reference mutants); part: where its class goes (reference mutants);
    equivalent: why no observation can tell it from the reference, when none can."""

    name: str
    target: Target
    set: MutantSet
    base: str
    definition: str
    breaks: frozenset[str] = frozenset()
    story: str = ""
    part: Part | None = None
    equivalent: str = ""

    @property
    def module(self) -> str:
        """The module its definition lives in."""
        return self.definition.partition(":")[0]

    @property
    def attr(self) -> str:
        """The definition's name in that module."""
        return self.definition.partition(":")[2]


SPEC_DEFINITIONS = "model_checks.mutation.spec_mutants"
HISTORY_DEFINITIONS = "model_checks.mutant_run.history_mutants"
SLIP_DEFINITIONS = "model_checks.mutant_run.slip_mutants"


def _spec(name: str, base: str, breaks: str, change: str) -> Entry:
    return Entry(name, Target.SPEC, MutantSet.KNOB, base, f"{SPEC_DEFINITIONS}:{change}",
                 breaks=frozenset(breaks.split()))


def _history(name: str, base: str, story: str, part: Part, cls: str) -> Entry:
    return Entry(name, Target.REFERENCE, MutantSet.HISTORY, base,
                 f"{HISTORY_DEFINITIONS}:{cls}", story=story, part=part)


def _slip(name: str, base: str, story: str, part: Part, cls: str, *,
          equivalent: str = "") -> Entry:
    return Entry(name, Target.REFERENCE, MutantSet.SLIP, base, f"{SLIP_DEFINITIONS}:{cls}",
                 story=story, part=part, equivalent=equivalent)


MUTANTS: tuple[Entry, ...] = (
    # -- the spec: one knob of a variant each ------------------------------------------------
    _spec("engine-asserts", "V2", "S3 L4", "ENGINE_ASSERTS"),
    _spec("keeps-stale-on-resend", "V2", "S1", "KEEPS_STALE_ON_RESEND"),
    _spec("never-invalidates", "V2", "L1 L2 L3 L4", "NEVER_INVALIDATES"),
    _spec("ghost-touch", "V2", "S3", "GHOST_TOUCH"),
    _spec("evicts-most-recent", "V2", "H1", "EVICTS_MOST_RECENT"),
    _spec("ignores-new-size", "V2", "S2", "IGNORES_NEW_SIZE"),
    _spec("reports-first-miss", "V2", "L3", "REPORTS_FIRST_MISS"),
    _spec("untagged", "V3", "S1 S4", "UNTAGGED"),
    _spec("no-late-miss-reprocess", "V3", "S3 L4", "NO_LATE_MISS_REPROCESS"),
    _spec("resends-use-shadow", "V4", "L1 L2", "RESENDS_USE_SHADOW"),
    _spec("references-before-own-payload", "V3", "H1 L2 L3 L4", "REFERENCES_BEFORE_OWN_PAYLOAD"),
    # -- the reference: the bugs of the system's history -------------------------------------
    _history("engine-asserts", "V3", "an assertion instead of the miss error (vllm#31404)",
             Part.RECEIVER, "AssertingReceiver"),
    _history("never-invalidates", "V3", "no invalidation on a miss reply",
             Part.FRONT_END, "NeverInvalidatingFrontEnd"),
    _history("keeps-stale-on-resend", "V2",
             "a resent payload too large to cache leaves the stale entry (before vllm#57833)",
             Part.RECEIVER, "StaleKeepingReceiver"),
    _history("ghost-touch", "V3", "touch of an absent key recorded in P1's order (vllm#43941)",
             Part.RECEIVER_LRU, "GhostTouchLru"),
    _history("evicts-most-recent", "V3", "P1 evicts from the wrong end",
             Part.RECEIVER_LRU, "MostRecentEvictingLru"),
    _history("receiver-sizes-differently", "V3",
             "P1 sizes an item one byte larger than P0 (framing counted)",
             Part.RECEIVER, "SkewedSizeReceiver"),
    _history("reports-first-miss", "V3", "the miss error lists only the first missed identity",
             Part.RECEIVER, "FirstMissReceiver"),
    _history("no-touch-before-update", "V2",
             "P0 does not touch the request's items before updating them",
             Part.SENDER, "NoTouchSender"),
    # -- the reference: single-change slips --------------------------------------------------
    _slip("p1-get-without-refresh", "V2", "P1's LRU get does not make the entry most recent",
          Part.RECEIVER_LRU, "GetWithoutRefresh"),
    _slip("p1-touch-does-nothing", "V2", "P1's LRU touch does not move the key",
          Part.RECEIVER_LRU, "TouchDoesNothing"),
    _slip("p1-evicts-on-exact-fit", "V3", "P1 evicts while bytes + size >= budget (off by one)",
          Part.RECEIVER_LRU, "EvictsUntilStrictlyBelow"),
    _slip("p1-clear-keeps-bytes", "V3", "P1's clear leaves the byte total",
          Part.RECEIVER_LRU, "ClearKeepsBytes"),
    _slip("p1-replacement-keeps-bytes", "V2", "P1's replacement leaves the old entry's bytes",
          Part.RECEIVER_LRU, "ReplacementKeepsOldBytes"),
    _slip("p0-get-without-refresh", "V2", "P0's LRU get does not make the entry most recent",
          Part.SENDER_LRU, "GetWithoutRefresh"),
    _slip("p0-oversize-keeps-old", "V3",
          "P0 refuses an oversized item before dropping the old entry",
          Part.SENDER_LRU, "OversizeKeepsOld", equivalent=(
              "the sender inserts an identity only after its lookup missed (`_update_one`), so "
              "no old entry exists when an oversized item is refused: dropping it first or not "
              "leaves the same shadow")),
    _slip("p0-invalidation-keeps-bytes", "V3", "P0's invalidation leaves the entry's bytes",
          Part.SENDER_LRU, "PopKeepsBytes"),
    _slip("p0-sizes-by-elements", "V3", "P0 records an item's element count as its size",
          Part.SENDER, "SizesByElementCount"),
    _slip("p0-sizes-by-placeholders", "V3", "P0 records the placeholder length as the size",
          Part.SENDER, "SizesByPlaceholders"),
    _slip("p0-sizes-by-first-tensor", "V3", "P0 records the first tensor's bytes as the size",
          Part.SENDER, "SizesByFirstTensor"),
    _slip("p0-probe-refreshes", "V3", "P0's probe reorders the shadow (get instead of in)",
          Part.SENDER, "ProbeRefreshes"),
    _slip("p0-invalidates-first-only", "V3", "P0 drops only the first missed identity",
          Part.SENDER, "InvalidatesFirstOnly"),
    _slip("p0-tag-per-identity", "V3", "the tag names the identity, not the processing",
          Part.SENDER, "TagPerIdentity"),
    _slip("p0-late-miss-asserts", "V3", "V3's late-miss reprocessing forgotten",
          Part.SENDER, "LateMissAsserts"),
    _slip("p0-resend-reads-shadow", "V4",
          "a V4 resend still sends references for what P0's shadow holds",
          Part.SENDER, "ResendReadsShadow"),
    _slip("p1-ignores-tags", "V3", "P1 serves a reference whatever its tag",
          Part.RECEIVER, "IgnoresTags"),
    _slip("p1-cache-always-wins", "V2", "P1 ignores a payload for a cached identity",
          Part.RECEIVER, "CacheAlwaysWins"),
    _slip("p1-replacing-payload-not-cached", "V2",
          "P1 uses a replacing payload without caching it", Part.RECEIVER, "PayloadUsedNotCached"),
    _slip("p1-misses-reversed", "V3", "the miss error lists the identities last first",
          Part.RECEIVER, "ReportsMissesReversed"),
    _slip("p1-request-order", "V3", "P1 resolves in request order (references first forgotten)",
          Part.RECEIVER, "InRequestOrderReceiver"),
    _slip("p1-references-before-own-payload", "V3",
          "P1 resolves a reference before the request's own payload for its identity",
          Part.RECEIVER, "ReferencesBeforeOwnPayload"),
    _slip("engine-clear-does-nothing", "V3", "the engine's clear does not clear its cache",
          Part.ENGINE, "EngineClearDoesNothing"),
    _slip("invalidates-whole-request", "V3", "a miss reply invalidates every identity sent",
          Part.FRONT_END, "InvalidatesWholeRequest"),
    _slip("abandon-invalidates", "V3",
          "a request rejected after its update is dropped from the shadow, its references too "
          "(dropping only what it recorded is an allowed choice)",
          Part.FRONT_END, "AbandonInvalidates"),
    _slip("clear-forgets-in-flight", "V3", "P0's clear forgets the requests in flight",
          Part.FRONT_END, "ClearForgetsOutstanding"),
    _slip("retry-without-media", "V3", "the client's retry helper resends without the media",
          Part.ADAPTER, "RetryWithoutMediaAdapter"),
)
"""Every mutant, once: the spec's, then the reference's history bugs, then its slips (each
set in the order its tables and pages list it)."""


def entries(target: Target, sets: Iterable[MutantSet] = tuple(MutantSet)) -> tuple[Entry, ...]:
    """The entries of `target` in the sets `sets` (default: every set), in registry order."""
    wanted = frozenset(sets)
    return tuple(e for e in MUTANTS if e.target is target and e.set in wanted)


def entry_named(name: str, target: Target) -> Entry:
    """The entry of `target` called `name`; a `KeyError` lists that target's names."""
    for entry in entries(target):
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in entries(target))
    raise KeyError(f"unknown {target.value} mutant {name!r}, expected one of {known}")


COMMAND_SETS = (MutantSet.KNOB, MutantSet.HISTORY)
"""The sets `python -m model_checks mutants` runs through every checker that must catch them
(the slips are measured by the kill matrix alone)."""


def command_names() -> tuple[str, ...]:
    """The names `mutants --mutant NAME` accepts, each once: the spec mutants', then the
    reference mutants' of the command's sets that no spec mutant shares."""
    names: list[str] = []
    for entry in MUTANTS:
        if entry.set in COMMAND_SETS and entry.name not in names:
            names.append(entry.name)
    return tuple(names)
