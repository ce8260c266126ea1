"""Every environment of a design's drift sources, answered per property: the minimal sets
of sources under which it breaks (each with a shortest witness), and where it holds.

The search rests on monotonicity: a design's instance for an environment has every
behaviour of its subsets' instances (`Design.instance`'s contract), so a break stands under
every environment containing its set (its witness is replayed there to confirm it), and a
complete search that finds no break under an environment settles every environment inside
it, for that rung's instance. At each rung of the design's ladder it explores every
environment of at most that rung's size; at the base rung it then explores, per property,
the largest environments that contain none of its breaking sets, where a complete search
settles the rest. Witnesses found by hand on larger instances (`Explicit`) join the breaks
once they replay: each must break its property at its last step on the spec, or the search
fails before it starts (`ExplicitDoesNotReplay`, one line naming the witness). An
environment no search settled is `unknown`, never `holds`; an all-instance proof (`proofs`)
settles a property everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from model_checks.executor import Done, LineProgress, Task, backend_for, run, values
from model_checks.explore.exploration import antichain_minimal, explore, replay, subsets
from model_checks.explore.judgement import JudgedInstance
from spec.designs import design_named
from spec.designs.base import Design, source_order
from spec.drift import Environment

SourceIds = frozenset[str]


@dataclass(frozen=True)
class Explicit:
    """A witness found outside the ladder: its environment, property, the instance it runs
    on (its configuration and that instance in words) and its actions."""

    environment: SourceIds
    property_id: str
    config: Any
    instance: str
    actions: tuple[Any, ...]


class ExplicitDoesNotReplay(Exception):
    """An explicit witness whose replay on the spec does not break its property at its last
    step (a step not enabled, a configuration not valid, a property the design lacks, or a
    last state that holds): it cannot join the breaks, so the lattice given it fails."""

    def __init__(self, witness: Explicit, detail: str) -> None:
        self.witness, self.detail = witness, detail
        super().__init__(self.line())

    def line(self) -> str:
        """One line: the witness (property, environment, instance, length) and what happened."""
        witness = self.witness
        return (f"explicit witness of {witness.property_id} under "
                f"{Environment.of(witness.environment).text} ({witness.instance}, "
                f"{len(witness.actions)} steps) does not replay: {self.detail}")


@dataclass(frozen=True)
class Answer:
    """One property under one environment: 'breaks', 'holds' or 'unknown'; for a break the
    minimal set, the witness's length and the instance it ran on; for a hold what settled
    it (a proof, or the complete search of an environment at a rung)."""

    verdict: str
    basis: str
    breaking_set: tuple[str, ...] = ()
    steps: int = 0


@dataclass(frozen=True)
class Break:
    environment: SourceIds
    property_id: str
    actions: tuple[Any, ...]
    instance: str
    config: Any
    reason: str


@dataclass
class LatticeResult:
    design: str
    variant: str
    sources: tuple[str, ...]
    max_states: int
    sizes: tuple[int, ...]
    explorations: dict[tuple[int, SourceIds], JudgedInstance] = field(default_factory=dict)
    minimal: dict[str, list[Break]] = field(default_factory=dict)
    proofs: dict[str, str] = field(default_factory=dict)
    restricted: list[tuple[str, SourceIds, str]] = field(default_factory=list)
    """All-instance proofs of a property under every environment inside a given one:
    (property, the largest environment covered, what proved it)."""

    def answer(self, environment: SourceIds, property_id: str) -> Answer:
        if property_id in self.proofs:
            return Answer("holds", self.proofs[property_id])
        for prop, covered, basis in self.restricted:
            if prop == property_id and environment <= covered:
                return Answer("holds", basis)
        for found in self.minimal.get(property_id, []):
            if found.environment <= environment and self.replays(found, environment):
                return Answer("breaks", found.instance, _ids(found.environment),
                              len(found.actions))
        for rung in reversed(range(len(self.sizes))):
            for (at, explored), search in self.explorations.items():
                if at == rung and environment <= explored and search.complete \
                        and search.verdict(property_id) == "holds":
                    return Answer("holds", f"{self.rung_words(rung)}: search of "
                                  f"{Environment.of(explored).text}")
        return Answer("unknown", "no complete search covers it")

    def rung_words(self, rung: int) -> str:
        return design_named(self.design).rungs[rung]

    def replays(self, found: Break, environment: SourceIds) -> bool:
        """True when `found`'s witness runs on `environment`'s version of its instance and
        breaks its property there too (what lets a break stand under a larger environment)."""
        design = design_named(self.design)
        config = dataclasses.replace(found.config, environment=environment)
        prop = next(p for p in design.properties if p.id == found.property_id)
        try:
            return bool(replay(design, config, found.actions, prop))
        except ValueError:  # a step not enabled there, or a configuration not valid there
            return False


def _ids(environment: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(environment, key=source_order))


def search_at(design_name: str, variant: str, sources: tuple[str, ...], rung: int,
              max_states: int) -> tuple[int, JudgedInstance]:
    """One search of the lattice, as the executor runs it: the design's instance for
    `variant` under the environment of `sources` at `rung`; with the rung."""
    design = design_named(design_name)
    environment = frozenset(sources)
    config = design.instance(variant, environment, rung)
    return rung, explore(design, config, max_states=max_states, environment=environment)


@dataclass(frozen=True)
class LatticeOptions:
    """How far a lattice searches and what settles answers beyond it: `sizes[r]`, the most
    sources per environment at rung r; `max_states` per search (a resource limit); the
    processes it runs on; all-instance proofs (property -> what proved it), proofs
    restricted to the environments inside one, and explicit witnesses; the title of a
    progress line per finished search (`executor.LineProgress`; None: silent)."""

    sizes: tuple[int, ...] = (1,)
    max_states: int = 2_000_000
    processes: int = 1
    proofs: Mapping[str, str] = field(default_factory=dict)
    restricted: tuple[tuple[str, SourceIds, str], ...] = ()
    explicit: tuple[Explicit, ...] = ()
    progress: str | None = None


def search(design: Design, variant: str, options: LatticeOptions = LatticeOptions()
           ) -> LatticeResult:
    """The lattice of `design`'s sources for `variant`: at rung r, every environment of at
    most `options.sizes[r]` sources; at rung 0 also the largest environments avoiding each
    property's breaks (see the module docstring). Raises `ExplicitDoesNotReplay`, before any
    search, for an explicit witness of `options` that does not break its property."""
    sizes, processes, progress = options.sizes, options.processes, options.progress
    explicit = explicit_breaks(design, options.explicit)  # before any search: fails first
    sources = tuple(s.id for s in design.sources)
    result = LatticeResult(design.name, variant, sources, options.max_states, tuple(sizes),
                           proofs=dict(options.proofs), restricted=list(options.restricted))
    wanted = [(rung, env) for rung, size in enumerate(sizes) for env in subsets(sources, size)]
    _run(design, variant, wanted, result, processes, progress)
    _settle_minimal(design, result, explicit)
    avoiding = {(0, env) for prop in design.properties if prop.id not in result.proofs
                for env in _largest_avoiding(sources, [b.environment for b in
                                                       result.minimal[prop.id]])}
    _run(design, variant, sorted(avoiding - set(result.explorations),
                                 key=lambda j: Environment.of(j[1]).text),
         result, processes, progress)
    _settle_minimal(design, result, explicit)
    return result


def _run(design: Design, variant: str, wanted: list[tuple[int, SourceIds]],
         result: LatticeResult, processes: int, progress: str | None) -> None:
    """The searches `wanted` (rung, environment) on the one executor's local processes,
    each kept in `result` (in the order asked)."""
    tasks = [Task(f"rung {rung} {Environment.of(env).text}", search_at,
                  (design.name, variant, tuple(sorted(env)), rung, result.max_states))
             for rung, env in wanted]
    backend = backend_for(None, processes)
    try:
        lines = None if progress is None else LineProgress(progress, describe=_search_line)
        found = values(run(tasks, backend, lines))
    finally:
        backend.close()
    for rung, exploration in found:
        result.explorations[(rung, exploration.environment)] = exploration


def _search_line(done: Done[tuple[int, JudgedInstance]]) -> str:
    """A finished search in one line: "rung 0 D1: 1,234 states (cut)"."""
    rung, found = done.value
    return (f"rung {rung} {Environment.of(found.environment).text}: {found.states:,} states"
            f"{'' if found.complete else ' (cut)'}")


def explicit_breaks(design: Design, explicit: Sequence[Explicit]) -> list[Break]:
    """Each of `explicit` as a break of `design`, its reason the one its replay on the spec
    (`exploration.replay`) gives at its last step; raises `ExplicitDoesNotReplay` for the
    first that breaks nothing there."""
    found = []
    for witness in explicit:
        prop = next((p for p in design.properties if p.id == witness.property_id), None)
        if prop is None:
            raise ExplicitDoesNotReplay(witness, f"{design.name} has no property "
                                        f"{witness.property_id}")
        try:
            reasons = replay(design, witness.config, witness.actions, prop)
        except ValueError as error:  # a step not enabled, or a configuration not valid
            raise ExplicitDoesNotReplay(witness, str(error)) from None
        if not reasons:
            raise ExplicitDoesNotReplay(witness, f"its last state does not break "
                                        f"{prop.id}")
        found.append(Break(witness.environment, prop.id, witness.actions, witness.instance,
                           witness.config, "; ".join(reasons)))
    return found


def _settle_minimal(design: Design, result: LatticeResult, explicit: Sequence[Break]
                    ) -> None:
    """Per property, the breaks under no smaller breaking environment, smallest set first
    and, per set, the lowest rung's (the explicit witnesses' after the ladder's)."""
    for prop in design.properties:
        breaks = _ladder_breaks(design, result, prop.id) + [
            found for found in explicit if found.property_id == prop.id]
        result.minimal[prop.id] = [next(b for b in breaks if b.environment == env)
                                   for env in antichain_minimal(b.environment for b in breaks)]


def _ladder_breaks(design: Design, result: LatticeResult, property_id: str) -> list[Break]:
    found = []
    for (rung, env), search in sorted(result.explorations.items(),
                                      key=lambda item: (item[0][0],
                                                        Environment.of(item[0][1]).text)):
        witness = search.witness(property_id)
        if witness is not None:
            config = design.instance(result.variant, env, rung)
            found.append(Break(env, property_id, witness.actions,
                               design.rungs[rung], config, witness.reason))
    return found


def _largest_avoiding(sources: tuple[str, ...], breaking: list[SourceIds]
                      ) -> list[SourceIds]:
    """The largest environments of `sources` that contain none of `breaking`."""
    candidates = [frozenset(sources)]
    for blocked in breaking:
        grown: list[SourceIds] = []
        for env in candidates:
            if not blocked <= env:
                grown.append(env)
                continue
            grown += [env - {source} for source in blocked]
        candidates = [e for e in set(grown) if not any(e < o for o in grown)]
    return sorted(set(candidates), key=lambda e: Environment.of(e).text)
