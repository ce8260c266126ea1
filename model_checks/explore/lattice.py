"""The drift lattice: per variant and property, the minimal environments that break it.

The search is over the subsets of a design's drift sources (`sources`) and the rungs of an
instance ladder, on a monotone instance family (broken under (E, r) implies broken above E at
every rung above r; holding under (E, r) implies holding below E at every rung below r). What
it reads of the design is a `LatticeDesign`: its property ids, its plan (which explorations,
in which order), how one environment climbs the ladder (`LatticeDesign.explore`, run on the
shared executor) and what holds before any exploration (`LatticeDesign.seeds`). Two plans:
`EverySize` (the designs' of spec/designs, `designs.lattice`: every environment up to a size
per rung, then the largest environments avoiding each property's breaks) and `climb` (the LRU
design's, `lattice_lru.LRU_LATTICE`, over its family and ladder), per variant:

1. the top (every source on) is explored first: a property that holds there, on a complete
   graph, holds everywhere at that rung;
2. then the levels bottom-up (no source, each source alone, pairs, ... up to `max_size`): an
   environment is explored only if some property is not yet decided there at the top rung by
   monotonicity (broken because a subset breaks it at a rung at or below, or holding because
   a superset holds it at a rung at or above), or by an all-instance proof (`proofs`);
3. each exploration climbs the ladder (`LatticeDesign.explore`): it starts at the lowest rung
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

This module is the search, over any design; `lattice_report` shapes what it established into
the lattice's JSON (`summarise`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, TypeVar

from model_checks.executor import Done, Task, sweep, values
from model_checks.explore.exploration import subsets
from spec.drift import Environment, drift_order

Env = frozenset[str]

BREAKS, HOLDS, UNDECIDED = "breaks", "holds", "undecided"


class Rung(Protocol):
    """A rung of a design's instance ladder, as the search and its report say it."""

    def words(self) -> str:
        """The rung in a few words ("3 requests (2 unfinished), 2 retries, ...")."""
        ...

    def short(self) -> str:
        """The rung in the words of "holds with 2 requests, breaks with 3"."""
        ...


R = TypeVar("R", bound=Rung)


@dataclass(frozen=True)
class EnvTask(Generic[R]):
    """One exploration: a variant under one environment of the lattice, climbing `rungs`
    (consecutive rungs of the ladder, the first of them numbered `first`), for the
    properties `wanted` (all of them when empty)."""

    variant: str
    environment: tuple[str, ...]
    shape: R | tuple[R, ...]
    max_states: int
    first: int = 0
    wanted: tuple[str, ...] = ()

    def climb(self) -> tuple[R, ...]:
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


class LatticeDesign(Protocol[R]):
    """What the search reads of one design, declared by the design's lattice (the LRU
    design's: `lattice_lru.LRU_LATTICE`). Picklable: the executor's workers receive it
    with each exploration."""

    def property_ids(self) -> tuple[str, ...]:
        """The properties every exploration judges, in report order."""
        ...

    def explore(self, task: EnvTask[R]) -> EnvOutcome:
        """Climb the task's rungs under its environment (the module docstring, step 3)."""
        ...

    def plan(self) -> Plan[R]:
        """Which explorations the search makes, in which order (`Plan`)."""
        ...

    def seeds(self, sources: Sequence[str], variant: str) -> Mapping[str, Env]:
        """Property -> the largest environment of `sources` under which it holds for
        `variant` at every rung before any exploration (each exploration still judges it: a
        break there is a `LatticeContradiction`); by default none."""
        return {}

    def family_words(self, ladder: tuple[R, ...], sources: Sequence[str]) -> str:
        """The instance family the ladder climbs, in words (default: the base rung's)."""
        return ladder[0].words()

    def without_exploring(self, prop: str) -> str:
        """Where `prop` holds without exploring, whatever the variant ("": none, the default)."""
        return ""

    def vacuous(self, variant: str, prop: str) -> str:
        """Why `prop` cannot fail for `variant` in any environment ("": it can, the default)."""
        return ""


@dataclass(frozen=True)
class LatticeRequest(Generic[R]):
    """What to search: the design's lattice (`design`), variants, drift sources, the largest
    environment size searched bottom-up, the instance ladder (rungs, each covering the one
    before), the state limit per graph; optionally more legs (`legs`, after the first: up to
    `max_size` at the ladder's top), all-instance proofs to seed the search with, and
    outcomes of an earlier run of the same ladder and limit to start from."""

    variants: tuple[str, ...]
    sources: tuple[str, ...]
    max_size: int
    ladder: tuple[R, ...]
    design: LatticeDesign[R]
    max_states: int = 30_000
    processes: int = 2
    dask: str | None = None
    legs: tuple[Leg, ...] = ()
    proofs: tuple[Proof, ...] = ()
    earlier: tuple[EnvOutcome, ...] = ()
    first_top: int | None = None
    explore: bool = True
    """False: only what the seeds, the proofs and `earlier` establish (no exploration)."""
    progress: str | None = None
    """The title of a line per finished exploration (`executor.LineProgress`; None: silent)."""

    def legs_in_order(self) -> tuple[Leg, ...]:
        """The first leg (every environment up to `max_size`, up to rung `first_top`, by
        default the ladder's top), then `legs`."""
        top = len(self.ladder) - 1 if self.first_top is None else self.first_top
        return (Leg(self.max_size, top), *self.legs)


Plan = Callable[[LatticeRequest[R], dict[str, Knowledge]], Iterator[list[EnvTask[R]]]]
"""Which explorations a search makes, in which order (a design's choice, `LatticeDesign.plan`:
`climb` or `EverySize`): batches of explorations independent of one another, each asked for
once every batch before it is learnt into the knowledge given."""


def seeded(design: LatticeDesign[Any], sources: Sequence[str], variant: str,
           top: int = 0) -> Knowledge:
    """What holds before any exploration, at every rung: the design's seeds
    (`LatticeDesign.seeds`)."""
    knowledge = Knowledge(top=top)
    for prop, env in design.seeds(sources, variant).items():
        knowledge.holds[prop] = {env: ANY_RUNG}
    return knowledge


def explore_task(design: LatticeDesign[R], task: EnvTask[R]) -> EnvOutcome:
    """One exploration on a worker: `design.explore(task)`."""
    return design.explore(task)


def search(request: LatticeRequest[R],
           checkpoint: Callable[[dict[str, Knowledge]], None] | None = None,
           ) -> dict[str, Knowledge]:
    """Per variant, what the design's plan (`LatticeDesign.plan`) established, seeded with the
    design's seeds, the request's all-instance proofs and, when given, earlier outcomes; each
    batch the plan asks for is learnt before it asks for the next. `checkpoint` is called
    after every chunk of a batch (it is run in chunks then, which decides what one run
    decides: the batch is fixed before any of it is learnt)."""
    known = {v: seeded(request.design, request.sources, v, len(request.ladder) - 1)
             for v in request.variants}
    for proof in request.proofs:
        if proof.variant in known:
            known[proof.variant].holds.setdefault(proof.property, {})[
                frozenset(proof.environment)] = ANY_RUNG
    for outcome in request.earlier:
        if outcome.variant in known:
            known[outcome.variant].learn(outcome)
    for tasks in request.design.plan()(request, known) if request.explore else ():
        labelled = [Task(f"{j.variant} rung {j.first} {Environment.of(j.environment).text}",
                         explore_task, (request.design, j)) for j in tasks]
        chunk = max(1, CHUNK * request.processes) if checkpoint else max(1, len(labelled))
        for start in range(0, max(1, len(labelled)), chunk):  # an empty batch said too
            results = sweep(labelled[start:start + chunk], dask=request.dask,
                            processes=request.processes, title=request.progress,
                            describe=_outcome_line)
            for done, outcome in zip(results, values(results), strict=True):
                known[outcome.variant].learn(replace(outcome, cpu_seconds=done.cpu_seconds))
            if checkpoint is not None:
                checkpoint(known)
    return known


def _outcome_line(done: Done[EnvOutcome]) -> str:
    """A finished exploration in one line: "rung 0 D1: 1,234 states (cut)"."""
    found = done.value
    return (f"rung {found.first} {Environment.of(found.environment).text}: "
            f"{found.states:,} states{'' if found.complete else ' (cut)'}")


CHUNK = 4
"""Explorations per process between two checkpoints of a search."""


def climb(request: LatticeRequest[R], known: dict[str, Knowledge]
          ) -> Iterator[list[EnvTask[R]]]:
    """The climbing plan (the module docstring, steps 1-3): the top first, then the levels
    bottom-up, each environment climbing the ladder while a property it is asked about is
    undecided, leg by leg (`LatticeRequest.legs_in_order`)."""
    for number, leg in enumerate(request.legs_in_order()):
        batches: list[list[Env]] = [[frozenset(request.sources)]] if number == 0 else []
        level = subsets(request.sources, leg.max_size)
        batches += [[env for env in level if len(env) == size and leg.containing <= env]
                    for size in range(min(leg.max_size, len(request.sources)) + 1)]
        for batch in batches:
            tasks = [task for v in request.variants for env in batch
                     if (task := next_task(known[v], v, env, request, leg.top)) is not None]
            if tasks:
                yield tasks


@dataclass(frozen=True)
class EverySize:
    """The plan by sizes: at rung r, every environment of at most `sizes[r]` sources; then at
    rung 0, per property not proved under every source, the largest environments not yet
    explored there containing none of its breaks (explored, or `given`: (property,
    environment)), where a complete search settles every environment inside."""

    sizes: tuple[int, ...]
    given: tuple[tuple[str, Env], ...] = ()

    def __call__(self, request: LatticeRequest[R], known: dict[str, Knowledge]
                 ) -> Iterator[list[EnvTask[R]]]:
        yield [self.task(request, v, env, rung) for v in request.variants
               for rung, size in enumerate(self.sizes) for env in subsets(request.sources, size)]
        top = frozenset(request.sources)
        for v, k in known.items():
            done = {frozenset(o.environment) for o in k.explored if o.first == 0}
            avoiding = {env for prop in request.design.property_ids()
                        if k.holds.get(prop, {}).get(top, -1) < ANY_RUNG
                        for env in largest_avoiding(request.sources, [
                            *k.breaks.get(prop, {}),
                            *(e for p, e in self.given if p == prop)])}
            yield [self.task(request, v, env, 0) for env in
                   sorted(avoiding - done, key=lambda e: Environment.of(e).text)]

    @staticmethod
    def task(request: LatticeRequest[R], variant: str, env: Env, rung: int) -> EnvTask[R]:
        return EnvTask(variant, tuple(sorted(env)), request.ladder[rung], request.max_states,
                       rung)


def largest_avoiding(sources: Sequence[str], breaking: Sequence[Env]) -> list[Env]:
    """The largest environments of `sources` that contain none of `breaking`."""
    candidates = [frozenset(sources)]
    for blocked in breaking:
        grown: list[Env] = []
        for env in candidates:
            if not blocked <= env:
                grown.append(env)
                continue
            grown += [env - {source} for source in blocked]
        candidates = [e for e in set(grown) if not any(e < o for o in grown)]
    return sorted(set(candidates), key=lambda e: Environment.of(e).text)

def next_task(known: Knowledge, variant: str, env: Env, request: LatticeRequest[R],
              top: int) -> EnvTask[R] | None:
    """The climb still worth making for `env` up to rung `top`, or None: the properties not
    yet decided there at `top` by monotonicity; starting above the largest rung already
    explored completely; never at or above a rung whose graph the state limit cut, for `env`
    or an explored subset (its states embed into `env`'s, so that graph is cut too, and a
    break found there could not be shown minimal)."""
    wanted = tuple(p for p in request.design.property_ids()
                   if known.status(p, env, top) is None)
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
    return EnvTask(variant, drift_order(env), request.ladder[start:cap + 1],
                   request.max_states, start, wanted)
