"""Drift sources D1-D11: the ways the environment makes P0's shadow and P1's cache disagree.

An environment is a frozenset of `Drift` members. A transition that represents a drift source is
enabled only when its member is in the configuration's environment; everything else is the
protocol itself and is always available.
"""

from __future__ import annotations

import enum


class Drift(enum.Enum):
    """One drift source of BRIEF section 4. The value is its id; `effect` says what it does."""

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


def environment(*ids: str) -> frozenset[Drift]:
    """Build an environment from ids such as "D1", "D7"; an unknown id is a clear error."""
    members: set[Drift] = set()
    for drift_id in ids:
        try:
            members.add(Drift(drift_id))
        except ValueError:
            known = ", ".join(d.value for d in Drift)
            message = f"unknown drift source {drift_id!r}, expected one of {known}"
            raise ValueError(message) from None
    return frozenset(members)


def describe_environment(env: frozenset[Drift]) -> str:
    """A stable, human-readable name: "none" or ids in numeric order joined by "+"."""
    if not env:
        return "none"
    return "+".join(d.value for d in sorted(env, key=lambda d: int(d.value[1:])))
