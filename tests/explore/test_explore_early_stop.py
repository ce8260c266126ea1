"""A search stopped at the end of the level where every asked property has broken
(`explore.lru_judging.early_stop`) gives each of them the verdict and shortest counterexample
length of the whole search, from no more states: on a sample of matrix cells (every
stoppable property that breaks there, all asked at once, and each monitored one alone, with
and without request slots renumbered; a property that holds never stops it), and (`-m slow`)
on every matrix cell's first CI instance and every spec mutant's witness instance. Planted
wrong stops are caught: a stop one level early (for a state property and for a monitored
one), a stop while one asked property is unbroken, and a stop where L4 is asked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from model_checks.explore.forgetting_agreement import matrix_instances
from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging import early_stop
from model_checks.explore.lru_judging.early_stop import stoppable
from model_checks.explore.lru_judging.judge import Judgement, ReplayDisagrees, Status, judge_all
from model_checks.explore.lru_judging.state_checks import state_properties
from model_checks.explore.lru_reductions import lazy_media
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import (
    V0,
    V2,
    V3,
    Action,
    Config,
    Property,
    State,
    TraceError,
    Variant,
    by_id,
    lemmas,
    registry,
)

LIMIT = 60_000
SAMPLE = [(V2, ("D7",)), (V3, ("D2",)), (V2, ("D3",))]
"""Cells whose first CI instance breaks a state property (H1 or S4)."""
THREE = [(V3, ("D2",)), (V0, ("D2",)),
         pytest.param(V2, ("D3",), marks=pytest.mark.slow)]
"""Cells whose three-request instance breaks monitored properties (L1, L2) deeper than a
state property, or L4 alongside."""


def _three_requests(variant: Variant, env: tuple[str, ...]) -> Config:
    return explore_config(variant, env, max_requests=3, max_items=1)


def _ci_instance(variant: Variant, env: tuple[str, ...]) -> Config:
    """The first instance the CI profile searches for the cell (as
    the soundness checks of the other reductions pick it)."""
    from model_checks.kernel.cells import cell_identifier

    label = cell_identifier(variant.name, env)
    (_, config), = matrix_instances({label})
    return config


@dataclass(frozen=True)
class Agreement:
    """The early-stopping searches of one instance against its whole search: the verdicts
    compared, every disagreement (in words), the states of the whole search and the most
    states of an early one."""

    compared: int
    disagreements: tuple[str, ...]
    whole_states: int
    early_states: int

    @property
    def agrees(self) -> bool:
        return self.compared > 0 and not self.disagreements


def _early(config: Config, asked: list[Property], stop_on: list[Property],
           slots: bool) -> tuple[Graph, list[Judgement]]:
    checks = [p for p in state_properties(config) if p in asked]
    graph = build(config, GraphOptions(max_states=LIMIT, forget=slots, slots=slots,
                                       checks=checks, stop_at_break=stop_on))
    return graph, judge_all(graph, only=frozenset(p.id for p in asked))


def compare(config: Config, slots: bool = False, stop_on_first: bool = False) -> Agreement:
    """Every stoppable property that breaks on the whole graph, asked all at once and each
    monitored one alone, searched stopping at the break (`stop_on_first`: stopping on the
    first of them only, a planted wrong stop), compared with the whole search."""
    whole = build(config, GraphOptions(max_states=LIMIT, forget=slots, slots=slots))
    judged = {j.property_id: j for j in judge_all(whole)}
    props = [p for p in (*registry(), *lemmas()) if stoppable(config, p)
             and judged[p.id].status is Status.COUNTEREXAMPLE]
    compared, why, most = 0, [], 0
    holding = [p for p in (*registry(), *lemmas()) if stoppable(config, p)
               and judged[p.id].status is not Status.COUNTEREXAMPLE]
    if holding and whole.complete:  # a property that never breaks never stops the search
        graph, _ = _early(config, holding[:1], holding[:1], slots)
        compared += 1
        if graph.stopped_at is not None or graph.size != whole.size:
            why.append(f"{holding[0].id} holds, yet the search stopped at {graph.stopped_at} "
                       f"with {graph.size} of {whole.size} states")
    if not props:
        return Agreement(compared, tuple(why), whole.size, 0)
    askings = [props] + [[p] for p in props if p.state_check is None and len(props) > 1]
    for asked in askings:
        stop_on = asked[:1] if stop_on_first else asked
        try:
            graph, early = _early(config, asked, stop_on, slots)
        except (ReplayDisagrees, TraceError) as error:
            why.append(f"replay: {error}")
            continue
        most = max(most, graph.size)
        if graph.size > whole.size:
            why.append(f"{graph.size} states stopping early, {whole.size} in all")
        for judgement in early:
            full = judged[judgement.property_id]
            compared += 1
            if (judgement.status, len(judgement.actions)) != (full.status, len(full.actions)):
                why.append(f"{judgement.property_id}: {judgement.status.name} "
                           f"{len(judgement.actions)} stopping early, {full.status.name} "
                           f"{len(full.actions)} in all")
    return Agreement(compared, tuple(why), whole.size, most)


@pytest.mark.parametrize(("variant", "env"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}" for v, e in SAMPLE])
def test_stopping_at_the_break_agrees_with_the_whole_search(
        variant: Variant, env: tuple[str, ...]) -> None:
    result = compare(_ci_instance(variant, env))
    assert result.agrees, result.disagreements
    assert result.early_states < result.whole_states


@pytest.mark.parametrize(("variant", "env"), THREE, ids=["V3_D2", "V0_D2", "V2_D3"])
def test_it_agrees_where_monitored_properties_break(variant: Variant,
                                                    env: tuple[str, ...]) -> None:
    result = compare(_three_requests(variant, env))
    assert result.agrees, result.disagreements
    assert result.early_states < result.whole_states


def test_it_agrees_with_request_slots_renumbered() -> None:
    """The product on the fly across edges whose key renumbers slots (L1, L2 break here)."""
    result = compare(_three_requests(V3, ("D2",)), slots=True)
    assert result.agrees, result.disagreements
    assert result.early_states < result.whole_states


def test_the_search_stops_at_the_end_of_the_breaking_level() -> None:
    config = _three_requests(V3, ("D2",))
    for prop in (by_id("H1"), by_id("L2")):
        graph, (judgement,) = _early(config, [prop], [prop], slots=False)
        assert judgement.status is Status.COUNTEREXAMPLE
        assert graph.stopped_at == len(judgement.actions)
        assert not graph.complete
        assert max(graph.depth) == graph.stopped_at  # the level numbered, none deeper
        assert len(graph.edge_start) - 1 == graph.depth.index(graph.stopped_at)


def test_an_unstoppable_property_never_stops_a_search() -> None:
    config = _three_requests(V3, ("D2",))
    assert not stoppable(config, by_id("L4"))
    with pytest.raises(ValueError, match="L4"):
        build(config, GraphOptions(max_states=LIMIT, stop_at_break=[by_id("L4")]))


# -- planted wrong stops: the comparison catches each ---------------------------------------


@pytest.mark.parametrize("prop_id", ["H1", "L2"])
def test_a_stop_one_level_early_is_caught(monkeypatch: pytest.MonkeyPatch,
                                          prop_id: str) -> None:
    """A search stopped at the end of the level before the break (on a graph with that level
    numbered, as a mid-level stop leaves it) misses the shortest counterexample."""
    config, prop = _three_requests(V3, ("D2",)), by_id(prop_id)
    graph, (right,) = _early(config, [prop], [prop], slots=False)
    assert right.status is Status.COUNTEREXAMPLE and graph.stopped_at is not None
    real, level = early_stop.BreakWatch.broken, graph.stopped_at - 1

    def a_level_early(watch: early_stop.BreakWatch, states: list[State]) -> bool:
        return watch.graph.depth[len(states) - 1] >= level or real(watch, states)

    monkeypatch.setattr(early_stop.BreakWatch, "broken", a_level_early)
    planted, (wrong,) = _early(config, [prop], [prop], slots=False)
    assert planted.stopped_at == level
    assert (wrong.status, len(wrong.actions)) != (right.status, len(right.actions))


def test_a_stop_with_an_asked_property_unbroken_is_caught() -> None:
    """Stopping once the first asked property breaks (as stopping where L4 is asked would):
    a property breaking deeper is left undecided."""
    result = compare(_three_requests(V3, ("D2",)), stop_on_first=True)
    assert not result.agrees


def test_stopping_where_l4_is_asked_is_caught() -> None:
    """L4 judged on a graph stopped at another property's break: its unexpanded last level
    looks stuck, or a cycle closing deeper is missed."""
    config = _three_requests(V3, ("D2",))
    whole = judge_all(build(config, GraphOptions(max_states=LIMIT)), only=frozenset({"L4"}))
    try:
        _, early = _early(config, [by_id("H1"), by_id("L4")], [by_id("H1")], slots=False)
    except ReplayDisagrees:
        return  # caught: the "stuck" state it reports does not break L4 on the spec
    l4 = next(j for j in early if j.property_id == "L4")
    assert (l4.status, len(l4.actions)) != (whole[0].status, len(whole[0].actions))


# -- every matrix cell and every spec mutant ------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("label", [label for label, _ in matrix_instances(None)])
def test_stopping_at_the_break_agrees_on_every_matrix_cell(label: str) -> None:
    (_, config), = matrix_instances({label})
    result = compare(config)
    assert result.agrees, (label, result.disagreements)


@pytest.mark.slow
@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_stopping_at_the_break_agrees_on_every_spec_mutant(mutant: Mutant) -> None:
    result = compare(mutant.witness_config())
    assert result.agrees, (mutant.name, result.disagreements)


# -- the product on the fly reads the search's successors -----------------------------------


def _counting_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count every application of a spec action (one entry per `Action.apply` call, on
    every action class of the spec that defines it), whoever applies it: the successor
    function, a state's regeneration, or the product stepping the spec again. A search's own
    wrapper of a spec action (`lazy_media.Decided`) is not counted: its step is the spec
    action's, counted there. The handlings a fresh request shares (`lazy_media.SharedSteps`)
    are turned off here, so that every `Decided` step runs the spec action's `apply` and is
    counted (`test_explore_lazy_media` checks that the shared parts compose that very step)."""
    monkeypatch.setattr(lazy_media.SharedSteps, "step",
                        lambda self, config, state, decided: None)
    calls: list[int] = []
    classes, seen = [Action], set()
    while classes:
        cls = classes.pop()
        classes.extend(sub for sub in cls.__subclasses__() if sub not in seen)
        seen.update(cls.__subclasses__())
        if "apply" in vars(cls) and cls.__module__.startswith("spec."):
            real = vars(cls)["apply"]

            def counted(self: Action, config: Config, state: State,
                        real: Callable[[Action, Config, State], State] = real) -> State:
                calls.append(1)
                return real(self, config, state)

            monkeypatch.setattr(cls, "apply", counted)
    return calls


def _l2_early(slots: bool) -> Graph:
    prop = by_id("L2")
    return build(_three_requests(V3, ("D2",)),
                 GraphOptions(max_states=LIMIT, forget=slots, slots=slots, checks=[],
                              stop_at_break=[prop]))


@pytest.mark.parametrize("slots", [False, True], ids=["plain", "slots"])
def test_each_edge_is_stepped_once_per_search(monkeypatch: pytest.MonkeyPatch,
                                              slots: bool) -> None:
    """With the product on the fly, the spec steps each edge the search takes once: the
    product crosses it from the successors the search computed."""
    calls = _counting_steps(monkeypatch)
    graph = _l2_early(slots)
    assert graph.stopped_at is not None and graph.steps_taken > 0
    assert sum(calls) == graph.steps_taken


def test_a_product_that_steps_again_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Known-bad: a watch that reads no edges from the search leaves the product to step the
    spec again on a graph with request slots renumbered, and the count says so."""
    calls = _counting_steps(monkeypatch)
    monkeypatch.setattr(early_stop.BreakWatch, "reads_edges", lambda watch: False)
    graph = _l2_early(slots=True)
    assert sum(calls) > graph.steps_taken


@pytest.mark.parametrize("slots", [False, True], ids=["plain", "slots"])
def test_the_product_fed_by_the_search_is_the_one_that_steps_again(
        monkeypatch: pytest.MonkeyPatch, slots: bool) -> None:
    """The same stop, states, product verdicts (paths, rid maps, premises) and judgements,
    with the search's successors handed to the product and with the product recomputing
    them; every monitored property that breaks here asked at once."""
    config = _three_requests(V3, ("D2",))
    asked = [p for p in registry() if p.id in ("L1", "L2")]

    def run() -> tuple[object, ...]:
        graph = build(config, GraphOptions(max_states=LIMIT, forget=slots, slots=slots,
                                           checks=[], stop_at_break=asked))
        verdicts = graph.early_product.verdicts()
        judged = judge_all(graph, only=frozenset(p.id for p in asked))
        return (graph.size, graph.stopped_at, list(graph.edge_target), verdicts,
                [(j.property_id, j.status, j.reason, j.actions) for j in judged])

    fed = run()
    monkeypatch.setattr(early_stop.BreakWatch, "reads_edges", lambda watch: False)
    assert run() == fed
    assert all(v.steps is not None for v in fed[3])  # type: ignore[attr-defined]


@pytest.mark.parametrize("slots", [False, True], ids=["plain", "slots"])
def test_monitors_run_on_the_fly_without_stopping_judge_as_after_the_search(
        monkeypatch: pytest.MonkeyPatch, slots: bool) -> None:
    """`GraphOptions.monitored`: the product runs as the search goes, never stops it, and
    the judge finishes it: the same graph and every judgement as the product searched after
    the whole graph, with each edge stepped once."""
    config = _three_requests(V3, ("D2",))
    monitored = [p for p in registry() if p.state_check is None and stoppable(config, p)]
    assert monitored
    calls = _counting_steps(monkeypatch)
    on_the_fly = build(config, GraphOptions(max_states=LIMIT, forget=slots, slots=slots,
                                            monitored=monitored))
    assert on_the_fly.complete and on_the_fly.stopped_at is None
    assert sum(calls) == on_the_fly.steps_taken
    after = build(config, GraphOptions(max_states=LIMIT, forget=slots, slots=slots))
    assert after.early_product is None and on_the_fly.early_product is not None
    assert list(on_the_fly.edge_target) == list(after.edge_target)

    def judged(graph: Graph) -> list[tuple[object, ...]]:
        return [(j.property_id, j.status, j.reason, j.actions) for j in judge_all(graph)]

    assert judged(on_the_fly) == judged(after)


def test_a_watch_that_never_stops_takes_no_state_property() -> None:
    """Bad input: a state property given to the monitors run on the fly."""
    config = _three_requests(V3, ("D2",))
    with pytest.raises(ValueError, match="monitors only"):
        build(config, GraphOptions(max_states=LIMIT, monitored=[by_id("H1")]))
