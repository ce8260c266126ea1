"""Stopping a breadth-first search at the end of the level where every asked property has
broken (`GraphOptions.stop_at_break`), with the verdicts and shortest counterexamples the
whole graph gives.

Which properties can stop a search (`stoppable`): those judged on finite prefixes, so that a
break found in the first d levels is a break of the whole graph and no shorter one hides
deeper:

- a state property (a lemma too) the search checks as it numbers states (`state_checks`):
  breadth-first numbering checks every state of depth d before any deeper one, so the first
  breaking state, the one the judge reports, is the same whether the search goes on or not;
- a trace property judged by its monitor in product with the graph (`monitors.MONITORS`,
  L1-L3): the product search (`product.search_product`) runs on the fly, after each state
  the search expands (crossing its edges from the successors the search computed:
  `BreakWatch.expanded`), pausing at the first product node whose state the graph search
  has not expanded yet. Pausing keeps the product's breadth-first order, so its first
  violation is the one the product of the whole graph meets first; that violation ends at
  a product node of depth L, reached from a node of depth L - 1 whose state (of depth at
  most L - 1) was expanded, so it is found once the graph's level L is numbered, and the
  judge, searching the product again on the stopped graph, meets it in the same order
  (every node it expands before it has an expanded state).

Never L4 (its stuck states and fair lassos need the whole graph: a state at the last level
has no edges yet, and a cycle may close deeper) nor a property vacuous by construction on
the instance (it never breaks). A graph stopped at a break is incomplete
(`Graph.stopped_at`): only the asked properties are judged on it, each a counterexample.
`tests/explore/test_explore_early_stop.py` compares verdicts and shortest lengths with the
whole search on every matrix cell's first break and on spec mutants, and plants wrong stops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from model_checks.explore.lru_judging.monitors import MONITORS
from model_checks.explore.lru_judging.state_checks import vacuous_reason
from spec import Config, Property, State

if TYPE_CHECKING:
    from model_checks.explore.graph import Graph


def stoppable(config: Config, prop: Property) -> bool:
    """True when a break of `prop` found in the first levels of `config`'s graph is one of
    the whole graph (module docstring): a state property, or a trace property with a
    product monitor; never one vacuous by construction on `config`."""
    if vacuous_reason(config, prop) is not None:
        return False
    if prop.state_check is not None:
        return True
    monitor = MONITORS.get(prop.id)
    return monitor is not None and not monitor.state_local


class BreakWatch:
    """Whether every one of `props` (each `stoppable`) has broken in the levels a search has
    numbered so far (`broken`): the state properties from `graph.checks` (which must check
    them), the monitored ones from one product search run on the fly. With `stops` false
    (trace properties only) it runs their product on the fly and never says broken: the
    search goes on, and the judge finishes the product on the whole graph."""

    def __init__(self, graph: Graph, props: Sequence[Property], stops: bool = True) -> None:
        from model_checks.explore.lru_judging.product import ProductSearch  # product reads graph.py

        for prop in props:
            if not stoppable(graph.config, prop):
                raise ValueError(f"{prop.id} cannot stop a search at its break (early_stop)")
        checks = graph.checks
        self.graph = graph
        self.state_ids = [p.id for p in props if p.state_check is not None]
        if self.state_ids and (checks is None or any(not checks.covers(p) for p in props
                                                     if p.state_check is not None)):
            raise ValueError("every state property that stops the search must be checked")
        if not stops and self.state_ids:
            raise ValueError("a watch that never stops runs monitors only")
        self.stops = stops
        monitors = [MONITORS[p.id] for p in props if p.state_check is None]
        self.product = ProductSearch(graph, monitors) if monitors else None

    def reads_edges(self) -> bool:
        """True while the product still searches (some monitor has not broken): the search
        then hands it every state it expands (`expanded`)."""
        return self.product is not None and self.product.live > 0

    def expanded(self, number: int, before: State, reals: list[State],
                 successors: list[State]) -> None:
        """State `number` (`before`) expanded, per edge its real and its stored successor:
        the product crosses its edges without stepping the spec again
        (`product.ProductSearch.expanded`); the search holds its states meanwhile."""
        if self.product is not None:
            self.product.expanded(number, before, reals, successors)

    def broken(self, states: list[State]) -> bool:
        """True when every property has broken by the end of the level the search has just
        numbered: every state numbered is checked and every state above that level is
        expanded; `states` holds every state numbered, in number order."""
        checks = self.graph.checks
        if checks is not None and any(i not in checks.first for i in self.state_ids):
            return False
        if self.product is None:
            return True
        with self.graph.holding_states(states):  # the product reads them as the search runs
            self.product.run(expanded_only=True)
        return self.stops and self.product.live == 0
