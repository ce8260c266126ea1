"""The drift lattice's report: its JSON, one object per variant and property.

`lattice.search` establishes what the explorations show (`Knowledge`); this module shapes
it, with every other checker's replayed breaks (`Break`), into the entries the lattice
command writes and `python -m model_checks docs` renders (`docs/explore.md`, "The drift
lattice"): the minimal breaking environments (settled or not) with their shortest witness
over every checker, how far each property holds, and what is left undecided.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from model_checks.explore.exploration import antichain_minimal, subsets
from model_checks.explore.lattice import (
    ANY_RUNG,
    HOLDS,
    Env,
    EnvOutcome,
    Knowledge,
    LatticeRequest,
    R,
)
from model_checks.kernel import itf
from model_checks.kernel.verdict_records import EXPLORE_LATTICE
from spec.drift import drift_order


@dataclass(frozen=True)
class Break:
    """A break another checker found (Z3, Hypothesis, the per-cell explorer, a pair cell's
    witness, a scenario), replayed on the spec under its own configuration: evidence that
    `property` breaks under `environment` and every environment above it (the trace's actions
    replay with every source added: `lattice_lru.replayed_break` checks that before it makes
    one), in the checker's instance, which need not be a rung of the ladder."""

    variant: str
    property: str
    environment: tuple[str, ...]
    checker: str
    instance: str
    steps: int
    trace: dict[str, Any]
    source: str
    found_by: tuple[str, ...] = ()
    """Every checker with a counterexample record pointing at this trace (the trace file of
    a cell is the shortest across its checkers)."""


def summarise(
    request: LatticeRequest[R], known: dict[str, Knowledge], evidence: Sequence[Break] = ()
) -> list[dict[str, Any]]:
    """The lattice's JSON: one object per variant and property (see `docs/explore.md`);
    minimal sets over the explorations and every other checker's replayed breaks; trace
    paths are filled in by the caller that writes the traces (`trace` keys)."""
    entries = []
    instance = request.design.family_words(request.ladder, request.sources)
    for variant in request.variants:
        k = known[variant]
        for prop in request.design.property_ids():
            found = [b for b in evidence if (b.variant, b.property) == (variant, prop)]
            entries.append(_entry(request, k, variant, prop, instance, found))
    return entries


def _words(request: LatticeRequest[R], rung: int) -> str | None:
    if rung < 0:
        return None
    if rung >= ANY_RUNG:
        return "every instance"
    return request.ladder[min(rung, len(request.ladder) - 1)].words()


def _entry(
    request: LatticeRequest[R], k: Knowledge, variant: str, prop: str, instance: str,
    evidence: Sequence[Break] = (),
) -> dict[str, Any]:
    found = k.breaks.get(prop, {})
    others: dict[Env, list[Break]] = {}
    for b in evidence:
        others.setdefault(frozenset(b.environment), []).append(b)
    undecided = [e for e in subsets(request.sources)
                 if k.status(prop, e, 0) is None
                 and not any(o <= e for o in others)]
    minimal: list[Env] = []
    unsettled: list[Env] = []
    witnesses = []
    for env in antichain_minimal([*found, *others]):
        rung = k.break_rung(prop, env)
        at = 0 if rung is None else rung
        below = [env - {d} for d in env]
        settled = all(k.status(prop, b, at) == HOLDS for b in below)
        (minimal if settled else unsettled).append(env)
        witnesses.append(_witness(request, k, prop, env, found.get(env), others.get(env, [])))
    top = frozenset(request.sources)
    proved = any(r >= ANY_RUNG and top <= h for h, r in k.holds.get(prop, {}).items())
    top_reached, top_cut = k.reach(top)
    held_top = k.held_rung(prop, top)
    everywhere = k.status(prop, top, 0) == HOLDS and not found and not others
    holding = [k.held_rung(prop, e) for e in subsets(request.sources)
               if len(e) <= request.max_size and k.status(prop, e, 0) == HOLDS]
    return {
        "variant": variant,
        "property": prop,
        "instance": instance,
        "ladder": [r.words() for r in request.ladder],
        "sources": list(request.sources),
        "max_size": request.max_size,
        "max_states": request.max_states,
        "minimal_breaking": [list(drift_order(e)) for e in minimal],
        "holds_everywhere": everywhere,
        "holds_everywhere_rung": (_words(request, held_top) if everywhere else None),
        "proved_every_instance": proved and not found and not others,
        "proved_by": sorted({p.checker for p in request.proofs if p.variant == variant
                             and p.property == prop and top <= frozenset(p.environment)}),
        "top_reached": _words(request, top_reached),
        "top_cut": _words(request, top_cut) if top_cut is not None else None,
        "holds_up_to": _words(request, min(holding)) if holding and not minimal
        and not unsettled else None,
        "complete": not undecided,
        "undecided_count": len(undecided),
        "undecided_in_scope": sum(len(e) <= request.max_size for e in undecided),
        "undecided_smallest": [list(drift_order(e)) for e in antichain_minimal(undecided)],
        "unsettled_breaking": [list(drift_order(e)) for e in unsettled],
        "traces": witnesses,
        "without_exploring": request.design.without_exploring(prop),
        "vacuous": request.design.vacuous(variant, prop),
        "explored_environments": len(k.explored),
        "explored_states": sum(o.states for o in k.explored),
    }


def _witness(request: LatticeRequest[R], k: Knowledge, prop: str, env: Env,
             outcome: EnvOutcome | None, others: Sequence[Break]) -> dict[str, Any]:
    """The shortest replayed trace for `env` over the explorer's and every other checker's,
    with the checker, the rung or instance, and where the explorer held it below."""
    held = k.held_rung(prop, env)
    steps, rank, best = min(_candidates(request, prop, outcome, others),
                            key=lambda c: (c[0], c[1]))
    # the rung of this run's own break, when that is the trace shown (another checker's
    # shorter trace is of its own instance, which `best` names)
    rung = None if outcome is None or rank else outcome.rung[prop]
    return {
        "drift": list(drift_order(env)),
        "steps": steps,
        **best,
        "rung": None if rung is None else _words(request, rung),
        "rung_short": None if rung is None else request.ladder[rung].short(),
        "held_short": _held_short(request, held, rung),
        "held_below": _held_below(request, held, rung),
        "found_by": _found_by(outcome, others),
        "trace": None,
    }


def _candidates(request: LatticeRequest[R], prop: str, outcome: EnvOutcome | None,
                others: Sequence[Break]) -> list[tuple[int, int, dict[str, Any]]]:
    """Every witness of one break as (steps, rank, fields): this run's explorer first (rank
    0), then the other checkers' breaks by steps, checker and source."""
    candidates: list[tuple[int, int, dict[str, Any]]] = []
    if outcome is not None:
        candidates.append((int(itf.project(outcome.traces[prop])["step"]), 0, {
            "checker": EXPLORE_LATTICE.record,
            "instance": _words(request, outcome.rung[prop]), "states": outcome.states}))
    for number, b in enumerate(sorted(others, key=lambda b: (b.steps, b.checker, b.source))):
        candidates.append((b.steps, number + 1, {
            "checker": b.checker, "instance": b.instance, "states": None,
            "source": b.source}))
    return candidates


def _shown_below(held: int, rung: int | None) -> bool:
    """Whether the rung `held` at which the explorer held the property is worth showing
    beside a break at `rung`: it is known (>= 0) and below the break (any, for a break only
    other checkers found)."""
    return held >= 0 and (rung is None or held < rung)


def _held_below(request: LatticeRequest[R], held: int, rung: int | None) -> str | None:
    """Where the explorer held the property below the break, in words (None: nowhere)."""
    if not _shown_below(held, rung):
        return None
    return _words(request, held)


def _held_short(request: LatticeRequest[R], held: int, rung: int | None) -> str | None:
    """`_held_below`'s rung in short (None also for a proof for every instance)."""
    if not _shown_below(held, rung) or held >= ANY_RUNG:
        return None
    return request.ladder[min(held, len(request.ladder) - 1)].short()


def _found_by(outcome: EnvOutcome | None, others: Sequence[Break]) -> list[str]:
    """Every checker that found the break: this run's explorer if it did, every other
    checker's break and every checker those point at."""
    found = {EXPLORE_LATTICE.record} if outcome is not None else set()
    found |= {b.checker for b in others}
    found |= {c for b in others for c in b.found_by}
    return sorted(found)


@dataclass(frozen=True)
class TraceWanted:
    """A witness trace an entry names: the variant, the property it breaks, the drift
    sources it breaks it under (an entry's minimal set), the checker that found it and, for
    evidence, the `source` of the break."""

    variant: str
    prop: str
    drift: Sequence[str]
    checker: str = EXPLORE_LATTICE.record
    source: str | None = None


def trace_data(known: dict[str, Knowledge], wanted: TraceWanted,
               evidence: Sequence[Break] = ()) -> dict[str, Any]:
    """The trace that breaks `wanted.prop` under exactly `wanted.drift`, from this run's
    explorer or from the evidence named by `wanted.source` (or `wanted.checker`)."""
    variant, prop, checker, source = wanted.variant, wanted.prop, wanted.checker, wanted.source
    env = frozenset(wanted.drift)
    if source is None and checker == EXPLORE_LATTICE.record:
        return known[variant].breaks[prop][env].traces[prop]
    if source is not None:
        return next(b.trace for b in evidence if b.source == source)
    found = [b for b in evidence if (b.variant, b.property, frozenset(b.environment))
             == (variant, prop, env) and b.checker == checker]
    return min(found, key=lambda b: (b.steps, b.source)).trace
