"""Every environment of a design's drift sources, answered per property: the minimal sets
of sources under which it breaks (each with a shortest witness), and where it holds.

The search rests on monotonicity: a design's instance for an environment has every
behaviour of its subsets' instances (`Design.instance`'s contract), so a break stands under
every environment containing its set (its witness is replayed there to confirm it), and a
complete search that finds no break under an environment settles every environment inside
it, for that rung's instance. The searches are the one lattice search's
(`explore.lattice.search`, what it reads of a design: `DesignLattice`) on the plan by sizes
(`explore.lattice.EverySize`). Witnesses found by hand on larger instances (`Explicit`) join
the breaks once they replay: each must break its property at its last step on the spec, or
the search fails before it starts (`ExplicitDoesNotReplay`, one line naming the witness). An
environment no search settled is `unknown`, never `holds`; an all-instance proof (`proofs`)
settles a property everywhere.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from model_checks.explore import lattice
from model_checks.explore.exploration import antichain_minimal, explore, replay
from model_checks.explore.judgement import JudgedInstance
from model_checks.explore.lattice import (
    BREAKS,
    HOLDS,
    UNDECIDED,
    EnvOutcome,
    EnvTask,
    EverySize,
    LatticeDesign,
    LatticeRequest,
    Proof,
)
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
                return Answer("breaks", found.instance, tuple(sorted(
                    found.environment, key=source_order)), len(found.actions))
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


@dataclass(frozen=True)
class DesignRung:
    """A rung of a design's ladder (`Design.rungs`), in its words."""

    text: str

    def words(self) -> str:
        return self.text

    def short(self) -> str:
        return self.text


@dataclass(frozen=True)
class DesignOutcome(EnvOutcome):
    """One search of a design's instance at one rung, with what it saw (`exploration`)."""

    exploration: JudgedInstance | None = None


VERDICTS = {"breaks": BREAKS, "holds": HOLDS, "unknown": UNDECIDED}


@dataclass(frozen=True)
class DesignLattice(LatticeDesign[DesignRung]):
    """A design's lattice, as the one lattice search (`explore.lattice.search`) reads it:
    its properties, one search of its instance per environment and rung, and its plan."""

    design: str
    sizes: EverySize

    def property_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in design_named(self.design).properties)

    def plan(self) -> EverySize:
        return self.sizes

    def explore(self, task: EnvTask[DesignRung]) -> EnvOutcome:
        """One search of the design's instance for the task's variant, environment and
        (first) rung."""
        started, rung = time.perf_counter(), task.first
        design, environment = design_named(self.design), frozenset(task.environment)
        found = explore(design, design.instance(task.variant, environment, rung),
                        max_states=task.max_states, environment=environment)
        verdicts = {p.id: VERDICTS[found.verdict(p.id)] for p in design.properties}
        return DesignOutcome(
            task.variant, task.environment, found.states, found.depth, found.complete,
            time.perf_counter() - started, verdicts, {}, dict.fromkeys(verdicts, rung), {},
            rung if found.complete else rung - 1, None if found.complete else rung, rung,
            (found.states,), exploration=found)


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
    """The lattice of `design`'s sources for `variant`: the one lattice search on the plan by
    sizes (`explore.lattice.EverySize`, given the explicit witnesses' breaks), seeded with
    the proofs (see the module docstring). Raises `ExplicitDoesNotReplay`, before any
    search, for an explicit witness of `options` that does not break its property."""
    explicit = explicit_breaks(design, options.explicit)  # before any search: fails first
    sources = tuple(s.id for s in design.sources)
    proofs = [Proof(variant, prop, sources, basis, "") for prop, basis in options.proofs.items()]
    proofs += [Proof(variant, prop, tuple(sorted(env)), basis, "")
               for prop, env, basis in options.restricted]
    plan = EverySize(options.sizes, tuple((b.property_id, b.environment) for b in explicit))
    known = lattice.search(LatticeRequest(
        (variant,), sources, max(options.sizes), tuple(map(DesignRung, design.rungs)),
        DesignLattice(design.name, plan), options.max_states, options.processes,
        proofs=tuple(proofs), progress=options.progress))
    result = LatticeResult(design.name, variant, sources, options.max_states,
                           tuple(options.sizes), proofs=dict(options.proofs),
                           restricted=list(options.restricted))
    breaks: dict[str, dict[SourceIds, Break]] = {p.id: {} for p in design.properties}
    for outcome in sorted(known[variant].explored, key=lambda o: o.first):  # stable
        assert isinstance(outcome, DesignOutcome) and outcome.exploration is not None
        env, rung = frozenset(outcome.environment), outcome.first
        result.explorations[(rung, env)] = outcome.exploration
        for witness in outcome.exploration.witnesses:  # the lowest rung's per environment
            breaks[witness.property_id].setdefault(env, Break(
                env, witness.property_id, witness.actions, design.rungs[rung],
                design.instance(variant, env, rung), witness.reason))
    for found in explicit:  # after the ladder's
        breaks[found.property_id].setdefault(found.environment, found)
    result.minimal = {prop: [found[env] for env in antichain_minimal(found)]
                      for prop, found in breaks.items()}
    return result


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

