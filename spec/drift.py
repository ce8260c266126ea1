"""Drift sources D1-D11: the ways the environment makes P0's shadow and P1's cache disagree.

An environment is a frozenset of `Drift` members. A transition that represents a drift source is
enabled only when its member is in the configuration's environment; everything else is the
protocol itself and is always available. A source of the configuration kind also declares,
once, what an instance must contain for it to exist at all (`Drift.needs`); every instance
builder of the checkers reads that declaration.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from spec.values import init_values


class Drift(enum.Enum):
    """One drift source (docs/drift.md). The value is its id; `effect` says what it does."""

    D1 = "D1"
    D2 = "D2"
    D3 = "D3"
    D4 = "D4"
    D5 = "D5"
    D6 = "D6"
    D7 = "D7"
    D8 = "D8"
    D9 = "D9"
    D10 = "D10"
    D11 = "D11"

    def __repr__(self) -> str:
        return f"Drift.{self.name}"

    __hash__ = object.__hash__  # members are singletons: see `spec.state.Stage`

    @property
    def title(self) -> str:
        return _TITLES[self]

    @property
    def effect(self) -> str:
        return _EFFECTS[self]

    @property
    def needs(self) -> Needs:
        """What an instance must contain for this source to exist at all (`Needs`)."""
        return _NEEDS.get(self, _NOTHING)


_TITLES: dict[Drift, str] = {
    Drift.D1: "reordered delivery",
    Drift.D2: "rejected after P0 updated",
    Drift.D3: "one-sided clear",
    Drift.D4: "clear racing in-flight requests",
    Drift.D5: "several front ends share one engine",  # the router half: matrix.ROUTER
    Drift.D6: "interleaved P0 updates",
    Drift.D7: "identity reused for new content",
    Drift.D8: "request larger than the budget",
    Drift.D9: "size skew between the sides",
    Drift.D10: "process restart",
    Drift.D11: "items larger than the budget",
}

_EFFECTS: dict[Drift, str] = {
    Drift.D1: "P1 takes any in-flight message, not only the oldest: P1 applies updates in "
    "another order than P0 did, so evictions differ",
    Drift.D2: "a request P0 has updated its shadow for is rejected before it is sent: "
    "P0 holds keys P1 never saw",
    Drift.D3: "one side's cache is cleared alone (P1 sleep/reset, or P0 only): P1 empty, P0 full",
    Drift.D4: "P0 is cleared and the reset of P1 is applied later, after requests sent in "
    "between were cached by P1: P0 holds keys P1 lost",
    Drift.D5: "two front ends, each with its own shadow, feed one P1; or one front end routes "
    "each message to one of two engines, each with its own receiver: shadows cannot mirror",
    Drift.D6: "a request's probe, and its per-item updates, interleave with other requests' "
    "updates: a probed hit can be gone at update time (whole LRU operations interleave; the "
    "corrupted order of a torn update is an LRU flaw, the ghost-touch mutant)",
    Drift.D7: "a client reuses an identity (UUID) for different content: one identity names "
    "different tensors and placeholders over time",
    Drift.D8: "a request's items together exceed the budget: its own inserts evict its "
    "earlier hits",
    Drift.D9: "P0 and P1 size the same item differently: one side evicts, or skips an item "
    "over the budget on its side only, where the other does not",
    Drift.D10: "P1 restarts (cache lost: unsafe) or P0 restarts (shadow lost: safe)",
    Drift.D11: "an item larger than the whole budget is cached by neither side; a later "
    "reference to it misses",
}

ALL_DRIFT: frozenset[Drift] = frozenset(Drift)

DRIFT_IDS: tuple[str, ...] = tuple(d.value for d in sorted(Drift, key=lambda d: int(d.value[1:])))
"""Every drift id in numeric order (D1, D2, ..., D11): the order of ids in every environment
name, and the one list command lines, tables and instance builders read."""


def drift_order(ids: Iterable[str]) -> tuple[str, ...]:
    """Drift ids, deduplicated, in numeric order (`DRIFT_IDS`'s order)."""
    return tuple(sorted(set(ids), key=lambda d: int(d[1:])))


@dataclass(frozen=True, slots=True)
class Needs:
    """What a model instance must contain for a drift source to exist at all, declared once
    per source (`Drift.needs`) and read by every instance builder (the checkers' matrix,
    the explorer's restriction, the lattice family, conformance, Z3's encoding, the docs).

    A source of the event kind needs nothing (its transitions are enabled by the environment
    alone: `Needs()`); a source of the configuration kind needs something that exists only
    with it. The builders pick the concrete values (which identity is skewed, by how many
    bytes); the declaration says what kind of thing each source needs.
    """

    front_ends: int = 1
    """Front ends sharing the engine (D5; its router half has two engines instead)."""
    versions: int = 1
    """Contents per identity (D7: a second content for a reused identity)."""
    items: int = 1
    """Items per request at least (D6: updates interleave item by item; D8: a request over
    the budget)."""
    extra_identity: bool = False
    """One identity more than the base instance's, so that a request's items can together
    exceed the budget (D8)."""
    skewed_sizes: bool = False
    """An item the two sides size differently (D9)."""
    oversized: bool = False
    """An item over the budget on both sides (D11)."""
    configured: str = ""
    """The `Config` fields that make the source exist, in words (empty: an event source)."""

    def __reduce__(self) -> tuple[type[Needs], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __or__(self, other: Needs) -> Needs:
        """What an instance with both sources needs: the larger count, either flag."""
        return Needs(
            front_ends=max(self.front_ends, other.front_ends),
            versions=max(self.versions, other.versions),
            items=max(self.items, other.items),
            extra_identity=self.extra_identity or other.extra_identity,
            skewed_sizes=self.skewed_sizes or other.skewed_sizes,
            oversized=self.oversized or other.oversized,
            configured="; ".join(t for t in (self.configured, other.configured) if t),
        )


_NOTHING = Needs()

_NEEDS: dict[Drift, Needs] = {
    Drift.D5: Needs(front_ends=2, configured="`front_ends=2`, or `engines=2` (one front end, "
                    "two engines behind a router: environment `D5-router`)"),
    Drift.D6: Needs(items=2),
    Drift.D7: Needs(versions=2, configured="`versions` > 1"),
    Drift.D8: Needs(items=3, extra_identity=True),
    Drift.D9: Needs(skewed_sizes=True,
                    configured="`sizes` with `shadow_bytes` != `receiver_bytes`"),
    Drift.D11: Needs(oversized=True, configured="`sizes` over the `budget`"),
}
"""Per drift source, what it needs (`Needs`); a source not listed is of the event kind."""


def needs_of(env: Iterable[Drift]) -> Needs:
    """What an instance with every source of `env` needs (`Needs.__or__` over them)."""
    needs = _NOTHING
    for drift in env:
        needs = needs | drift.needs
    return needs


def environment(*ids: str) -> frozenset[Drift]:
    """The drift members of ids such as "D1", "D7" (`Environment.parse`'s errors)."""
    return Environment.of(ids).within(DRIFT_IDS).drift


ROUTER = "D5-router"
"""D5's second configuration: one front end, two engines behind a router (a source token
where a command has that configuration; its drift member is D5)."""

OLDER_ROUTER = ("d5_router", "router")
"""Older spellings of `ROUTER` (any case), refused with the one spelling named."""


class BadEnvironment(ValueError):
    """A malformed environment; the message is one line naming the bad token and the
    allowed ones."""


def source_order(source_id: str) -> tuple[str, int, str]:
    """Catalogue order of a source id: the letter prefix, then the number (D2 before D10),
    then a configuration suffix (`D5-router` right after D5)."""
    base, _, suffix = source_id.partition("-")
    head = base.rstrip("0123456789")
    tail = base[len(head):]
    return head, int(tail) if tail else 0, suffix


@dataclass(frozen=True, slots=True)
class Environment:
    """A set of drift source ids (D1-D11, `ROUTER`, or a design's own such as C1, R1), held
    in catalogue order (`source_order`) without repeats. `text` is its one spelling (ids
    joined by "+", or "none"); `parse` reads that spelling back, in any case and order,
    against the sources a command or design allows; `of_config` reads a configuration's;
    `drift` gives the spec's members. Build it with `of` or `parse`, which order it."""

    sources: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[type[Environment], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    @classmethod
    def of(cls, ids: Iterable[str | Drift]) -> Environment:
        """The environment of these ids (or `Drift` members), ordered, repeats dropped."""
        names = {i.value if isinstance(i, Drift) else i for i in ids}
        return cls(tuple(sorted(names, key=source_order)))

    @classmethod
    def of_config(cls, config: _Configured) -> Environment:
        """A configuration's environment: its drift members, D5 named `ROUTER` where the
        engines are two (one front end routing to two engines)."""
        return cls.of(ROUTER if d is Drift.D5 and config.engines > 1 else d.value
                      for d in config.environment)

    @classmethod
    def parse(cls, text: str, allowed: Iterable[str] = DRIFT_IDS) -> Environment:
        """`"D7+d2"` -> D2+D7; `"none"` -> the empty environment. Every id must be one of
        `allowed` (any case); otherwise `BadEnvironment`, one line naming the bad token and
        the allowed ids, or the one spelling where `text` is an older one (`D2_D7`,
        `D5_router`, `ROUTER`). `ROUTER` stands alone."""
        cleaned = text.strip()
        if cleaned.lower() == "none":
            return cls()
        known = {a.upper(): a for a in allowed}
        ids = []
        for part in cleaned.split("+"):
            token = known.get(part.strip().upper())
            if token is None:
                older = _older(cleaned, known)
                if older is not None:
                    raise BadEnvironment(f"--environment: got {cleaned!r}, an older "
                                         f"spelling: write {older}")
                raise BadEnvironment(
                    f"--environment: got {part.strip()!r}, expected ids among "
                    f"{listed(known.values())} joined by '+', "
                    "or none")
            ids.append(token)
        if ROUTER in ids and len(set(ids)) > 1:
            raise BadEnvironment(f"--environment: got {cleaned!r}, expected {ROUTER} alone "
                                 "(D5's router configuration is an environment of its own)")
        return cls.of(ids)

    def within(self, allowed: Iterable[str]) -> Environment:
        """This environment where every id is one of `allowed`, else `BadEnvironment`
        naming the first one that is not (a design's sources, a command's)."""
        known = frozenset(allowed)
        for source in self.sources:
            if source not in known:
                raise BadEnvironment(
                    f"--environment: got {source!r}, expected ids among "
                    f"{listed(known)} joined by '+', or none")
        return self

    @property
    def text(self) -> str:
        """The one spelling: ids joined by "+", or "none"."""
        return "+".join(self.sources) or "none"

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self.sources)

    @property
    def drift(self) -> frozenset[Drift]:
        """The spec's drift members (`ROUTER` is D5); a design's own ids are not drift."""
        return frozenset(Drift.D5 if s == ROUTER else Drift(s) for s in self.sources)

    def __str__(self) -> str:
        return self.text

    def __iter__(self) -> Iterator[str]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def __contains__(self, source: object) -> bool:
        return source in self.sources


class _Configured(Protocol):
    """What `Environment.of_config` reads of a configuration."""

    @property
    def environment(self) -> frozenset[Drift]: ...

    @property
    def engines(self) -> int: ...


def listed(sources: Iterable[str]) -> str:
    """Source ids for a message, in catalogue order, a run of three or more numbers of one
    prefix written as a range (`D1-D11, D5-router`; `C1, D1-D3, D7, D8, R1`)."""
    sources = tuple(sources)
    plain = sorted((s for s in sources if "-" not in s), key=source_order)
    words: list[str] = []
    run: list[str] = []
    for source in [*plain, ""]:
        head, number, _ = source_order(source) if source else ("", -1, "")
        if run and (head != source_order(run[-1])[0] or number != source_order(run[-1])[1] + 1):
            words += [f"{run[0]}-{run[-1]}"] if len(run) > 2 else run
            run = []
        if source:
            run.append(source)
    return ", ".join([*words, *sorted((s for s in sources if "-" in s), key=source_order)])


def _older(text: str, known: dict[str, str]) -> str | None:
    """The one spelling of `text` where it is an older spelling: ids joined by "_" (`D2_D7`),
    or `OLDER_ROUTER` for `ROUTER` where the router is allowed."""
    if ROUTER.upper() in known and text.lower() in OLDER_ROUTER:
        return ROUTER
    if "_" not in text:
        return None
    parts = [known.get(p.strip().upper()) for p in text.replace("_", "+").split("+")]
    return None if None in parts else Environment.of(p for p in parts if p).text
