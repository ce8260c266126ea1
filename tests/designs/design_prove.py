"""Z3 over any design: the instance's reachable state graph (`graph.state_graph`, breadth-first
up to a state limit) becomes a transition relation over state indices, and for each property

- bounded model checking asks, for k = 0, 1, ... up to the bound, whether a state breaking
  it is reachable in exactly k steps; a model is decoded into the design's actions (the
  shortest such path, which replays on the spec with `design.step`);
- induction asks whether "the state is one of the graph's and keeps the property" is closed
  under the transition relation. The states of a graph cut short by its limit step to an
  `outside` state, so the induction proves a property only for a complete graph: it then
  holds in every reachable state of this instance, at every depth.

The bound is honest: a graph cut short is exhaustive only to its `exhaustive_depth`, and the
bound is never deeper. A verdict names its instance; an empty graph or a bound of 0 decides
nothing (`not run`, a failure). Z3 runs under a resource limit (`rlimit`), never a timeout:
a query it gives up on is `unknown`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import z3

from spec.designs.base import Design
from tests.designs.design_graph import StateGraph, state_graph

BREAKS, HOLDS, BOUNDED, UNKNOWN, NOT_RUN = "breaks", "holds", "bounded", "unknown", "not run"
"""The verdicts: a decoded path to a break; every reachable state, every depth; no break
within the bound; Z3 gave up (resource limit); nothing was decided (a failure)."""

DEFAULT_RLIMIT = 50_000_000
"""Z3's resource limit, set on each of the two solvers (the bounded search's and the
induction's): deterministic, unlike a timeout."""


@dataclass(frozen=True, slots=True)
class PropertyProof:
    """One property's verdict. `depth`: the path's length (breaks) or the depth every path
    was checked to (bounded, holds); `actions`: the path (breaks only); `reason`: why."""

    property_id: str
    verdict: str
    depth: int
    actions: tuple[Any, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class ProofResult:
    """What one run decided about one instance (`instance` names it: the design, variant,
    environment and configuration). `bound`: the depth bounded model checking reached
    (-1 when it did not run); `complete`: the graph holds every reachable state."""

    design: str
    variant: str
    environment: frozenset[str]
    instance: str
    states: int
    transitions: int
    complete: bool
    bound: int
    proofs: tuple[PropertyProof, ...]

    def proof(self, property_id: str) -> PropertyProof:
        return next(p for p in self.proofs if p.property_id == property_id)

    def verdict(self, property_id: str) -> str:
        return self.proof(property_id).verdict

    @property
    def failed(self) -> bool:
        """Nothing was decided: an empty state space or a bound of 0."""
        return any(p.verdict == NOT_RUN for p in self.proofs)


@dataclass(frozen=True)
class ProofOptions:
    """How far `prove` goes and what its result names: bounded model checking to `max_depth`
    steps over a state graph of at most `max_states` states, each Z3 query bounded by
    `rlimit` resource units; the `variant` and `environment` (drift source names) the
    result is recorded for."""

    max_depth: int = 12
    max_states: int = 200_000
    rlimit: int = DEFAULT_RLIMIT
    variant: str = ""
    environment: frozenset[str] = frozenset()


def prove(design: Design, config: Any, options: ProofOptions = ProofOptions()) -> ProofResult:
    """Judge every property of `design` on `config` with Z3: bounded model checking to
    `options.max_depth` steps (no deeper than the graph is exhaustive), then induction for
    each property not broken."""
    max_depth, max_states, rlimit = options.max_depth, options.max_states, options.rlimit
    variant, environment = options.variant, options.environment
    graph = state_graph(design, config, max_states)
    instance = f"design {design.name} {variant or '?'} {sorted(environment)}: {config!r}"
    bound = min(max_depth, graph.exhaustive_depth)
    ids = [p.id for p in design.properties]
    if not graph.states or max_depth < 1:
        why = "an empty state space" if not graph.states else f"a depth of {max_depth}"
        proofs = tuple(PropertyProof(i, NOT_RUN, -1, (), f"{why} decides nothing")
                       for i in ids)
        return ProofResult(design.name, variant, environment, instance, len(graph.states),
                           len(graph.edges), graph.complete, -1, proofs)
    found = _bounded(graph, ids, bound, rlimit)
    unbroken = _induction(graph, [i for i in ids if i not in found], bound, rlimit)
    proofs = tuple(found.get(i) or unbroken[i] for i in ids)
    return ProofResult(design.name, variant, environment, instance, len(graph.states),
                       len(graph.edges), graph.complete, bound, proofs)


def _successors(graph: StateGraph) -> dict[int, list[int]]:
    """Targets per source; an open state also steps to `outside` (index len(states))."""
    succ: dict[int, list[int]] = defaultdict(list)
    for source, _, target in graph.edges:
        succ[source].append(target)
    for source in graph.open_states:
        succ[source].append(len(graph.states))
    return succ


def _bounded(graph: StateGraph, ids: list[str], bound: int, rlimit: int
             ) -> dict[str, PropertyProof]:
    """Bounded model checking, depth by depth, for every property at once: the first depth
    where a break is reachable gives the shortest path to it. `at[k][s]` is the Boolean
    "the path is in state s after k steps" (only for states within k steps); a state there
    after k > 0 steps has a predecessor there after k - 1."""
    solver = z3.Solver()
    solver.set("rlimit", rlimit)
    pred = _predecessors(graph)
    at: list[dict[int, Any]] = [{0: z3.Bool("at_0_0")}]
    solver.add(at[0][0])
    found: dict[str, PropertyProof] = {}
    for k in range(bound + 1):
        if k > 0:
            at.append(_layer(graph, pred, at[k - 1], k))
            solver.add(*(z3.Implies(now, z3.Or([at[k - 1][s] for s in pred[t]
                                                     if s in at[k - 1]]))
                         for t, now in at[k].items()))
        for property_id in (i for i in ids if i not in found):
            asked = z3.Bool(f"breaks_{property_id}_{k}")
            solver.add(z3.Implies(asked, z3.Or([at[k][b] for b, _ in graph.bad[property_id]
                                                if b in at[k]])))
            answer = solver.check(asked)
            if answer == z3.sat:
                found[property_id] = _decoded(graph, property_id, solver.model(), at, pred)
            elif answer == z3.unknown:
                found[property_id] = PropertyProof(property_id, UNKNOWN, k, (), (
                    f"Z3 gave up at depth {k}: {solver.reason_unknown()}"))
    return found


def _predecessors(graph: StateGraph) -> dict[int, list[int]]:
    pred: dict[int, list[int]] = defaultdict(list)
    for source, _, target in graph.edges:
        pred[target].append(source)
    return pred


def _layer(graph: StateGraph, pred: dict[int, list[int]], before: dict[int, Any], k: int
           ) -> dict[int, Any]:
    """The Booleans of step k: every state with a predecessor in step k - 1's layer."""
    return {t: z3.Bool(f"at_{k}_{t}") for t in range(len(graph.states))
            if any(s in before for s in pred[t])}


def _decoded(graph: StateGraph, property_id: str, model: z3.ModelRef,
             at: list[dict[int, Any]], pred: dict[int, list[int]]) -> PropertyProof:
    """The path a model gives: a breaking state true at the last step, then back through
    a predecessor true at each step before."""
    def true(var: Any) -> bool:
        return bool(z3.is_true(model.eval(var, model_completion=True)))

    bad = dict(graph.bad[property_id])
    state = next(b for b, var in at[-1].items() if b in bad and true(var))
    indices = [state]
    for layer in reversed(at[:-1]):
        state = next(s for s in pred[state] if s in layer and true(layer[s]))
        indices.append(state)
    indices.reverse()
    action_of = {(s, t): a for s, a, t in graph.edges}
    actions = tuple(action_of[pair] for pair in pairwise(indices))
    return PropertyProof(property_id, BREAKS, len(actions), actions, bad[indices[-1]])


def _induction(graph: StateGraph, ids: list[str], bound: int, rlimit: int
               ) -> dict[str, PropertyProof]:
    """Per property: is "one of the graph's states, keeping the property" closed under a
    step? Yes: it holds in every reachable state (the initial state is one of them and
    keeps it, as the depth-0 check showed). No: only the bounded result stands. `source[s]`
    is the Boolean "the step starts in s", `target[t]` "it ends in t" (`outside` too)."""
    solver = z3.Solver()
    solver.set("rlimit", rlimit)
    succ = _successors(graph)
    count = len(graph.states)
    source = {s: z3.Bool(f"from_{s}") for s in range(count)}
    target = {t: z3.Bool(f"to_{t}") for t in range(count + 1)}
    solver.add(*(z3.Implies(source[s], z3.Or([target[t] for t in succ[s]]))
                 for s in range(count)))
    return {i: _inductive(graph, i, bound, solver, source, target) for i in ids}


def _inductive(graph: StateGraph, property_id: str, bound: int, solver: z3.Solver,
               source: dict[int, Any], target: dict[int, Any]) -> PropertyProof:
    bad = {index for index, _ in graph.bad[property_id]}
    kept = [s for s in source if s not in bad]
    asked = z3.Bool(f"steps_out_{property_id}")
    solver.add(z3.Implies(asked, z3.And(z3.Or([source[s] for s in kept]),
                                        *(z3.Not(target[t]) for t in kept))))
    answer = solver.check(asked)
    if answer == z3.unsat:
        return PropertyProof(property_id, HOLDS, bound, (), (
            f"holds in every reachable state of this instance ({len(source)} states), at "
            "every depth: the reachable states keeping it are closed under a step"))
    if answer == z3.unknown:
        return PropertyProof(property_id, UNKNOWN, bound, (), (
            f"no break within {bound} steps; Z3 gave up on the induction: "
            f"{solver.reason_unknown()}"))
    return PropertyProof(property_id, BOUNDED, bound, (), (
        f"no break within {bound} steps of this instance; not inductive "
        f"({'the graph was cut short' if graph.open_states else 'a deeper state breaks it'})"))
