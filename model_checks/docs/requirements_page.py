"""docs/requirements.md: what an implementation must do to be safe, from the obligations
registry (`model_checks.docs.requirements`), with each obligation's mutants and the evidence that a
checker catches them: the spec mutant's witness scenario, run now on the mutant and on its
base variant, and the implementation mutant's row of the kill matrix (conformance, run now)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from model_checks.docs.markdown import GENERATED, table
from model_checks.docs.requirements import OBLIGATIONS, Obligation
from model_checks.mutant_run.killmatrix import Row, kill_text
from model_checks.mutation.spec_mutants import Mutant, spec_mutant
from model_checks.scenarios import SCENARIOS
from model_checks.smt.decided_cells import SAFETY
from spec import VARIANTS, Variant, by_id

SPEC_CHECKS = (
    "its witness scenario (`tests/test_scenarios.py`), Hypothesis (`tests/simulate/"
    "test_sim_mutants.py`, and the main job's `simulate`)"
)
Z3_CHECK = "Z3 (`tests/smt/test_smt_mutants.py`)"
Z3_PROPERTIES = frozenset(SAFETY)


def knobs(mutant: Mutant) -> str:
    """`V3 with tagged=False`: the knobs where the mutant differs from its base."""
    changed = [
        f"{f.name}={getattr(mutant.variant, f.name)!r}"
        for f in dataclasses.fields(mutant.variant)
        if f.name != "name" and getattr(mutant.variant, f.name) != getattr(mutant.base, f.name)
    ]
    return f"{mutant.base.name} with {', '.join(changed)}"


def witness_evidence(mutant: Mutant) -> str:
    """Where the witness breaks each property on the mutant, run now; and that the base
    keeps it on the same script."""
    trace = mutant.witness.run(mutant.variant)
    base = mutant.witness.run(mutant.base)
    parts = []
    for prop in sorted(mutant.breaks):
        violation = by_id(prop).check_trace(trace)
        kept = by_id(prop).check_trace(base) is None
        where = f"step {violation.step}" if violation is not None else "NOT broken"
        parts.append(f"{prop} at {where}" + ("" if kept else f" (also on {mutant.base.name})"))
    name = mutant.witness.name
    in_suite = any(s.name == name for s in SCENARIOS)
    shown = (f"[`{name}`](scenarios.md#{name})" if in_suite else
             f"`{name}` (a mutant's own script, model_checks/mutation/)")
    return (f"witness {shown} breaks "
            f"{', '.join(parts)} on the mutant; {mutant.base.name} keeps "
            f"{'them' if len(parts) > 1 else 'it'}")


def omitted_by(variant: Variant) -> list[str]:
    """The obligations a variant of the spec omits: those whose spec mutant's changed knobs
    have the variant's values (implementation-only obligations are not judged here)."""
    omitted = []
    for obligation in OBLIGATIONS:
        if obligation.spec_mutant is None:
            continue
        mutant = spec_mutant(obligation.spec_mutant)
        changed = [f.name for f in dataclasses.fields(mutant.variant) if f.name != "name"
                   and getattr(mutant.variant, f.name) != getattr(mutant.base, f.name)]
        if all(getattr(variant, name) == getattr(mutant.variant, name) for name in changed):
            omitted.append(obligation.id)
    return omitted


def _spec_lines(name: str) -> list[str]:
    mutant = spec_mutant(name)
    checks = SPEC_CHECKS + (f", {Z3_CHECK}" if mutant.breaks & Z3_PROPERTIES else "")
    return [
        f"- spec mutant `{name}` ({knobs(mutant)}; `model_checks/mutation/spec_mutants.py`): "
        f"{witness_evidence(mutant)}. Checks that kill it: {checks}; all at once: "
        f"`python -m model_checks mutants --mutant {name}`.",
    ]


def _impl_lines(name: str, rows: Sequence[Row]) -> list[str]:
    row = next((r for r in rows if r.mutant.name == name), None)
    if row is None:
        raise KeyError(f"no history mutant {name!r} in model_checks/mutation/registry.py")
    one, two = (kill_text(kill, sentence=True) for kill in (row.in_process, row.two_processes))
    return [
        f"- implementation mutant `{name}` ({row.mutant.story}; base {row.mutant.base}; "
        "`model_checks/mutant_run/history_mutants.py`): conformance "
        f"{one} in one process, {two} "
        "across two ([kill matrix](kill-matrix.md), `tests/conform/test_conform_mutants.py`).",
    ]


def _anchor(prop: str) -> str:
    """The anchor of a property's heading in invariants.md (`## S1: consistent pairing`)."""
    heading = f"{prop} {by_id(prop).title}".lower()
    return "".join(c if c.isalnum() else "-" for c in heading if c.isalnum() or c in " -")


def _section(obligation: Obligation, rows: Sequence[Row]) -> list[str]:
    protects = ", ".join(f"[{p}](invariants.md#{_anchor(p)}) ({by_id(p).title})"
                         for p in obligation.protects)
    lines = ["", f"## {obligation.id}: {obligation.title}", "",
             f"*Where:* {obligation.side}. *Protects:* {protects}.", "",
             f"**Must:** {obligation.must}", "", f"*Without it:* {obligation.why}", "",
             "Omitted by:", ""]
    if obligation.spec_mutant is not None:
        lines += _spec_lines(obligation.spec_mutant)
    if obligation.impl_mutant is not None:
        lines += _impl_lines(obligation.impl_mutant, rows)
    return lines


def requirements_page(rows: Sequence[Row]) -> str:
    """The page; `rows` is the kill matrix (one conformance run per implementation mutant)."""
    overview = [
        (o.id, o.title, o.side, " ".join(o.protects),
         f"`{o.spec_mutant}`" if o.spec_mutant else "-",
         f"`{o.impl_mutant}`" if o.impl_mutant else "-")
        for o in OBLIGATIONS
    ]
    parts = [
        GENERATED, "", "# What a safe implementation must do", "",
        "The obligations an implementation of the paired caches must meet to keep the safety "
        "and liveness properties (`docs/invariants.md`) under drift, from the registry "
        "`model_checks/docs/requirements.py`. Each names the properties it protects and the "
        "mutants "
        "that omit it, by their names in `model_checks/mutation/registry.py`: a spec mutant "
        "(a variant with one knob changed, `model_checks/mutation/spec_mutants.py`) and/or an "
        "implementation mutant (a subclass of a reference class, "
        "`model_checks/mutant_run/history_mutants.py`), with the check that catches each, run "
        "when this page was generated. `tests/test_docs_requirements.py` fails when a named "
        "mutant is missing or no longer caught. The spec's variants, by their knobs "
        "(implementation-only obligations not judged): " + "; ".join(
            f"{v.name} omits {', '.join(omitted_by(v))}" if omitted_by(v)
            else f"{v.name} meets every one" for v in VARIANTS) + ".", "",
        table(("id", "obligation", "where", "protects", "spec mutant",
               "implementation mutant"), overview),
        "",
        "Not listed as an obligation: resolving a request's references before inserting its "
        "payloads (V3's references first). With O3 in place, the scenario suite finds no "
        "property that V3 without it breaks and V3 keeps (`tests/test_docs_requirements.py`), "
        "and no mutant omitting it alone is checked yet; what it does show is a cost: it "
        "changes which items are sent as payloads even with nothing drifting "
        "(`benchmarks/bench_wire.py`).",
    ]
    for obligation in OBLIGATIONS:
        parts += _section(obligation, rows)
    return "\n".join(parts) + "\n"
