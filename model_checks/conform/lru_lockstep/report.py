"""The implementation's safety verdicts: the summary lines, the replayable trace files, the
shrinking of a required property's trace (`shrink_broken`), and `--replay` of one trace file.

A property is *broken by the implementation* when its monitor on the implementation's own
observations fires (S1 on tensor values, S2 on byte counts, S3 on faults, L1-L4 on the
replies and messages it produced), or, for S4 and H1, when the spec's verdict on a trace the
implementation matched step for step breaks it. That is reported also where the spec breaks
the property too (the variant's weakness is then the implementation's, which is what a
maintainer asking "is my cache safe" needs to hear).
"""

from __future__ import annotations

from pathlib import Path

from model_checks.conform.adapter import Adapter
from model_checks.conform.lru_lockstep import (
    SPEC_JUDGED,
    Driving,
    EngineFactory,
    steps_text,
)
from model_checks.conform.lru_lockstep.run import Outcome, PropertyBroken
from model_checks.conform.lru_lockstep.runs import deleted, replayed
from model_checks.conform.lru_lockstep.weakness import answer_in, trace_sources, vacuous, weakness
from model_checks.conform.notation import wrap
from spec import VARIANT_NAMES, registry
from spec.drift import Environment
from spec.transitions import Action

KEPT, INHERITED, REGRESSION = "kept", "INHERITED WEAKNESS", "REGRESSION"
KNOWN = "INHERITED WEAKNESS (known; not reached by this run)"
UNJUDGED, NOT_CHECKED = "not judged", "not checked"
VACUOUS = "kept, vacuously"
"""A property's status on one variant: kept (checked, never broken); broken as the variant's
spec breaks it too (an inherited weakness); not broken by the run, but broken for the variant
in the environment checked by the project's answers (a known inherited weakness: a run that
did not reach a known break is no evidence that the implementation avoids it); broken where
the spec keeps it (a regression,
which is also a disagreement); kept, vacuously (the drift lattice finds that the variant
cannot break it at all, e.g. V0's L1-L3: it sends no miss reply); not judged (a
disagreement cut that variant's run short, and the property had not broken before it); not
checked (the variant was not run)."""


def statuses(outcome: Outcome, allowed: frozenset[str] | None = None
             ) -> dict[tuple[str, str], str]:
    """(variant, property) -> its status, for every variant of the spec, in the deployment's
    environment `allowed` (None: every drift source)."""
    cut = {f.where.split()[0] for f in outcome.findings} | (
        {outcome.harness.split()[0]} if outcome.harness else set())
    result: dict[tuple[str, str], str] = {}
    for variant in VARIANT_NAMES:
        for prop in registry():
            found = outcome.broken.get((variant, prop.id))
            regression = any(f.disagreement.caught_by == prop.id and f.where.split()[0]
                             == variant for f in outcome.findings)
            if regression or (found is not None and not found.broken.spec_too):
                status = REGRESSION
            elif found is not None:
                status = INHERITED
            elif variant not in outcome.checked or outcome.steps == 0:
                status = NOT_CHECKED
            elif answer_in(variant, prop.id, allowed).breaks:
                status = KNOWN
            elif variant in cut:
                status = UNJUDGED
            elif vacuous(variant, prop.id):
                status = VACUOUS
            else:
                status = KEPT
            result[(variant, prop.id)] = status
    return result


def safety_lines(
    outcome: Outcome,
    broken: dict[str, PropertyBroken],
    required: frozenset[str],
    trace_paths: dict[str, str],
    adapter_path: str,
    allowed: frozenset[str] | None = None,
) -> list[str]:
    """Per property and variant checked: kept, an inherited weakness (with the minimal drift
    environments that break it for the variant and what removes it), or a regression; the
    shortest trace where broken. `allowed`: the deployment's drift sources (None: all)."""
    where = "every drift source" if allowed is None else (
        "the environment " + (Environment.of(allowed).text))
    lines = [f"safety of the implementation per property, over "
             f"{' '.join(outcome.checked) or 'no variant'} under {where} (its own "
             f"observations; {' and '.join(SPEC_JUDGED)} on the agreed trace):"]
    status = statuses(outcome, allowed)
    for prop in registry():
        mark = " [required]" if prop.id in required else ""
        per = {v: status[(v, prop.id)] for v in outcome.checked}
        groups: dict[str, list[str]] = {}
        for variant, text in per.items():
            groups.setdefault(text, []).append(variant)
        summary = "; ".join(f"{_shown(text, outcome)} on {' '.join(vs)}"
                            for text, vs in groups.items())
        lines.append(f"  {prop.id} {prop.title}{mark}: {summary or NOT_CHECKED}")
        for variant in (v for v, text in per.items() if text == KNOWN):
            found_answer = answer_in(variant, prop.id, allowed)
            lines.append(f"      {variant}: the project's answer in this environment is "
                         f"{found_answer.words()}")
            if found_answer.witness is not None and found_answer.witness.trace:
                lines.append(f"      replay it on the implementation: --replay "
                             f"{found_answer.witness.trace}{_where(found_answer.witness.trace)}")
        for variant in (v for v, text in per.items() if text in (INHERITED, KNOWN)):
            w = weakness(variant, prop.id)
            lines.append(f"      {variant} breaks it too; minimal environments for it "
                         f"({w.source}): {w.environments_text()}")
            if allowed is not None:
                lines.append(f"      inside this deployment: {w.environments_text(allowed)}")
            lines.append(f"      {w.removal()}")
            if w.shortest is not None:
                lines.append(f"      the shortest witness of it: {w.shortest[0]} "
                             f"({w.shortest[1]} steps; replay it with --replay)")
        found = broken.get(prop.id)
        if found is None:
            continue
        b = found.broken
        uses = Environment.of(trace_sources(found.config, b.actions)).text
        lines.append(f"      shortest trace ({found.where}; the drift sources it uses: {uses}), "
                     f"broken at step {b.step}: {b.reason}")
        lines += ["  " + line for line in steps_text(b.actions, b.step)]
        if prop.id in trace_paths:
            lines.append(f"      replay against the implementation: python -m model_checks "
                         f"conform --adapter {adapter_path} --replay {trace_paths[prop.id]}")
    return wrap(lines)


def _shown(status: str, outcome: Outcome) -> str:
    """A status as printed: "kept" says it was sampled, and how much."""
    if status == KEPT:
        return f"kept (sampled: never broken in {outcome.steps} lockstep steps)"
    return status


def _where(trace: str) -> str:
    """Nothing where the trace file is here; else where to find it."""
    return "" if Path(trace).is_file() else " (a file of the project's repository)"


def shrink_broken(adapter: Adapter, engine_factory: EngineFactory | None, prop: str,
                  found: PropertyBroken, budget: int = 200) -> PropertyBroken:
    """A shorter trace on which the implementation still breaks `prop`, earlier: greedy
    deletion (`lru_lockstep.deleted`) of valid spec traces, replayed unsettled."""
    served = found.broken.served
    driving = Driving(settle=False, served=served,
                      engine_factory=None if served else engine_factory)

    def again(candidate: list[Action]) -> PropertyBroken | None:
        ran = replayed(found.config, adapter, candidate, driving)
        broken = None if ran is None else ran.broken.get(prop)
        return None if broken is None else PropertyBroken(found.where, found.config, broken)

    return deleted(found, list(found.broken.actions), again,
                   lambda b: (b.broken.step, list(b.broken.actions)), budget)


def coverage_line(outcome: Outcome, allowed: frozenset[str] | None) -> str:
    """How much of the spec's behaviour the lockstep runs reached: each action the
    environment enables, with how many steps took it, and those no step took; then the
    guards: those that held in some state of the runs but whose action no step took (a
    behaviour the runs could have tried), and those that never held (a behaviour the runs
    never came near)."""
    from spec.transitions import ACTION_TYPES

    possible = [t.__name__ for t in ACTION_TYPES
                if t.requires is None or allowed is None or t.requires.value in allowed]
    taken = ", ".join(f"{n} x{outcome.actions[n]}" for n in possible if outcome.actions[n])
    never = ", ".join(n for n in possible if not outcome.actions[n]) or "none"
    held = ", ".join(f"{n} x{outcome.guards[n]}" for n in possible
                     if outcome.guards[n] and not outcome.actions[n]) or "none"
    closed = ", ".join(n for n in possible if not outcome.guards[n]) or "none"
    return (f"coverage: spec actions the lockstep steps took: {taken or 'none'}; never "
            f"taken: {never} (of the {len(possible)} the environment enables); guards that "
            f"held but were never taken (states): {held}; guards that never held: {closed}; "
            f"requests naming one identity twice: {outcome.repeated}")


def choices_line(outcome: Outcome) -> str:
    """Which of the choices the spec allows a correct implementation (`lockstep.choices`)
    it was seen making, and in how many steps; a choice seen only where every choice has
    the same effect is not counted."""
    seen = ", ".join(f"{name} x{count}" for name, count in sorted(outcome.choices.items()))
    return ("implementation choices observed (each allowed by the spec): "
            f"{seen or 'none (no step where the allowed choices differ)'}")
