"""Judging every property of the registry (and the lemmas) on one complete state graph.

Outcomes are typed: a counterexample (the actions of a shortest path, replayed on the
unreduced spec and re-checked by the property's own check before it is returned), proved
for this instance at all depths (the graph is complete and no reachable state or product
state violates it), vacuous (the property cannot fail in this instance, with the reason),
or undecided (the state limit cut the graph, or no monitor exists for the property).
"""

from __future__ import annotations

from model_checks.explore import collector
from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.judgement import Judgement, Status
from model_checks.explore.lru_judging.liveness import fair_lasso, stuck_state
from model_checks.explore.lru_judging.monitors import MONITORS, Monitor, observe
from model_checks.explore.lru_judging.product import Verdict, search_product
from model_checks.explore.lru_judging.slot_fairness import every_candidate_ruled_out
from model_checks.explore.lru_judging.state_checks import vacuous_reason
from model_checks.explore.lru_reductions.lazy_media import submits_decided
from model_checks.explore.lru_reductions.slots import concrete_rids
from model_checks.explore.lru_reductions.symmetry import concrete_actions
from model_checks.kernel.judged import Judged, NotJudged, Table
from spec import Action, Property, Trace, lemmas, registry, run

__all__ = ["EVENTUAL_COMPLETION", "Judgement", "ReplayDisagrees", "Status", "judge", "judge_all",
           "judged"]


class ReplayDisagrees(AssertionError):
    """A path the explorer found does not break the property when replayed on the spec: a
    defect of the explorer, never reported as a verdict."""


def judge_all(graph: Graph, with_lemmas: bool = True,
              only: frozenset[str] | None = None) -> list[Judgement]:
    """Every property of the registry, then (optionally) every lemma, in registry order
    (`only`: just those of these ids): the state properties from what the search found
    (`graph.checks`), the monitored ones from one search of the product with every monitor
    at once (`product.py`)."""
    props = [p for p in (*registry(), *(lemmas() if with_lemmas else ()))
             if only is None or p.id in only]
    with collector.paused(), graph.holding_states():  # no cycles among them: `collector`
        monitored = _monitored_all(graph, props)
        return [monitored.get(prop.id) or _judge(graph, prop) for prop in props]


EVENTUAL_COMPLETION = "L4"
"""The one liveness property judged on the graph as a whole (a stuck state or a fair lasso
with a request left unfinished), not by a monitor."""

NO_MONITOR = "the explorer has no monitor for it"


def judged() -> Table:
    """What the explorer judges: every state property on every reachable state, L4 on the
    graph (stuck states and fair lassos), the other liveness properties by their monitor
    (`MONITORS`); a liveness property without one is not judged."""
    table: dict[str, Judged | NotJudged] = {}
    for prop in registry():
        if prop.state_check is not None:
            table[prop.id] = Judged("every reachable state of the instance")
        elif prop.id == EVENTUAL_COMPLETION:
            table[prop.id] = Judged("stuck states and fair lassos of the graph")
        elif prop.id in MONITORS:
            table[prop.id] = Judged("its monitor, on the product of the graph and the monitor")
        else:
            table[prop.id] = NotJudged(NO_MONITOR)
    return table


def judge(graph: Graph, prop: Property) -> Judgement:
    with graph.holding_states():  # the graph keeps none; judging reads them many times
        return _judge(graph, prop)


def _judge(graph: Graph, prop: Property) -> Judgement:
    vacuous = _vacuous_by_construction(graph, prop)
    if vacuous is not None:
        return Judgement(prop.id, Status.VACUOUS, vacuous)
    if prop.state_check is not None:
        return _state_property(graph, prop)
    if prop.id == EVENTUAL_COMPLETION:
        return _eventual_completion(graph, prop)
    monitor = MONITORS.get(prop.id)
    if monitor is None:
        return Judgement(prop.id, Status.UNDECIDED, NO_MONITOR)
    return _monitored(graph, prop, monitor)


def _vacuous_by_construction(graph: Graph, prop: Property) -> str | None:
    """`ONE_CONTENT`'s properties, on an instance with one content per identity."""
    return vacuous_reason(graph.config, prop)


def _complete_or_undecided(graph: Graph, prop: Property, proved: Judgement) -> Judgement:
    if graph.complete:
        return proved
    return Judgement(prop.id, Status.UNDECIDED,
                     f"state limit reached after {len(graph.states)} states")


def _state_property(graph: Graph, prop: Property) -> Judgement:
    """The first (so shallowest) state breaking `prop`: as the search found it where it
    checked this property (`graph.checks`), else by a pass over the states in order."""
    if graph.checks is not None and graph.checks.covers(prop):
        first = graph.checks.first.get(prop.id)
        if first is not None:
            index, _ = first
            return _replayed(graph, prop, graph.path_to(index))
        return _complete_or_undecided(graph, prop, Judgement(prop.id, Status.PROVED, ""))
    for index, state in enumerate(graph.states):
        reasons = prop.check_state(graph.config, state)
        if reasons:
            return _replayed(graph, prop, graph.path_to(index))
    return _complete_or_undecided(graph, prop, Judgement(prop.id, Status.PROVED, ""))


def _eventual_completion(graph: Graph, prop: Property) -> Judgement:
    stuck = stuck_state(graph)
    if stuck is not None:
        index, _ = stuck
        return _replayed(graph, prop, graph.path_to(index))
    if not graph.complete:
        return _complete_or_undecided(graph, prop, Judgement(prop.id, Status.PROVED, ""))
    if graph.slots:
        # Fairness compares owed steps by their labels, which name rids: a component of the
        # keys with slots renumbered may look unfair where the real cycle is fair. Without
        # any drift-free cycle holding an unfinished request (a real one would be one of the
        # keys too), or with every such component ruled out by what it owes and never takes
        # (`slot_fairness`), L4 holds; else it is judged on the keys with ended requests
        # forgotten only, whose edges keep every label.
        if every_candidate_ruled_out(graph):
            return Judgement(prop.id, Status.PROVED, "")
        keyed = build(graph.config, GraphOptions(forget=True, max_states=graph.max_states,
                                                 checks=()))
        return _eventual_completion(keyed, prop)
    lasso = fair_lasso(graph)
    if lasso is not None and (graph.symmetric or graph.partial or graph.forgets):
        # A cycle of the quotient (or of a graph that partial-order reduction pruned, or of
        # the keys with ended requests forgotten) need not be one of the unreduced graph:
        # judge L4 there.
        unreduced = build(graph.config,
                          GraphOptions(symmetry=False, max_states=graph.max_states, checks=()))
        return _eventual_completion(unreduced, prop)
    if lasso is not None:
        trace = run(graph.config, (*lasso.prefix, *lasso.cycle))
        return Judgement(prop.id, Status.COUNTEREXAMPLE, lasso.reason,
                         (*lasso.prefix, *lasso.cycle), len(lasso.prefix), trace)
    return Judgement(prop.id, Status.PROVED, "")


def _monitored_all(graph: Graph, props: list[Property]) -> dict[str, Judgement]:
    """The judgements of every property in `props` judged on the product with its monitor
    (neither vacuous by construction nor state-local), from one joint product search."""
    wanted = [(prop, monitor) for prop in props
              if (monitor := MONITORS.get(prop.id)) is not None and prop.state_check is None
              and prop.id != EVENTUAL_COMPLETION and not monitor.state_local
              and _vacuous_by_construction(graph, prop) is None]
    if not wanted:
        return {}
    monitors = [monitor for _, monitor in wanted]
    early = graph.early_product
    if early is not None and list(early.monitors) == monitors:
        early.run()  # run on the fly: finished on the whole graph (a stopped one is done)
        verdicts = early.verdicts()
    else:
        verdicts = search_product(graph, monitors)
    return {prop.id: _from_product(graph, prop, monitor, verdict)
            for (prop, monitor), verdict in zip(wanted, verdicts, strict=True)}


def _monitored(graph: Graph, prop: Property, monitor: Monitor) -> Judgement:
    """`prop` judged on the product of the graph with its monitor (`product.py`; a
    state-local monitor on the states alone)."""
    if monitor.state_local:
        return _state_local(graph, prop, monitor)
    verdict, = search_product(graph, [monitor])
    return _from_product(graph, prop, monitor, verdict)


def _from_product(graph: Graph, prop: Property, monitor: Monitor, verdict: Verdict,
                  ) -> Judgement:
    """A monitor's verdict as a judgement: its violation replayed on the spec, vacuity
    where no step met its premise on a complete graph, else proved for the instance."""
    if verdict.steps is not None:
        actions = concrete_actions(list(verdict.steps))
        if graph.slots:
            actions = submits_decided(concrete_rids(actions, verdict.slot_maps))
        return _replayed(graph, prop, actions)
    if not verdict.premise_met and graph.complete:
        return Judgement(prop.id, Status.VACUOUS, monitor.premise_reason)
    return _complete_or_undecided(graph, prop, Judgement(
        prop.id, Status.PROVED,
        f"{verdict.product_states} states in the product with its monitor"))


def _state_local(graph: Graph, prop: Property, monitor: Monitor) -> Judgement:
    premise_met = False
    for index, state in enumerate(graph.states):
        violation = prop.check_trace(Trace(graph.config, state))
        if violation is not None:
            return _replayed(graph, prop, graph.path_to(index))
        if index > 0 and not premise_met:
            before = graph.states[graph.parent[index]]
            action = graph.via[index]
            assert action is not None
            premise_met = monitor.premise(observe(before, action, state))
    if not premise_met and graph.complete:
        return Judgement(prop.id, Status.VACUOUS, monitor.premise_reason)
    return _complete_or_undecided(graph, prop, Judgement(prop.id, Status.PROVED, ""))


def _replayed(graph: Graph, prop: Property, actions: list[Action]) -> Judgement:
    """Replay the path on the unreduced spec; the property's own check must break at its
    last step (a shortest path breaks nowhere earlier), and its reason is the judgement's."""
    trace = run(graph.config, actions)
    violation = prop.check_trace(trace)
    if violation is None or violation.step != len(actions):
        where = "nowhere" if violation is None else f"at step {violation.step}"
        raise ReplayDisagrees(
            f"{prop.id}: the explorer's {len(actions)}-step path breaks it {where} on replay"
        )
    return Judgement(prop.id, Status.COUNTEREXAMPLE, violation.reason, tuple(actions),
                     None, trace)

