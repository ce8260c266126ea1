"""The LRU design's lattice: what the one lattice search (`lattice.search`) and its command
(`lattice_command`) read of the LRU design, declared as its `LatticeDesign`.

The search's part: its properties, the climb of one environment up the instance family's
rungs (`lattice_instance`: every property judged by the explorer's judge, the trace
properties too) and what holds before any exploration. The command's part: the request the
options describe (the profiles' ladders, `lattice_profiles`, with the rung bounds given), a
kept ladder's rungs read back, Z3's all-instance proofs (`--parametric`) and the
first-resend argument derived from them, every other checker's replayed breaks
(`--evidence`), the environments they decide for every instance, and each witness checked
before it is written: it replays, and an explorer's trace lifts to the top environment at the
top rung (`monotone.lift_failure`, the lemma the search stands on); a liveness witness's
notes (an S3 crash counted again; a break that depends on the retry bound).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import describe
from model_checks.explore.lattice import (
    BREAKS,
    HOLDS,
    UNDECIDED,
    Env,
    EnvOutcome,
    EnvTask,
    LatticeRequest,
    Leg,
    Plan,
    Proof,
    climb,
)
from model_checks.explore.lattice_command import (
    LatticeDefect,
    LatticeUsageError,
    WitnessDefect,
    rung_bounds,
)
from model_checks.explore.lattice_instance import (
    Rung,
    describe_family,
    drift_order,
    eviction,
    ladder,
    lattice_config,
)
from model_checks.explore.lattice_profiles import LATTICE_PROFILES
from model_checks.explore.lattice_report import Break
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.explore.lru_judging.state_checks import ONE_CONTENT, state_properties
from model_checks.kernel import itf
from model_checks.kernel.cells import cell_label
from model_checks.kernel.trace_file import BadTraceFile, replay_data, trace_to_json
from model_checks.kernel.verdict_records import EXPLORE_LATTICE, PAIR_WITNESS
from spec import (
    ALL_DRIFT,
    VARIANTS,
    Drift,
    TraceError,
    by_id,
    registry,
    run,
    variant_named,
)
from spec.drift import Environment

ALL_SOURCES = drift_order(d.value for d in ALL_DRIFT)
"""The sources a lattice searches by default: D1-D11."""

NARROW = {"max_items": 1, "reused_bytes": 1}
"""The rung fields of a ladder kept before rungs had them: one item per request, every
content 1 byte (what outcomes kept then were explored with; without `duplicates`, a rung's
default: each identity once per request)."""
FAMILY_FIELDS = frozenset({*NARROW, "duplicates"})
"""The rung fields that are the family's, the same at every rung of a ladder."""

FIRST_RESEND = "the first-resend argument (model_checks/kernel/retries.py), with at least one retry"

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


@dataclass(frozen=True)
class LruLattice:
    """The LRU design's lattice (`lattice_command.LatticeCommandDesign`): every property of
    the registry, judged by the explorer's judge (the trace properties too) on
    `lattice_instance`'s family, rung by rung; seeded with what holds without exploring."""

    def property_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in registry())

    def plan(self) -> Plan[Rung]:
        """The climbing plan (`lattice.climb`)."""
        return climb

    def seeds(self, sources: Sequence[str], variant: str) -> Mapping[str, Env]:
        """S1 and S4 (`ONE_CONTENT`: the judge calls them vacuous where each identity has one
        content) below "every source but those giving an identity a second content" (D7,
        `Needs.versions`); L1-L3 everywhere for a variant that reports no miss."""
        reusing = {d.value for d in Drift if d.needs.versions > 1}
        found = {prop: frozenset(sources) - reusing for prop in ONE_CONTENT}
        found |= {prop: frozenset(sources) for prop in NO_MISS_REPLY
                  if self.vacuous(variant, prop)}
        return found

    def family_words(self, ladder: tuple[Rung, ...], sources: Sequence[str]) -> str:
        """The base rung's family (`describe_family`) and, above it, whether the top rung
        can evict for capacity."""
        words = describe_family(ladder[0], sources=sources)
        if len(ladder) > 1:
            words += f"; at the top rung ({ladder[-1].words()}): {eviction(ladder[-1])}"
        return words

    def without_exploring(self, prop: str) -> str:
        if prop in ONE_CONTENT:
            return "holds in every environment without D7 (one content per identity)"
        return ""

    def vacuous(self, variant: str, prop: str) -> str:
        """L1-L3 (`NO_MISS_REPLY`) for a variant that reports no miss."""
        return "" if variant_named(variant).reports_misses else NO_MISS_REPLY.get(prop, "")

    def explore(self, task: EnvTask[Rung]) -> EnvOutcome:
        """Climb the task's rungs: build each rung's graph and judge every property on it; go
        one rung up while the graph was complete and some wanted property still holds."""
        started = time.perf_counter()
        wanted = set(task.wanted or self.property_ids())
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
        return EnvOutcome(task.variant, task.environment, sum(per_rung), diameter,
                          cut_at is None, time.perf_counter() - started, verdicts, traces,
                          rungs, held, reached, cut_at, task.first, tuple(per_rung))

    def request(self, args: argparse.Namespace) -> LatticeRequest[Rung]:
        """The request the arguments describe: the profile's ladder (`LATTICE_PROFILES`) with
        the bounds given (`--max-requests` ..., and the family's own fields, the same at every
        rung: `--items`, `--reused-bytes`, `--duplicates`), the variants and sources, and the
        profile's deeper leg; `LatticeUsageError` (or ValueError) if bad."""
        profile = LATTICE_PROFILES[args.profile]
        size, limit = profile.max_size, profile.max_states
        variants = tuple(args.variant or [v.name for v in VARIANTS])
        for name in variants:
            variant_named(name)
        sources = ALL_SOURCES
        if args.sources is not None:
            sources = Environment.parse(args.sources).sources
        if args.max_size is not None:
            size = args.max_size
        bounds: dict[str, Any] = dict(rung_bounds(args))
        if getattr(args, "duplicates", False):
            bounds["duplicates"] = True
        for field, option, value in (("max_items", "--items", args.items),
                                     ("reused_bytes", "--reused-bytes", args.reused_bytes)):
            if value is not None:
                if value < 1:
                    raise LatticeUsageError(f"{option} must be >= 1, got {value}")
                bounds[field] = value
        limit = args.max_states or limit
        top = replace(profile.top, **bounds)
        # the family's own fields (items, the second contents' size) are the same at every rung
        base = replace(profile.base, **{k: v if k in FAMILY_FIELDS
                                        else min(v, getattr(profile.base, k))
                                        for k, v in bounds.items()})
        deep = profile.deep if "max_requests" not in bounds else 0
        rungs = ladder(base, replace(top, max_requests=max(top.max_requests, deep)))
        legs: tuple[Leg, ...] = ()
        first_top = next(i for i, r in enumerate(rungs) if r.max_requests == top.max_requests)
        if deep > top.max_requests and set(profile.deep_with) <= set(sources):
            legs = (Leg(min(profile.deep_size, size), len(rungs) - 1,
                        frozenset(profile.deep_with)),)
        return LatticeRequest(tuple(dict.fromkeys(variants)), sources, size, rungs, self,
                              limit, args.jobs, args.dask, legs, first_top=first_top)

    def rung(self, data: Mapping[str, Any]) -> Rung:
        """A rung of a kept ladder, as `write_outcomes` wrote it (a ladder kept before rungs
        had the family's fields: `NARROW`'s)."""
        return Rung(**{**NARROW, **data})

    def proofs(self) -> tuple[Proof, ...]:
        """Z3's all-instance proofs (`parametric_goals`: S2 of every variant under every source,
        S1, S3 and H1 under their largest provable environments; `parametric_liveness`: L1-L3
        likewise); a certificate rejected gives no proof."""
        from model_checks.kernel.verdict_records import Verdict
        from model_checks.smt.prove import parametric_goals, parametric_liveness

        found = [*parametric_goals.records(), *parametric_liveness.records()]
        proofs = tuple(Proof(r.variant, r.property, tuple(r.environment), r.checker, r.detail)
                       for r in found if r.verdict is Verdict.PROVED)
        return (*proofs, *first_resend_proofs(proofs))

    def evidence(self, paths: Sequence[Path]) -> list[Break]:
        """Every other checker's break and the pair cells' witnesses, replayed
        (`model_checks.explore.evidence`, by `replayed_break`)."""
        if not paths:
            return []
        from model_checks.explore.evidence import gather

        return gather(paths, replayed_break, pair_witnesses)

    def every_instance(self, entry: dict[str, Any], proofs: Sequence[Proof],
                       sources: Sequence[str]) -> dict[str, Any] | None:
        """Which environments the breaks and the all-instance proofs decide for every
        instance (`every_instance.decided`, the prover tried where they leave environments
        bounded: `nearest_failure`; None: not a property they decide, `decided_properties`);
        a proof that covers a break is a `LatticeDefect`."""
        from model_checks.explore.every_instance import ProofContradicted, decided

        if entry["property"] not in decided_properties():
            return None
        try:
            return decided(entry, proofs, sources, nearest_failure)
        except ProofContradicted as error:
            raise LatticeDefect(str(error)) from None

    def witness_stem(self, variant: str, drift: Sequence[str], prop: str) -> str:
        """A witness file's name without its suffix: the cell's label (`cells.cell_label`)."""
        return cell_label(variant, drift, prop)

    def check_witness(self, request: LatticeRequest[Rung], variant: str, prop: str,
                      drift: Sequence[str], data: dict[str, Any]) -> list[str]:
        """`WitnessDefect` unless the trace breaks `prop` on replay and (an explorer's) lifts
        to the top environment at the top rung; its notes (`liveness_notes`)."""
        _check_witness(request, variant, prop, drift, data)
        return liveness_notes(data, prop)


LRU_LATTICE = LruLattice()
"""The LRU design's lattice, as `lattice.search` (`LatticeRequest.design`) and
`lattice_command.run_lattice` read it."""


def decided_properties() -> tuple[str, ...]:
    """The properties whose environments the all-instance proofs decide (the prover's goals
    are about them): the safety properties, H1, which the mirror proves where the caches
    mirror each other, and L1-L3, safety over the monitors' history
    (`smt.prove.parametric_liveness`). A proof under E holds below E: each proof's argument
    that its model over-approximates the spec uses only the absence of drift sources outside
    E (the mirror: no reordering, loss, one-sided removal or skew; P0's assertion: no
    late-miss source; L1: no record P0 does not send), and the model under E has every
    behaviour it has below E (its environment only enables behaviour, P0's assertion, or
    refuses a source outside the mirror's). Imported when asked: the mirror loads z3, which
    a usage error must not wait for."""
    from model_checks.smt.judged import encoded_safety
    from model_checks.smt.prove.parametric_liveness import PROPERTIES as LIVENESS
    from model_checks.smt.prove.parametric_mirror import PROPERTIES as MIRROR_PROPERTIES

    safety = (*encoded_safety(), *(p for p in MIRROR_PROPERTIES if p not in encoded_safety()))
    return (*safety, *LIVENESS)


def nearest_failure(variant: str, prop: str, environment: frozenset[str]) -> str:
    """The query the prover's nearest certificate fails on for `prop` of `variant` under
    `environment` (`parametric_liveness` for its properties, else `parametric_goals`)."""
    from model_checks.smt.prove import parametric_goals, parametric_liveness

    module = (parametric_liveness if prop in parametric_liveness.PROPERTIES
              else parametric_goals)
    failed = module.attempt(variant_named(variant), prop, environment)
    return failed or "proved by the nearest certificate (not among the goals)"


def first_resend_proofs(proofs: tuple[Proof, ...]) -> tuple[Proof, ...]:
    """L4 for every instance with R >= 1, for each variant whose resends bypass the shadow,
    under the widest environment where both S3 and L2 are proved (`retries.FIRST_RESEND`:
    no crash, hang or P0 assertion, and no resend answered with a miss, so a request that
    missed succeeds at its first resend unless that is rejected, a clear end)."""
    from model_checks.kernel.retries import FIRST_RESEND as CLAIM

    derived = []
    for name in sorted({p.variant for p in proofs}):
        if not variant_named(name).resends_bypass_shadow:
            continue
        s3, l2 = ([frozenset(p.environment) for p in proofs
                   if p.variant == name and p.property == prop] for prop in ("S3", "L2"))
        common = [a & b for a in s3 for b in l2]
        if common:
            widest = max(common, key=len)
            derived.append(Proof(name, "L4", drift_order(widest), FIRST_RESEND,
                                 f"{CLAIM.statement}; from S3 and L2 proved for every instance"))
    return tuple(derived)


def replayed_break(data: dict[str, Any], variant: str, prop: str, env: tuple[str, ...],
                   checker: str, source: str) -> Break | str:
    """A `Break` from one trace's JSON (`evidence.Replay`), or why it is not evidence: it
    replays on the spec with its own configuration and breaks its property at the recorded
    step (`replay_data`), and still breaks it, at the same step, with every drift source
    added to the configuration's environment (the spec reads the environment only in guards,
    so adding sources only enables more). The break's instance is the trace's own
    configuration in words (`instance.describe`): Z3's, Hypothesis's or a scenario's, not a
    rung of the lattice ladder."""
    try:
        replayed = replay_data(data)
    except (BadTraceFile, TraceError, KeyError, ValueError, TypeError) as error:
        return f"{source}: does not replay ({error})"
    if replayed.step is None or replayed.step != replayed.recorded_step:
        return f"{source}: replays without breaking {prop} at step {replayed.recorded_step}"
    config = replayed.trace.config
    actions = [s.action for s in replayed.trace.steps]
    try:
        above = run(replace(config, environment=ALL_DRIFT), actions)
    except TraceError as error:
        return f"{source}: not a run with every source added ({error})"
    violation = by_id(prop).check_trace(above)
    if violation is None or violation.step != replayed.step:
        return f"{source}: does not break {prop} at the same step with every source added"
    return Break(variant, prop, env, checker, describe(config), replayed.step, data, source)


def pair_witnesses() -> list[Break | str]:
    """The pair cells' hand-built S1 witnesses (`model_checks.kernel.pair_witnesses`), checker
    `pair-witness`, each run on the matrix's instance of its pair and replayed like any other
    trace (`replayed_break`)."""
    from model_checks.kernel.instance import config_for
    from model_checks.kernel.pair_witnesses import WITNESSES

    made: list[Break | str] = []
    for (pair, variants), actions in sorted(WITNESSES.items()):
        for variant in variants.split():
            source = f"model_checks/kernel/pair_witnesses.py: {'+'.join(pair)} {variant}"
            try:
                trace = run(config_for(variant_named(variant), pair), actions)
            except TraceError as error:
                made.append(f"{source}: does not run ({error})")
                continue
            violation = by_id("S1").check_trace(trace)
            if violation is None:
                made.append(f"{source}: does not break S1")
                continue
            data = trace_to_json(trace, property_id="S1", step=violation.step,
                                 reason=violation.reason, checker=PAIR_WITNESS.record)
            made.append(replayed_break(data, variant, "S1", pair, PAIR_WITNESS.record, source))
    return made


def liveness_notes(data: dict[str, Any], prop: str) -> list[str]:
    """For a liveness witness: whether it is an S3 crash counted again (the same trace breaks
    S3), and whether it depends on the retry bound (with one more retry allowed, the same
    actions no longer break the property at that step)."""
    if not prop.startswith("L") or "loop" in data:
        return []
    replayed = replay_data(data)
    notes = []
    crash = by_id("S3").check_trace(replayed.trace)
    if crash is not None:
        notes.append(f"an S3 crash (step {crash.step}) counted again")
    config = replayed.trace.config
    more = replace(config, max_retries=config.max_retries + 1)
    try:
        again = by_id(prop).check_trace(run(more, [s.action for s in replayed.trace.steps]))
    except TraceError:
        again = None
    if again is None or again.step != replayed.step:
        notes.append(f"depends on the retry bound ({config.max_retries} retries: with one "
                     "more, the same run does not break it)")
    return notes


def _check_witness(request: LatticeRequest[Rung], variant: str, prop: str,
                   drift: Sequence[str], data: dict[str, Any]) -> None:
    from model_checks.explore.lru_judging.monotone import lift_failure

    replayed = replay_data(data)
    lasso = "loop" in data
    if not lasso and replayed.step != replayed.recorded_step:
        raise WitnessDefect(f"{variant} {'+'.join(drift)} {prop}: the trace does not break "
                            "it on replay")
    if itf.project(data).get("checker") != EXPLORE_LATTICE.record or not request.explore:
        return  # evidence: replayed with every source added when it was gathered
    top = lattice_config(variant_named(variant), request.sources, request.ladder[-1])
    failure = lift_failure(replayed.trace.config, top, [s.action for s in replayed.trace.steps])
    if failure is not None:
        raise WitnessDefect(f"{variant} {'+'.join(drift)} {prop}: the trace does not lift to "
                            f"the top environment ({failure}): the monotonicity lemma fails")
