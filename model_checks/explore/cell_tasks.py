"""Exploring cells: one (variant, environment) per task, judged completely, as verdict records.

A task builds one graph and judges every property on it (`explore_cell`), so the graph is
built once per cell. Tasks are pure functions of their arguments and return plain values, so
they run in any process; `run_tasks` is the one place that decides where (the shared
executor: local processes, or a Dask cluster). Results come back in submission order, so a
parallel run prints what a serial one prints.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from model_checks.executor import Task, sweep, values
from model_checks.explore.design_search import DEFAULT_MAX_STATES
from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import CI_SHAPES, Shape, describe, explore_cut
from model_checks.explore.judgement import Judgement, Status
from model_checks.explore.lru_judging.early_stop import stoppable
from model_checks.explore.lru_judging.judge import judge_all
from model_checks.explore.lru_judging.reduction.judging import judge_reduced
from model_checks.explore.lru_judging.state_checks import state_properties
from model_checks.kernel.cells import cell_label
from model_checks.kernel.instance import config_for
from model_checks.kernel.trace_file import config_to_json, trace_to_json, write_trace
from model_checks.kernel.verdict_records import EXPLORE, Verdict, VerdictRecord
from spec import Config, Variant, lemmas, registry
from spec.instances import Family

if TYPE_CHECKING:
    from model_checks.executor.cluster import DaskCluster

CHECKER = EXPLORE.record

@dataclass(frozen=True)
class CellTask:
    variant: Variant
    environment: tuple[str, ...]
    out: Path
    max_states: int = DEFAULT_MAX_STATES
    shapes: tuple[Shape, ...] = CI_SHAPES
    with_lemmas: bool = True
    por: bool = False  # partial-order reduction (`model_checks.explore.lru_judging.reduction`)
    climb: tuple[Shape, ...] = ()
    """Rungs above the first shape, each covering the one before: climbed, one at a time,
    while a property the first shape proved still holds and the state limit is not
    reached."""
    unfinished: int | None = None
    retries: int | None = None
    identities: int | None = None
    only: frozenset[str] | None = None
    """Judge only these properties and lemmas (None: every one); without partial-order
    reduction."""
    family: Family | None = None
    """A family a user named (`named_instance`): its instance, uncut, instead of the
    matrix's cut to each shape (give one shape: every shape is that instance)."""
    forget: bool = False
    """Deduplicate states with ended requests forgotten (`forgetting`; without
    partial-order reduction)."""
    slots: bool = False
    """With `forget`, the key renumbers the live requests' slots too (`slots`)."""
    stop_at_break: bool = False
    """With `only`, each of whose properties can stop a search at its break
    (`early_stop.stoppable`): stop the search at the end of the level where the last of
    them breaks (their verdicts and shortest counterexamples unchanged); only the state
    properties among them are checked as states are numbered."""

    def config(self, shape: Shape) -> Config:
        """The instance of one shape: the matrix's (`instance.config_for`) cut down
        (`explore_cut`) to the shape's bounds and the task's (`identities` the matrix's first
        ones, each at the matrix's sizes), with the task's retries; with `family`, that
        family's instance."""
        if self.family is not None:
            return config_for(self.variant, self.environment, family=self.family)
        cut = explore_cut(self.environment, shape, identities=self.identities,
                          max_in_flight=self.unfinished, retries=self.retries)
        return config_for(self.variant, self.environment, cut=cut)


@dataclass(frozen=True)
class CellOutcome:
    """What one cell's exploration found: the records, and the figures the bench quotes.
    `states` counts every graph built for the cell; `instance`, `diameter` and `config` are
    those of the last one; `complete` is true when every property was decided; `configs`
    holds, per property, the instance its record holds for."""

    variant: str
    environment: tuple[str, ...]
    instance: str
    states: int
    edges: int
    diameter: int
    complete: bool
    seconds: float
    records: tuple[VerdictRecord, ...]
    config: dict[str, Any]  # the instance, as a trace file writes a configuration
    configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    stopped_at: int | None = None
    """The depth at whose end the last graph's search stopped, every property asked broken
    (`early_stop`); None: it did not stop at a break."""


GraphBuilder = Callable[[Config, GraphOptions], Graph]
"""`build(config, options)` or a function giving the same graph (e.g. built over a
cluster: `distributed.build_distributed`)."""


def explore_cell(task: CellTask, build_graph: GraphBuilder = build) -> CellOutcome:
    """Judge every property on the task's instances, largest first, and write each
    counterexample trace. A property is decided on the first instance that decides it: a
    counterexample (shortest within that instance, even on a graph the state limit cut:
    breadth-first order puts it before every unexplored state) or, on a complete graph, a
    proof or vacuity; the next, smaller instance is tried only for what is still undecided.
    Each record names the instance, states and diameter of the graph that decided it."""
    started = time.perf_counter()
    decided: dict[str, tuple[Judgement, Config, str]] = {}
    states = edges = 0
    for shape in task.shapes:
        config = task.config(shape)
        graph, judgements, figures, extra = _judged(task, config, build_graph)
        states, edges = states + len(graph.states) + extra, edges + graph.steps_taken
        for judgement in judgements:
            known = decided.get(judgement.property_id)
            if known is None or known[0].status is Status.UNDECIDED:
                decided[judgement.property_id] = (judgement, config, figures)
        if all(j.status is not Status.UNDECIDED for j, _, _ in decided.values()):
            break
    below: dict[str, str] = {}
    for shape in task.climb:
        proved = [p for p, (j, _, _) in decided.items()
                  if j.status in (Status.PROVED, Status.VACUOUS) and p not in below]
        if not proved:
            break
        config = task.config(shape)
        graph, judgements, figures, extra = _judged(task, config, build_graph)
        states, edges = states + len(graph.states) + extra, edges + graph.steps_taken
        if not graph.complete:
            break  # the state limit: the proofs stand for the rung below
        for judgement in judgements:
            prop = judgement.property_id
            if prop not in proved:
                continue
            if judgement.status is Status.COUNTEREXAMPLE:
                below[prop] = (f"holds with {decided[prop][1].max_requests} requests "
                               f"(proved for that instance), breaks with {shape.max_requests}")
            decided[prop] = (judgement, config, figures)
    seconds = time.perf_counter() - started
    records = tuple(
        _record(task, j, describe(c), figures, seconds / len(decided),
                below.get(j.property_id, ""))
        for j, c, figures in decided.values()
    )
    complete = all(j.status is not Status.UNDECIDED for j, _, _ in decided.values())
    return CellOutcome(task.variant.name, task.environment, describe(config), states, edges,
                       graph.diameter, complete, seconds, records, config_to_json(config),
                       {p: config_to_json(c) for p, (_, c, _) in decided.items()},
                       graph.stopped_at)


def _judged(task: CellTask, config: Config, build_graph: GraphBuilder
            ) -> tuple[Graph, list[Judgement], str, int]:
    """(the graph, every property judged on it, its figures, the states of a bounded
    unreduced search that kept counterexamples shortest: 0 without partial-order
    reduction)."""
    if task.por:
        return _reduced(task, config)
    graph = build_graph(config, _options(task, config))
    figures = f"{len(graph.states)} states, diameter {graph.diameter}"
    if graph.stopped_at is not None:
        figures = (f"{len(graph.states)} states to depth {graph.stopped_at}, where the search "
                   "stopped: every property asked had broken")
    elif not graph.complete:
        figures += f" (state limit {task.max_states} reached)"
    return graph, judge_all(graph, task.with_lemmas, task.only), figures, 0


def _options(task: CellTask, config: Config) -> GraphOptions:
    """How the task's graph is searched: its state limit and keys; with `only`, only its
    state properties checked as states are numbered, and with `stop_at_break` too, the
    search stopped once they have all broken, where each of them can stop it. With request
    slots renumbered, the monitored properties' product runs on the fly
    (`GraphOptions.monitored`), reading each edge's successor from the search instead of
    stepping the spec again."""
    options = GraphOptions(max_states=task.max_states, forget=task.forget, slots=task.slots)
    asked = [p for p in (*registry(), *(lemmas() if task.with_lemmas else ()))
             if task.only is None or p.id in task.only]
    if task.slots:  # the monitors cross each edge from the search's successors
        options = replace(options, monitored=[p for p in asked if p.state_check is None
                                              and stoppable(config, p)])
    if task.only is None:
        return options
    checks = [p for p in state_properties(config, task.with_lemmas) if p.id in task.only]
    stop = (asked if task.stop_at_break and asked
            and all(stoppable(config, p) for p in asked) else [])
    return replace(options, checks=checks, stop_at_break=stop)


def _reduced(task: CellTask, config: Config) -> tuple[Graph, list[Judgement], str, int]:
    """The cell judged under partial-order reduction; its figures name the reduced graph
    (whose largest depth is not the unreduced diameter in general) and the bounded
    unreduced search that kept the counterexamples shortest."""
    reduced = judge_reduced(config, max_states=task.max_states, with_lemmas=task.with_lemmas)
    graph = reduced.graph
    figures = (f"{len(graph.states)} states under partial-order reduction, largest depth "
               f"{graph.diameter}")
    if reduced.minimising_states:
        figures += (f"; shortest counterexamples from {reduced.minimising_states} unreduced "
                    f"states to depth {reduced.minimising_depth}")
    figures += "" if graph.complete else f" (state limit {task.max_states} reached)"
    return graph, reduced.judgements, figures, reduced.minimising_states


def _record(
    task: CellTask, judgement: Judgement, instance: str, figures: str, seconds: float,
    below: str = "",
) -> VerdictRecord:
    env = tuple(task.environment)
    base = dict(checker=CHECKER, variant=task.variant.name, environment=env,
                property=judgement.property_id, seconds=round(seconds, 3))
    where = f"instance: {instance}; {figures}"
    if judgement.status is Status.COUNTEREXAMPLE:
        path = _write(task, judgement)
        lasso = ("" if judgement.cycle_from is None
                 else f"; a lasso: the cycle starts after step {judgement.cycle_from}")
        return VerdictRecord(
            **base, verdict=Verdict.COUNTEREXAMPLE, bound=len(judgement.actions),  # type: ignore[arg-type]
            bound_unit="steps", counterexample_length=len(judgement.actions),
            counterexample_path=str(path),
            detail=f"shortest counterexample: {judgement.reason}{lasso}"
                   + (f" ({below})" if below else "") + f"; {where}",
        )
    verdict, unit, said = {
        Status.PROVED: (Verdict.PROVED, "depth",
                        "proved for this instance (every reachable state judged)"),
        Status.VACUOUS: (Verdict.VACUOUS, "depth", f"vacuous: {judgement.reason}"),
        Status.UNDECIDED: (Verdict.UNKNOWN, "states", f"undecided: {judgement.reason}"),
    }[judgement.status]
    return VerdictRecord(**base, verdict=verdict, bound=None,  # type: ignore[arg-type]
                         bound_unit=unit, detail=f"{said}; {where}")


def _write(task: CellTask, judgement: Judgement) -> Path:
    assert judgement.trace is not None
    name = cell_label(task.variant.name, task.environment, judgement.property_id)
    path = task.out / f"{name}.json"
    data = trace_to_json(judgement.trace, property_id=judgement.property_id,
                         step=len(judgement.actions), reason=judgement.reason, checker=CHECKER)
    if judgement.cycle_from is not None:
        data["loop"] = judgement.cycle_from  # ITF's lasso: the state the last returns to
    write_trace(path, data)
    return path


def explore_cells(tasks: Sequence[CellTask], cluster: DaskCluster) -> list[CellOutcome]:
    """`explore_cell` for each task in turn, here, every graph built over `cluster`
    (`distributed.build_distributed`): the outcomes `run_tasks` gives, cell by cell."""
    from model_checks.explore.distributed import build_distributed

    def build_graph(config: Config, options: GraphOptions) -> Graph:
        return build_distributed(config, cluster, options)

    return [explore_cell(task, build_graph) for task in tasks]


def run_tasks(tasks: Sequence[CellTask], processes: int, dask: str | None = None
              ) -> list[CellOutcome]:
    """`explore_cell` over `tasks` through the shared executor (local processes, or the Dask
    scheduler at `dask`), results in submission order; a failed task raises `TaskFailed`."""
    labelled = [Task(cell_label(j.variant.name, j.environment), explore_cell, (j,)) for j in tasks]
    return values(sweep(labelled, dask=dask, processes=processes))
