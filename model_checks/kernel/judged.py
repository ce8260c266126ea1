"""Which properties each checker judges: one table per checker, keyed by property id.

Every checker answers for every property of its design (the LRU design's: `spec.registry()`),
by name (as stateright's checkers do for its one `properties()` list): either it judges the
property (`Judged`, with how), or it lists it as not judged with the reason (`NotJudged`). A
checker's table is a function of the registry, read when asked, so a property declared later
is answered for without an edit here; the architecture tests fail on a table that leaves one
unanswered. These words read no design's spec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Judged:
    """The checker decides the property; `how` says by what (one line)."""

    how: str


@dataclass(frozen=True, slots=True)
class NotJudged:
    """The checker does not decide the property; `reason` says why (one line)."""

    reason: str


Table = Mapping[str, Judged | NotJudged]
"""Per property id, how a checker answers for it."""


def judged_ids(table: Table, order: Sequence[str]) -> tuple[str, ...]:
    """The ids a table judges, in the order of `order` (the design's property ids: the LRU
    design's registry order)."""
    return tuple(p for p in order if isinstance(table.get(p), Judged))
