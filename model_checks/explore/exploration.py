"""Exhaustive breadth-first search of one instance of any design, by the one explorer
(`graph.build` through the design's `Moves`): every transition's successor is checked against
every property (quiescent ones on quiescent states) as the search takes it, and each broken
property gets a shortest witness (the actions from the initial state, replayable with
`replay`), judged as the one result type of a search (`judgement.JudgedInstance`). A search
that stops at its state limit says so and decides nothing it did not see: a property it
found no break of is undecided (`unknown`), never proved.

Properties are judged on arrival, on every transition, visited state or not: a design's
state may leave out of its identity what only its properties read (what the step served), so
a successor equal to a state already seen can still break a property that state did not.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.judgement import JudgedInstance, Judgement, Status
from model_checks.explore.moves import DesignMoves
from spec.designs.base import Design, DesignProperty, Scope, source_order


def explore(design: Design, config: Any, *, max_states: int = 2_000_000,
            environment: frozenset[str] = frozenset()) -> JudgedInstance:
    """Search `config`'s reachable states breadth-first, at most `max_states` of them, and
    judge every property of `design` on them: a break's shortest witness, else proved where
    the search was complete, else undecided (`environment`: the instance's, as the caller
    names it)."""
    judge = _ArrivalJudge(design, config)
    moves = DesignMoves(design, config, judge.see)
    graph = build(config, GraphOptions(reduce=False, max_states=max_states, keep_states=False,
                                       checks=()), design.name, moves)
    # what was judged past the state limit, the search did not take
    taken = {p: arrival for p, arrival in judge.found.items() if arrival[0] <= graph.steps_taken}
    numbers = {hash(before): -1 for _, before, _, _ in taken.values() if before is not None}
    for number, fingerprint in enumerate(graph.fingerprints):
        if numbers.get(fingerprint) == -1:
            numbers[fingerprint] = number
    proved = graph.complete and graph.size > 0
    judgements = []
    for prop in design.properties:
        if prop.id in taken:
            _, before, action, reason = taken[prop.id]
            path = () if before is None else (*graph.path_to(numbers[hash(before)]), action)
            judgements.append(Judgement(prop.id, Status.COUNTEREXAMPLE, reason, tuple(path)))
        else:
            judgements.append(Judgement(prop.id, Status.PROVED, "") if proved else
                              Judgement(prop.id, Status.UNDECIDED, "state limit reached"))
    return JudgedInstance(graph.size, graph.steps_taken, graph.diameter, graph.complete,
                          tuple(judgements), environment)


class _ArrivalJudge:
    """Every property checked on each transition's successor as the search takes it (and on
    the initial state): `found[id]` is the first that breaks property `id`, as (its position
    among the transitions, 0 for the initial state; the state before; the action; why)."""

    def __init__(self, design: Design, config: Any) -> None:
        self.design, self.config = design, config
        self.taken = 0
        self.found: dict[str, tuple[int, Any, Any, str]] = {}

    def see(self, before: Any, action: Any, state: Any) -> None:
        if before is not None:
            self.taken += 1
        found = self.found
        unbroken = [p for p in self.design.properties if p.id not in found]
        for prop, reason in breaks(self.design, self.config, state, unbroken):
            found[prop.id] = (self.taken, before, action, reason)


def breaks(design: Design, config: Any, state: Any, props: Iterable[DesignProperty]
           ) -> Iterator[tuple[DesignProperty, str]]:
    """Each of `props` that `state` breaks, in order, with why (its reasons joined): a
    quiescent property is asked only of a state the design calls quiescent."""
    quiescent: bool | None = None
    for prop in props:
        if prop.scope is Scope.QUIESCENT:
            if quiescent is None:
                quiescent = design.is_quiescent(config, state)
            if not quiescent:
                continue
        reasons = prop.check(config, state)
        if reasons:
            yield prop, "; ".join(reasons)


def replay(design: Design, config: Any, actions: Sequence[Any], prop: DesignProperty
           ) -> list[str]:
    """Run `actions` on the spec (each must be enabled: `step` raises otherwise) and return
    the reasons the final state breaks `prop` (empty: it holds there, or the property is not
    asked of it: a quiescent property of a state that is not)."""
    state = design.initial(config)
    for action in actions:
        state = design.step(config, state, action)
    if prop.scope is Scope.QUIESCENT and not design.is_quiescent(config, state):
        return []  # the property is not asked of this state
    return prop.check(config, state)


def subsets(sources: Sequence[str], most: int | None = None) -> list[frozenset[str]]:
    """Every environment of `sources` (of at most `most` of them, if given): the empty one,
    then each source alone in the order given, then the pairs, ...: the order every lattice
    searches and reports them in."""
    top = len(sources) if most is None else min(most, len(sources))
    return [frozenset(c) for size in range(top + 1)
            for c in itertools.combinations(sources, size)]


def antichain_minimal(sets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    """The sets with no proper subset among `sets`, smallest first, then in catalogue order
    (D3 before D10, C1 before R1): the minimal breaking sets every lattice reports, of the
    environments its explorations broke a property under."""
    pool = sorted(set(sets), key=lambda s: (len(s), sorted(map(source_order, s))))
    return [s for s in pool if not any(o < s for o in pool)]
