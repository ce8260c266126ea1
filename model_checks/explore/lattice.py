"""The drift lattice: per variant and property, the minimal environments that break it.

The search is over the subsets of a set of drift sources (`sources`, default D1-D11), on the
monotone instance family of `lattice_instance` (broken under E implies broken above E;
holding under E implies holding below E). Per variant:

1. the top (every source on) is explored first: a property that holds there, on a complete
   graph, holds everywhere (one exploration);
2. then the levels bottom-up (no source, each source alone, pairs, ... up to `max_size`): an
   environment is explored only if some property is not yet decided there by monotonicity
   (broken because a subset breaks it, or holding because an explored superset holds it);
   every exploration judges every property at once (`judge.judge_all`).

Within a level the explorations are independent, so they run as one batch through the shared
executor (results in submission order: a parallel run decides what a serial one does). A
breaking environment is reported minimal only when every environment one source smaller is
known to hold (explored, or below a holding one); otherwise it is `unsettled`. An
environment no exploration decides (the state limit cut its graph, or its size is above
`max_size`) is `undecided`, and the result says how many there are and which are smallest:
`holds_everywhere` is claimed only from a complete exploration of the top, and a property's
answer is `complete` only when no environment is undecided for it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from model_checks.executor import Job, sweep, values
from model_checks.explore.graph import build
from model_checks.explore.judge import Status, judge_all
from model_checks.explore.lattice_instance import (
    LatticeShape,
    describe_family,
    drift_order,
    lattice_config,
)
from model_checks.simulate.counterexample import trace_to_json
from spec import describe_environment, environment, registry, variant_named

Env = frozenset[str]

BREAKS, HOLDS, UNDECIDED = "breaks", "holds", "undecided"


@dataclass(frozen=True)
class EnvJob:
    """One exploration: a variant under one environment of the lattice."""

    variant: str
    environment: tuple[str, ...]
    shape: LatticeShape
    max_states: int


@dataclass(frozen=True)
class EnvOutcome:
    """Per property: breaks (with the trace, in the replayable format), holds (proved or
    vacuous on a complete graph) or undecided; and the exploration's figures."""

    variant: str
    environment: tuple[str, ...]
    states: int
    diameter: int
    complete: bool
    seconds: float
    verdicts: dict[str, str]
    traces: dict[str, dict[str, Any]]


def explore_environment(job: EnvJob) -> EnvOutcome:
    """Build the environment's graph and judge every property of the registry on it."""
    started = time.perf_counter()
    config = lattice_config(variant_named(job.variant), job.environment, job.shape)
    graph = build(config, max_states=job.max_states)
    verdicts: dict[str, str] = {}
    traces: dict[str, dict[str, Any]] = {}
    for judgement in judge_all(graph, with_lemmas=False):
        prop = judgement.property_id
        if judgement.status is Status.COUNTEREXAMPLE:
            assert judgement.trace is not None
            verdicts[prop] = BREAKS
            data = trace_to_json(judgement.trace, property_id=prop,
                                 step=len(judgement.actions), reason=judgement.reason,
                                 checker="explore-lattice")
            if judgement.cycle_from is not None:
                data["#meta"]["cycle_from"] = judgement.cycle_from
            traces[prop] = data
        elif judgement.status in (Status.PROVED, Status.VACUOUS):
            verdicts[prop] = HOLDS
        else:
            verdicts[prop] = UNDECIDED
    return EnvOutcome(job.variant, job.environment, len(graph.states), graph.diameter,
                      graph.complete, time.perf_counter() - started, verdicts, traces)


@dataclass
class Knowledge:
    """What one variant's explorations established, per property: the environments that
    break it (with their outcome), those that hold it, those left undecided."""

    breaks: dict[str, dict[Env, EnvOutcome]] = field(default_factory=dict)
    holds: dict[str, list[Env]] = field(default_factory=dict)
    undecided: dict[str, list[Env]] = field(default_factory=dict)
    explored: list[EnvOutcome] = field(default_factory=list)

    def status(self, prop: str, env: Env) -> str | None:
        """BREAKS or HOLDS where monotonicity decides `env`, else None."""
        if any(b <= env for b in self.breaks.get(prop, {})):
            return BREAKS
        if any(env <= h for h in self.holds.get(prop, [])):
            return HOLDS
        return None

    def learn(self, outcome: EnvOutcome) -> None:
        self.explored.append(outcome)
        env = frozenset(outcome.environment)
        for prop, verdict in outcome.verdicts.items():
            known = self.status(prop, env)
            if known == HOLDS and verdict == BREAKS:
                raise LatticeContradiction(
                    f"{outcome.variant} {prop}: holds under {'+'.join(outcome.environment)} "
                    "by a seed or a larger holding environment, yet its exploration breaks it")
            if known is not None:
                continue
            if verdict == BREAKS:
                self.breaks.setdefault(prop, {})[env] = outcome
            elif verdict == HOLDS:
                self.holds.setdefault(prop, []).append(env)
            else:
                self.undecided.setdefault(prop, []).append(env)


class LatticeContradiction(AssertionError):
    """An exploration breaks a property that monotonicity or a seed said holds there: the
    lemma or the seed's argument is wrong; never reported as an answer."""


@dataclass(frozen=True)
class LatticeRequest:
    """What to search: variants, drift sources, the largest environment size searched
    bottom-up, the instance's bounds and the state limit per exploration."""

    variants: tuple[str, ...]
    sources: tuple[str, ...]
    max_size: int
    shape: LatticeShape = field(default_factory=LatticeShape)
    max_states: int = 30_000
    processes: int = 2
    dask: str | None = None


ONE_CONTENT = ("S1", "S4")
"""Decided without exploring: they hold in every environment without D7, where each identity
has one content (the judge calls them vacuous there for the same reason)."""


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


def seeded(sources: Sequence[str], variant: str = "V3") -> Knowledge:
    """What holds before any exploration: S1 and S4 below "every source but D7"; L1-L3
    everywhere for a variant that reports no miss."""
    knowledge = Knowledge()
    for prop in ONE_CONTENT:
        knowledge.holds[prop] = [frozenset(sources) - {"D7"}]
    for prop in NO_MISS_REPLY:
        if vacuous_reason(variant, prop):
            knowledge.holds[prop] = [frozenset(sources)]
    return knowledge


def search(request: LatticeRequest) -> dict[str, Knowledge]:
    """Per variant, what the top-first, then bottom-up search established."""
    known = {v: seeded(request.sources, v) for v in request.variants}
    top = frozenset(request.sources)
    batches: list[list[Env]] = [[top]]
    batches += [[frozenset(c) for c in itertools.combinations(request.sources, size)]
                for size in range(0, min(request.max_size, len(request.sources)) + 1)]
    for batch in batches:
        jobs = [EnvJob(v, drift_order(env), request.shape, request.max_states)
                for v in request.variants for env in batch if worth_exploring(known[v], env)]
        if not jobs:
            continue
        labelled = [Job(f"{j.variant}_{describe_environment(environment(*j.environment))}",
                        explore_environment, (j,)) for j in jobs]
        for outcome in values(sweep(labelled, dask=request.dask,
                                    processes=request.processes)):
            known[outcome.variant].learn(outcome)
    return known


def worth_exploring(known: Knowledge, env: Env) -> bool:
    """Not yet explored, some property not decided there, and no explored subset was cut by
    the state limit. (The family is monotone, so E's states embed into those of every
    superset: above a cut environment every graph is cut too, and a break found there could
    not be shown minimal, since the cut subset is not known to hold.) The top is explored
    regardless: it is the one exploration that can show a property holds everywhere."""
    ordered = drift_order(env)
    if any(o.environment == ordered for o in known.explored):
        return False
    if not any(known.status(p.id, env) is None for p in registry()):
        return False
    return not any(not o.complete and frozenset(o.environment) < env for o in known.explored)


def subsets(sources: Sequence[str]) -> Iterable[Env]:
    for size in range(len(sources) + 1):
        for combination in itertools.combinations(sources, size):
            yield frozenset(combination)


def antichain_minimal(sets: Iterable[Env]) -> list[Env]:
    """The sets with no proper subset among `sets`, smallest first, then by drift order."""
    pool = sorted(set(sets), key=_env_key)
    return [s for s in pool if not any(o < s for o in pool)]


def _env_key(env: Env) -> tuple[int, tuple[int, ...]]:
    return len(env), tuple(int(d[1:]) for d in drift_order(env))


def summarise(
    request: LatticeRequest, known: dict[str, Knowledge]
) -> list[dict[str, Any]]:
    """The lattice's JSON: one object per variant and property (see `docs/explore.md`);
    trace paths are filled in by the caller that writes the traces (`trace` keys)."""
    entries = []
    instance = describe_family(request.shape)
    for variant in request.variants:
        k = known[variant]
        for prop in (p.id for p in registry()):
            entries.append(_entry(request, k, variant, prop, instance))
    return entries


def _entry(
    request: LatticeRequest, k: Knowledge, variant: str, prop: str, instance: str
) -> dict[str, Any]:
    found = k.breaks.get(prop, {})
    undecided = [e for e in subsets(request.sources) if k.status(prop, e) is None]
    minimal: list[Env] = []
    unsettled: list[Env] = []
    for env in antichain_minimal(found):
        below = [env - {d} for d in env]
        (minimal if all(k.status(prop, b) == HOLDS for b in below) else unsettled).append(env)
    top = frozenset(request.sources)
    return {
        "variant": variant,
        "property": prop,
        "instance": instance,
        "sources": list(request.sources),
        "max_size": request.max_size,
        "max_states": request.max_states,
        "minimal_breaking": [list(drift_order(e)) for e in minimal],
        "holds_everywhere": k.status(prop, top) == HOLDS,
        "complete": not undecided,
        "undecided_count": len(undecided),
        "undecided_smallest": [list(drift_order(e)) for e in antichain_minimal(undecided)],
        "unsettled_breaking": [list(drift_order(e)) for e in unsettled],
        "traces": [
            {"drift": list(drift_order(e)),
             "steps": int(found[e].traces[prop]["#meta"]["step"]),
             "states": found[e].states,
             "trace": None}
            for e in [*minimal, *unsettled]
        ],
        "without_exploring": ("holds in every environment without D7 (one content per "
                              "identity)" if prop in ONE_CONTENT else ""),
        "vacuous": vacuous_reason(variant, prop),
        "explored_environments": len(k.explored),
        "explored_states": sum(o.states for o in k.explored),
    }


def trace_data(known: dict[str, Knowledge], variant: str, prop: str, drift: Sequence[str]
               ) -> dict[str, Any]:
    """The trace that breaks `prop` under exactly `drift` (an entry's minimal set)."""
    return known[variant].breaks[prop][frozenset(drift)].traces[prop]

