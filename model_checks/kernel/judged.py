"""Which properties each checker judges: one table per checker, keyed by property id.

Every checker answers for every property of `spec.registry()`, by name (as stateright's
checkers do for its one `properties()` list): either it judges the property (`Judged`, with
how), or it lists it as not judged with the reason (`NotJudged`). A checker's table is a
function of the registry, read when asked, so a property declared later is answered for
without an edit here; `gaps` says what a table leaves unanswered, and the architecture tests
fail on any gap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from spec import property_ids


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


def gaps(table: Table) -> list[str]:
    """What is wrong with a checker's table: registered properties it neither judges nor
    lists as not judged, and ids it names that the registry does not have (empty: none)."""
    registered = property_ids()
    problems = [f"{p}: neither judged nor listed as not judged" for p in registered
                if p not in table]
    problems += [f"{p}: not a property of spec.registry()" for p in table
                 if p not in registered]
    return problems


def judged_ids(table: Table) -> tuple[str, ...]:
    """The ids a table judges, in registry order."""
    return tuple(p for p in property_ids() if isinstance(table.get(p), Judged))
