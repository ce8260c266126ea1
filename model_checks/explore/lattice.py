"""The drift lattice: per variant and property, the minimal environments that break it.

The search is over the subsets of a set of drift sources (`sources`, default D1-D11) and the
rungs of an instance ladder (`lattice_instance.ladder`), on the monotone instance family of
`lattice_instance` (broken under (E, r) implies broken above E at every rung above r; holding
under (E, r) implies holding below E at every rung below r). Per variant:

1. the top (every source on) is explored first: a property that holds there, on a complete
   graph, holds everywhere at that rung;
2. then the levels bottom-up (no source, each source alone, pairs, ... up to `max_size`): an
   environment is explored only if some property is not yet decided there at the top rung by
   monotonicity (broken because a subset breaks it at a rung at or below, or holding because
   a superset holds it at a rung at or above), or by an all-instance proof (`proofs`);
3. each exploration climbs the ladder (`explore_environment`): it starts at the lowest rung
   not yet explored for that environment and goes one rung up while some property it is
   asked about still holds, until the state limit cuts a graph or the top rung is done. A
   break is reported at the smallest rung that shows it (with the largest rung below where
   it held, if any: "holds with 2 requests, breaks with 3"); a holding property at the
   largest rung explored completely.

`legs` run one after the other, each with its largest environment size, its top rung and the
sources every environment of it must contain (the nightly profile climbs every pair with D7
one rung higher than the rest).

Within a level the explorations are independent, so they run as one batch through the shared
executor (results in submission order: a parallel run decides what a serial one does). A
breaking environment is reported minimal only when every environment one source smaller is
known to hold at the rung of the break; otherwise it is `unsettled`. An environment no
exploration decides (the state limit cut its graph at the base rung, or its size is above
`max_size`) is `undecided`, and the result says how many there are and which are smallest:
`holds_everywhere` is claimed only from a complete exploration of the top (at the rung it
names) or a proof for every instance, and a property's answer is `complete` only when no
environment is undecided for it.

This module is the search; `lattice_report` shapes what it established into the lattice's
JSON (`summarise`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from model_checks.executor import Task, sweep, values
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.judge import Status, judge_all
from model_checks.explore.lattice_instance import (
    Rung,
    drift_order,
    lattice_config,
)
from model_checks.explore.state_checks import ONE_CONTENT, state_properties
from model_checks.kernel import itf
from model_checks.kernel.trace_file import trace_to_json
from model_checks.kernel.verdict_records import EXPLORE_LATTICE
from spec import Drift, registry, variant_named
from spec.drift import Environment

Env = frozenset[str]

BREAKS, HOLDS, UNDECIDED = "breaks", "holds", "undecided"


@dataclass(frozen=True)
class EnvTask:
    """One exploration: a variant under one environment of the lattice, climbing `rungs`
    (consecutive rungs of the ladder, the first of them numbered `first`), for the
    properties `wanted` (all of them when empty)."""

    variant: str
    environment: tuple[str, ...]
    shape: Rung | tuple[Rung, ...]
    max_states: int
    first: int = 0
    wanted: tuple[str, ...] = ()

    def climb(self) -> tuple[Rung, ...]:
        return self.shape if isinstance(self.shape, tuple) else (self.shape,)


@dataclass(frozen=True)
class EnvOutcome:
    """Per property: breaks (with the trace, in the replayable format, at rung `rung[prop]`,
    the smallest that shows it, and the largest rung below where it held, `held[prop]`, -1
    if none was explored), holds (proved or vacuous on complete graphs up to rung
    `rung[prop]`) or undecided; and the exploration's figures: the states of every graph
    built, the largest rung explored completely (`reached`, -1 if none) and the rung whose
    graph the state limit cut (`cut_at`, None if none)."""

    variant: str
    environment: tuple[str, ...]
    states: int
    diameter: int
    complete: bool
    seconds: float
    verdicts: dict[str, str]
    traces: dict[str, dict[str, Any]]
    rung: dict[str, int] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=dict)
    reached: int = 0
    cut_at: int | None = None
    first: int = 0
    states_per_rung: tuple[int, ...] = ()
    cpu_seconds: float = 0.0


def explore_environment(task: EnvTask) -> EnvOutcome:
    """Climb the task's rungs: build each rung's graph and judge every property on it; go
    one rung up while the graph was complete and some wanted property still holds."""
    started = time.perf_counter()
    wanted = set(task.wanted or (p.id for p in registry()))
    verdicts: dict[str, str] = {}
    traces: dict[str, dict[str, Any]] = {}
    rungs: dict[str, int] = {}
    held: dict[str, int] = {}
    per_rung: list[int] = []
    diameter, reached, cut_at = 0, task.first - 1, None
    for number, shape in enumerate(task.climb(), start=task.first):
        config = lattice_config(variant_named(task.variant), task.environment, shape)
        checks = state_properties(config, with_lemmas=False)
        graph = build(config, GraphOptions(max_states=task.max_states, checks=checks))
        per_rung.append(len(graph.states))
        diameter = graph.diameter
        for judgement in judge_all(graph, with_lemmas=False):
            prop = judgement.property_id
            if verdicts.get(prop) in (BREAKS, UNDECIDED):
                continue  # decided at a smaller rung, or undecidable above a cut one
            if judgement.status is Status.COUNTEREXAMPLE:
                assert judgement.trace is not None
                if verdicts.get(prop) == HOLDS:
                    held[prop] = rungs[prop]
                verdicts[prop], rungs[prop] = BREAKS, number
                data = trace_to_json(judgement.trace, property_id=prop,
                                     step=len(judgement.actions), reason=judgement.reason,
                                     checker=EXPLORE_LATTICE.record)
                if judgement.cycle_from is not None:
                    data["loop"] = judgement.cycle_from  # ITF's lasso
                itf.project(data)["rung"] = shape.words()
                traces[prop] = data
            elif judgement.status in (Status.PROVED, Status.VACUOUS):
                verdicts[prop], rungs[prop] = HOLDS, number
            elif prop not in verdicts:
                verdicts[prop], rungs[prop] = UNDECIDED, number
        if not graph.complete:
            cut_at = number
            break
        reached = number
        if not any(verdicts.get(p) == HOLDS for p in wanted):
            break
    return EnvOutcome(task.variant, task.environment, sum(per_rung), diameter, cut_at is None,
                      time.perf_counter() - started, verdicts, traces, rungs, held, reached,
                      cut_at, task.first, tuple(per_rung))


ANY_RUNG = 1 << 30
"""The rung a seed or an all-instance proof holds at: every rung of every ladder."""


@dataclass
class Knowledge:
    """What one variant's explorations established, per property: the environments that
    break it (with their outcome, whose `rung` says at which rung), the largest rung at
    which each explored environment holds it, those left undecided; and per environment
    the largest rung explored completely and the rung cut by the state limit."""

    breaks: dict[str, dict[Env, EnvOutcome]] = field(default_factory=dict)
    holds: dict[str, dict[Env, int]] = field(default_factory=dict)
    undecided: dict[str, list[Env]] = field(default_factory=dict)
    explored: list[EnvOutcome] = field(default_factory=list)
    top: int = 0

    def break_rung(self, prop: str, env: Env) -> int | None:
        outcome = self.breaks.get(prop, {}).get(env)
        return None if outcome is None else outcome.rung[prop]

    def status(self, prop: str, env: Env, rung: int | None = None) -> str | None:
        """BREAKS or HOLDS where monotonicity decides `env` at `rung` (default: the top
        rung), else None."""
        rung = self.top if rung is None else rung
        if any(b <= env and o.rung[prop] <= rung for b, o in self.breaks.get(prop, {}).items()):
            return BREAKS
        if any(env <= h and r >= rung for h, r in self.holds.get(prop, {}).items()):
            return HOLDS
        return None

    def held_rung(self, prop: str, env: Env) -> int:
        """The largest rung at which `env` is known to hold `prop` (-1: none)."""
        return max((r for h, r in self.holds.get(prop, {}).items() if env <= h), default=-1)

    def reach(self, env: Env) -> tuple[int, int | None]:
        """(largest rung explored completely, rung cut by the state limit or None)."""
        mine = [o for o in self.explored if frozenset(o.environment) == env]
        reached = max((o.reached for o in mine), default=-1)
        cuts = [o.cut_at for o in mine if o.cut_at is not None]
        return reached, min(cuts) if cuts else None

    def learn(self, outcome: EnvOutcome) -> None:
        self.explored.append(outcome)
        env = frozenset(outcome.environment)
        where = Environment.of(outcome.environment).text
        for prop, verdict in outcome.verdicts.items():
            rung = outcome.rung.get(prop, outcome.first)
            known = self.status(prop, env, rung)
            if known == HOLDS and verdict == BREAKS:
                raise LatticeContradiction(
                    f"{outcome.variant} {prop}: holds under {where} at rung {rung} by a seed, "
                    "a proof or a larger holding environment, yet its exploration breaks it")
            if known == BREAKS and verdict == HOLDS:
                raise LatticeContradiction(
                    f"{outcome.variant} {prop}: a smaller environment breaks it at rung "
                    f"{rung} or below, yet the exploration of {where} holds it there")
            if verdict == BREAKS:
                if (earlier := self.break_rung(prop, env)) is None or rung < earlier:
                    self.breaks.setdefault(prop, {})[env] = outcome
                if outcome.held.get(prop, -1) >= 0:
                    self._hold(prop, env, outcome.held[prop])
            elif verdict == HOLDS:
                self._hold(prop, env, rung)
            elif known is None and self.held_rung(prop, env) < 0:
                self.undecided.setdefault(prop, []).append(env)

    def _hold(self, prop: str, env: Env, rung: int) -> None:
        table = self.holds.setdefault(prop, {})
        table[env] = max(table.get(env, -1), rung)


class LatticeContradiction(AssertionError):
    """An exploration breaks a property that monotonicity or a seed said holds there: the
    lemma or the seed's argument is wrong; never reported as an answer."""


@dataclass(frozen=True)
class Leg:
    """One pass of the search: environments of at most `max_size` sources, each containing
    `containing`, climbed up to rung number `top` of the request's ladder."""

    max_size: int
    top: int
    containing: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Proof:
    """A proof for all depths and every instance (Z3's parametric proof): `property` holds
    for `variant` under `environment` and every environment below it, at every rung."""

    variant: str
    property: str
    environment: tuple[str, ...]
    checker: str
    detail: str


@dataclass(frozen=True)
class LatticeRequest:
    """What to search: variants, drift sources, the largest environment size searched
    bottom-up, the instance ladder (rungs, each covering the one before), the state limit per
    graph; optionally more legs (`legs`, after the first: up to `max_size` at the ladder's
    top), all-instance proofs to seed the search with, and outcomes of an earlier run of the
    same ladder and limit to start from."""

    variants: tuple[str, ...]
    sources: tuple[str, ...]
    max_size: int
    ladder: tuple[Rung, ...] = (Rung(),)
    max_states: int = 30_000
    processes: int = 2
    dask: str | None = None
    legs: tuple[Leg, ...] = ()
    proofs: tuple[Proof, ...] = ()
    earlier: tuple[EnvOutcome, ...] = ()
    first_top: int | None = None
    explore: bool = True
    """False: only what the seeds, the proofs and `earlier` establish (no exploration)."""

    def plan(self) -> tuple[Leg, ...]:
        """The first leg (every environment up to `max_size`, up to rung `first_top`, by
        default the ladder's top), then `legs`."""
        top = len(self.ladder) - 1 if self.first_top is None else self.first_top
        return (Leg(self.max_size, top), *self.legs)


# `ONE_CONTENT` (from the judge): decided without exploring: they hold in every environment
# without D7, where each identity has one content (the judge calls them vacuous there).


NO_MISS_REPLY = {
    "L1": "the variant sends no miss reply (a miss crashes the engine), so P0 never takes one "
          "and no retry owes a payload",
    "L2": "the variant sends no miss reply (a miss crashes the engine), so no retry is ever "
          "answered with a miss",
    "L3": "a miss crashes the engine (V0's assertion; the fault is absorbing), so no retry is "
          "ever delivered after a miss",
}
"""Decided without exploring, for a variant whose P1 does not report misses
(`Variant.reports_misses` false: V0): L1-L3 are about what follows a reported miss, and
none ever is, in any environment. Every exploration of such a variant still judges them, and
a break there would contradict the seed (`LatticeContradiction`); the judge calls L1 and L2
vacuous on every complete graph (`tests/explore/test_lattice.py`)."""


def vacuous_reason(variant: str, prop: str) -> str:
    """Why `prop` cannot fail for `variant` under any environment, or "" if it can."""
    if not variant_named(variant).reports_misses:
        return NO_MISS_REPLY.get(prop, "")
    return ""


def seeded(sources: Sequence[str], variant: str = "V3", top: int = 0) -> Knowledge:
    """What holds before any exploration, at every rung: S1 and S4 below "every source but
    those giving an identity a second content" (D7, `Needs.versions`); L1-L3 everywhere for
    a variant that reports no miss."""
    knowledge = Knowledge(top=top)
    reusing = {d.value for d in Drift if d.needs.versions > 1}
    for prop in ONE_CONTENT:
        knowledge.holds[prop] = {frozenset(sources) - reusing: ANY_RUNG}
    for prop in NO_MISS_REPLY:
        if vacuous_reason(variant, prop):
            knowledge.holds[prop] = {frozenset(sources): ANY_RUNG}
    return knowledge


def search(request: LatticeRequest,
           checkpoint: Callable[[dict[str, Knowledge]], None] | None = None,
           ) -> dict[str, Knowledge]:
    """Per variant, what the top-first, then bottom-up, climbing search established (seeded
    with the request's all-instance proofs and, when given, earlier outcomes); `checkpoint`
    is called after every batch."""
    top = len(request.ladder) - 1
    known = {v: seeded(request.sources, v, top) for v in request.variants}
    for proof in request.proofs:
        if proof.variant in known:
            known[proof.variant].holds.setdefault(proof.property, {})[
                frozenset(proof.environment)] = ANY_RUNG
    for outcome in request.earlier:
        if outcome.variant in known:
            known[outcome.variant].learn(outcome)
    for number, leg in enumerate(request.plan() if request.explore else ()):
        batches: list[list[Env]] = [[frozenset(request.sources)]] if number == 0 else []
        batches += [[frozenset(c) for c in itertools.combinations(request.sources, size)
                     if leg.containing <= frozenset(c)]
                    for size in range(0, min(leg.max_size, len(request.sources)) + 1)]
        for batch in batches:
            tasks = [task for v in request.variants for env in batch
                    if (task := next_task(known[v], v, env, request, leg.top)) is not None]
            if not tasks:
                continue
            labelled = [Task(f"{j.variant}_{Environment.of(j.environment).text}",
                            explore_environment, (j,)) for j in tasks]
            # the batch's tasks are fixed before any of them is learnt, so running it in
            # chunks (to keep outcomes as they come) decides what one sweep decides
            chunk = max(1, CHUNK * request.processes)
            for start in range(0, len(labelled), chunk):
                results = sweep(labelled[start:start + chunk], dask=request.dask,
                                processes=request.processes)
                for done, outcome in zip(results, values(results), strict=True):
                    cpu = getattr(done, "cpu_seconds", 0.0)
                    known[outcome.variant].learn(replace(outcome, cpu_seconds=cpu))
                if checkpoint is not None:
                    checkpoint(known)
    return known


CHUNK = 4
"""Jobs per process between two checkpoints of a search."""


def next_task(known: Knowledge, variant: str, env: Env, request: LatticeRequest,
             top: int) -> EnvTask | None:
    """The climb still worth making for `env` up to rung `top`, or None: the properties not
    yet decided there at `top` by monotonicity; starting above the largest rung already
    explored completely; never at or above a rung whose graph the state limit cut, for `env`
    or an explored subset (its states embed into `env`'s, so that graph is cut too, and a
    break found there could not be shown minimal)."""
    wanted = tuple(p.id for p in registry() if known.status(p.id, env, top) is None)
    if not wanted:
        return None
    reached, cut = known.reach(env)
    start = reached + 1
    cap = top if cut is None else min(top, cut - 1)
    if env != frozenset(request.sources):
        for o in known.explored:
            if o.cut_at is not None and frozenset(o.environment) < env:
                cap = min(cap, o.cut_at - 1)
    if start > cap:
        return None
    return EnvTask(variant, drift_order(env), request.ladder[start:cap + 1], request.max_states,
                  start, wanted)


def subsets(sources: Sequence[str]) -> Iterable[Env]:
    for size in range(len(sources) + 1):
        for combination in itertools.combinations(sources, size):
            yield frozenset(combination)
