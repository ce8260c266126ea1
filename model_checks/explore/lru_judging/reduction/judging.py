"""Judging a cell on the reduced graph, with the unreduced search's shortest counterexamples.

Partial-order reduction keeps every verdict (`docs/explore.md`, "Partial-order reduction")
but not every shortest path: a step the reduction postponed may have to run first, so a
counterexample on the reduced graph can be longer than the shortest one. `judge_reduced`
judges every property on the reduced graph, then, if it found counterexamples, searches the
unreduced graph breadth-first to one step less than the longest of them
(`build(..., max_depth=k - 1)`) and judges each of those properties there: breadth-first
order gives a shortest one if it is shorter than the reduced one; if there is none, the
reduced one is a shortest one. Proofs and vacuity come from the reduced graph alone
(a complete one). An L4 lasso found on the reduced graph is already re-judged on the
unreduced graph by `judge`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.lru_judging.judge import Judgement, Status, judge, judge_all
from model_checks.explore.lru_judging.reduction import build_reduced
from spec import Config, by_id


@dataclass(frozen=True)
class Reduced:
    """What judging one configuration with the reduction cost: the reduced graph, the
    states of the bounded unreduced search (0: none needed) and its depth."""

    graph: Graph
    judgements: list[Judgement]
    minimising_states: int = 0
    minimising_depth: int = 0


def judge_reduced(config: Config, *, max_states: int = 2_000_000,
                  with_lemmas: bool = True) -> Reduced:
    """Every property (and lemma) judged as `judge_all(build(config))` judges it, with
    the reduced graph doing the exploring."""
    graph = build_reduced(config, max_states=max_states)
    judgements = judge_all(graph, with_lemmas)
    # L4's counterexamples are exact already: a stuck state is quiescent, and the reduced
    # graph holds every quiescent state at its unreduced depth; a lasso was re-judged
    # on the unreduced graph by `judge`.
    finite = [j for j in judgements
              if j.status is Status.COUNTEREXAMPLE and j.property_id != "L4"]
    if not finite:
        return Reduced(graph, judgements)
    # A counterexample of k steps is a shortest one unless one of fewer steps exists, so the
    # unreduced search goes down to k - 1 steps only.
    depth = max(len(j.actions) for j in finite) - 1
    bounded = build(config, GraphOptions(max_states=max_states, max_depth=depth))
    shortest = {j.property_id: _shortest(bounded, j) for j in finite}
    return Reduced(graph, [shortest.get(j.property_id, j) for j in judgements],
                   len(bounded.states), depth)


def _shortest(bounded: Graph, found: Judgement) -> Judgement:
    """The shorter counterexample the bounded unreduced search holds, else `found` (none
    of fewer steps exists), unless the state limit cut that search first."""
    again = judge(bounded, by_id(found.property_id))
    if again.status is Status.COUNTEREXAMPLE and len(again.actions) < len(found.actions):
        return again
    if len(bounded.states) >= bounded.max_states:
        return replace(found, reason=found.reason + " (the unreduced search for a shorter "
                       "one reached the state limit: it may not be a shortest one)")
    return found
