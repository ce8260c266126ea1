"""Footprints, what one step reads and writes, and when two of them conflict: the vocabulary
partial-order reduction compares to decide which steps commute.

A footprint lists (location, mode) pairs. Locations name the parts of a `State` (and of the
monitors' memories, which the explorer searches in product with the graph) that an action
touches; modes say how. Two footprints *conflict* when some location is touched by both in
modes that do not commute (`commute`). Each action class's footprint, read off its guard
and `apply`, is its entry in `rules.py`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

Location = tuple[object, ...]
"""("shadow", f), ("receiver", e), ("to_engine", e), ("to_front_end",), ("request", r),
("count",) (how many requests exist and how many are unfinished), ("processings",),
("reset",) (`reset_pending`), ("midpipe", f) (front end f holds an attempt between probe
and send), and the monitors' memories ("L1",), ("L2",), ("L3",)."""


class Mode(enum.Enum):
    READ = "read"
    WRITE = "write"  # read and write
    APPEND = "append"  # a queue or an append-only sequence: add at the end
    POP = "pop"  # a queue: remove an element that exists (the step is enabled)
    PEEK = "peek"  # an append-only sequence: read elements that already exist
    SUBMIT = "submit"  # count: guard on both counts, then one more request, unfinished
    DEC = "decrement"  # count: one fewer unfinished request (an attempt ends)
    INC = "increment"  # count: one more unfinished request (a retry)
    CLEAR = "clear"  # a monitor memory: reset to empty (a drift event, for L3)
    WIPE = "wipe"  # a cache: every entry removed (clears, resets, restarts)
    INVALIDATE = "invalidate"  # a cache: given identities removed (P0 taking a miss reply)


_COMMUTING: frozenset[frozenset[Mode]] = frozenset(
    frozenset(pair) for pair in (
        (Mode.READ, Mode.READ),
        (Mode.READ, Mode.PEEK),
        (Mode.PEEK, Mode.PEEK),
        # Appending never moves what exists: a peek or a pop of an existing element reads
        # or removes the same element before and after.
        (Mode.PEEK, Mode.APPEND),
        (Mode.APPEND, Mode.POP),
        # An ending attempt never disables an enabled submit (it only lowers the unfinished
        # count) and the submit's effect (rid = number of requests) does not read it.
        (Mode.SUBMIT, Mode.DEC),
        (Mode.DEC, Mode.DEC),
        (Mode.DEC, Mode.INC),
        (Mode.INC, Mode.INC),
        (Mode.CLEAR, Mode.CLEAR),
        # Removing entries commutes with removing entries: either order leaves the cache
        # without the union of what each removes (empty, if one wipes it).
        (Mode.WIPE, Mode.WIPE),
        (Mode.WIPE, Mode.INVALIDATE),
        (Mode.INVALIDATE, Mode.INVALIDATE),
    )
)


def commute(a: Mode, b: Mode) -> bool:
    """True when two accesses to one location, in either order, leave it the same and
    neither enables or disables the other's step."""
    return frozenset((a, b)) in _COMMUTING


@dataclass(frozen=True)
class Footprint:
    """What one action touches in one state. `may_fault`: the step may set `fault`, which
    every guard reads (a faulted state is absorbing), so it conflicts with every step."""

    accesses: tuple[tuple[Location, Mode], ...]
    may_fault: bool = False


def conflict(a: Footprint, b: Footprint) -> bool:
    """True unless the two steps commute and neither disables the other."""
    if a.may_fault or b.may_fault:
        return True
    modes: dict[Location, list[Mode]] = {}
    for location, mode in a.accesses:
        modes.setdefault(location, []).append(mode)
    return any(
        not commute(mode, other)
        for location, mode in b.accesses
        for other in modes.get(location, ())
    )


__all__ = ["Footprint", "Location", "Mode", "commute", "conflict"]
