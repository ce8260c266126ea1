"""The typed outcomes of judging one instance of a design (`judging`): each property's
`Judgement` with its `Status`, and the `JudgedInstance` of one search, the one result type of
a search whatever judged it (a design's own judging, `lru_judging`, or every property checked
on arrival, `exploration.explore`). A module of its own so that a design's judging returns
them without importing the table that finds it (`judging.judging_for`).

A counterexample is a shortest path of the design's own actions that breaks the property;
proved means for this instance at all depths (the search was complete); undecided that the
state limit cut the search before a break was found.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Status(enum.Enum):
    COUNTEREXAMPLE = "counterexample"
    PROVED = "proved"
    VACUOUS = "vacuous"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Judgement:
    """One property's outcome on one graph. `actions`: the counterexample's steps (for a
    lasso, the prefix followed by the cycle; `cycle_from` is where the cycle starts);
    `trace`: its run, where the design's judging replays one (None: not kept)."""

    property_id: str
    status: Status
    reason: str
    actions: tuple[Any, ...] = ()
    cycle_from: int | None = None
    trace: Any = None


VERDICTS = {Status.COUNTEREXAMPLE: "breaks", Status.PROVED: "holds", Status.VACUOUS: "holds",
            Status.UNDECIDED: "unknown"}
"""A judgement as the one-instance search reports it: broken, holds on every reachable state
of the instance (a vacuous property too), or not decided."""


@dataclass(frozen=True)
class JudgedInstance:
    """One instance searched and judged: the search's figures (`complete`: every reachable
    state visited), each property's judgement, in the design's order, and the environment
    the instance is of, as its caller names it (empty: not named)."""

    states: int
    transitions: int
    depth: int
    complete: bool
    judgements: tuple[Judgement, ...]
    environment: frozenset[str] = frozenset()

    def judgement(self, property_id: str) -> Judgement | None:
        return next((j for j in self.judgements if j.property_id == property_id), None)

    def witness(self, property_id: str) -> Judgement | None:
        """The property's counterexample (None: the search found no break of it)."""
        judgement = self.judgement(property_id)
        return (judgement if judgement is not None
                and judgement.status is Status.COUNTEREXAMPLE else None)

    @property
    def witnesses(self) -> tuple[Judgement, ...]:
        """Every counterexample found, in the design's order."""
        return tuple(j for j in self.judgements if j.status is Status.COUNTEREXAMPLE)

    def verdict(self, property_id: str) -> str:
        """'breaks', 'holds' (every reachable state of the instance) or 'unknown'."""
        judgement = self.judgement(property_id)
        return "unknown" if judgement is None else VERDICTS[judgement.status]
