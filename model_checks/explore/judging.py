"""Judging one instance of a design, the one interface the explorer's callers judge through:
`Judging` (search the instance with the one explorer, `graph.build`, and judge every property
of the design on what it found, its typed outcomes in `judgement`) and `judging_for`, the one
table of a design's judging.

The LRU design declares its own (`lru_judging`: its judge over the registry's properties
and lemmas, the state properties checked as the search numbers states, L1-L3 by monitors in
product with the graph, L4 by stuck states and fair lassos, the stubborn-set reduction),
reached from generic code only through `judging_for`; every other design is judged through
`DesignJudging`, its `DesignProperty`s checked on every transition the search takes
(`exploration.explore`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from model_checks.explore.judgement import JudgedInstance
from spec.designs import design_named
from spec.designs.base import Design


class Judging(Protocol):
    """How a design's instance is searched and judged: `judge(config, max_states=...)` is
    one search of `config` by the one explorer, at most `max_states` states, and every
    property of the design judged on it."""

    def judge(self, config: Any, *, max_states: int) -> JudgedInstance: ...


@dataclass(frozen=True)
class DesignJudging:
    """Any design judged through its `DesignProperty`s alone: `exploration.explore` (every
    property checked on every transition's successor, without reductions)."""

    design: Design

    def judge(self, config: Any, *, max_states: int) -> JudgedInstance:
        from model_checks.explore.exploration import explore  # it reads this module

        return explore(self.design, config, max_states=max_states)


def judging_for(design: str) -> Judging:
    """The judging of `design` (a registered name): the LRU design's own declaration
    (`lru_judging`), any other design's through its properties (`DesignJudging`)."""
    from model_checks.explore.lru_judging.declaration import LRU_JUDGING  # it reads this module

    if design == LRU_JUDGING.design:
        return LRU_JUDGING
    return DesignJudging(design_named(design))
