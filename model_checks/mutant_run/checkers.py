"""The four checkers, each run over the selected mutants, each returning one `Outcome` per
mutant it applies to.

scenario: the spec mutant's witness scenario, run on the mutant and on its base variant; a
property counts as caught when the mutant breaks it and the base does not.
hypothesis: the mutant's Hypothesis cell at the ci profile (`simulate.run.run_mutant`), which
falls back on the witness script when the search finds nothing (marked "witness").
z3: the mutant's Z3 cells (`smt.cells.mutant_cells`, safety properties only) through
`smt.runner.run_cells` over the whole budget and size range to `z3_depth` steps; a cell left
without a counterexample is searched again to `z3_deep_depth` steps with the budget and item
sizes of the mutant's witness configuration (the deep counterexamples are out of reach of the
whole range within the per-query rlimit).
conformance: the reference mutant through `killmatrix.kill_matrix` in one
process and, with `processes` 2, across two as well; it is caught by a property the
implementation broke while the spec kept it, or else by the first observation that differed
(shown as "<observation> differs").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from model_checks import executor
from model_checks.kernel.verdict_records import (
    CONFORMANCE,
    HYPOTHESIS,
    SCENARIOS,
    Z3_BMC,
    Checker,
    Verdict,
    VerdictRecord,
)
from model_checks.mutant_run import killmatrix
from model_checks.mutant_run.factory import ImplMutant
from model_checks.mutant_run.killmatrix import Kill
from model_checks.mutant_run.options import Options
from model_checks.mutant_run.outcome import Catch, Outcome, column
from model_checks.mutant_run.reference_mutants import reference_mutants
from model_checks.mutation.registry import COMMAND_SETS
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from model_checks.simulate.run import PROFILES, CellResult, run_mutant, write_traces
from model_checks.smt.decided_cells import SAFETY, mutant_cells
from model_checks.smt.encode.symbols import Bounds, Encoding
from model_checks.smt.results import Result, Violated, to_record
from model_checks.smt.runner import SmtRun, run_cells
from model_checks.smt.search.bmc import bmc
from spec import Drift, registry

Progress = Callable[[str], None]
HYPOTHESIS_PROFILE = PROFILES["ci"]


@dataclass(frozen=True)
class Selection:
    spec: tuple[Mutant, ...]
    impl: tuple[ImplMutant, ...]


Runner = Callable[[Selection, Options, Progress], list[Outcome]]


def required(checker: Checker, mutant: Mutant) -> frozenset[str]:
    """What a spec checker must find broken for `mutant` (empty: the checker does not apply)."""
    if checker is Z3_BMC:
        return mutant.breaks & frozenset(SAFETY)
    return mutant.breaks


def _ordered(catches: Sequence[Catch]) -> tuple[Catch, ...]:
    order = {p.id: n for n, p in enumerate(registry())}
    return tuple(sorted(catches, key=lambda c: order.get(c.property, len(order))))


def _report(progress: Progress, outcome: Outcome) -> Outcome:
    progress(f"  {outcome.checker.name} {outcome.mutant}: {outcome.text()} "
             f"({outcome.seconds:.1f} s)")
    return outcome


# scenario ------------------------------------------------------------------------------------


def _scenario(mutant: Mutant) -> Outcome:
    start = time.perf_counter()
    trace = mutant.witness.run(mutant.variant)
    base = mutant.witness.run(mutant.base)
    seconds = time.perf_counter() - start
    catches, records = [], []
    for prop in registry():
        found = prop.check_trace(trace)
        on_base = prop.check_trace(base)
        detail = f"witness scenario {mutant.witness.name}"
        if found is not None and on_base is not None:
            detail += f"; the base {mutant.base.name} breaks it too (not a kill)"
        elif found is not None:
            detail += f"; the base {mutant.base.name} keeps it: {found.reason}"
        records.append(VerdictRecord(
            SCENARIOS.record, mutant.variant.name, mutant.witness.drift, prop.id,
            Verdict.COUNTEREXAMPLE if found else Verdict.HOLDS, len(trace.steps), "steps",
            round(seconds, 3), counterexample_length=found.step if found else None,
            detail=detail,
        ))
        if prop.id in mutant.breaks and found is not None and on_base is None:
            catches.append(Catch(prop.id, found.step))
    return Outcome(mutant.name, SCENARIOS, mutant.breaks, _ordered(catches), tuple(records),
                   seconds)


def run_scenario(selection: Selection, options: Options, progress: Progress) -> list[Outcome]:
    del options
    return [_report(progress, _scenario(m)) for m in selection.spec]


# hypothesis ----------------------------------------------------------------------------------


def _hypothesis_at(index: int, traces: Path | None) -> CellResult:
    return run_mutant(spec_mutants()[index], HYPOTHESIS_PROFILE, traces)


def _hypothesis_outcome(mutant: Mutant, result: CellResult) -> Outcome:
    catches = [
        Catch(prop, finding.length,
              "witness" if finding.detail.startswith("explicit witness") else "")
        for prop, finding in result.findings.items() if prop in mutant.breaks
    ]
    return Outcome(mutant.name, HYPOTHESIS, mutant.breaks, _ordered(catches),
                   tuple(result.records), result.seconds)


def _backend(options: Options) -> executor.Backend:
    return options.backend or executor.LocalProcesses(max(1, options.jobs))


def _failed_outcome(mutant: Mutant, checker: Checker, failed: executor.Failed) -> Outcome:
    """A task that raised: nothing caught, the error in the note (the table shows SURVIVED)."""
    return Outcome(mutant.name, checker, required(checker, mutant), (), (), failed.seconds,
                   note=f"the task failed: {failed.error}")


def run_hypothesis(selection: Selection, options: Options, progress: Progress) -> list[Outcome]:
    """Each mutant's cell at the ci profile, one executor task per mutant."""
    tasks = [executor.Task(m.name, _hypothesis_at, (spec_mutants().index(m), options.traces))
            for m in selection.spec]
    outcomes = []
    for mutant, result in zip(selection.spec, executor.run(tasks, _backend(options)),
                              strict=True):
        if isinstance(result, executor.Failed):
            outcomes.append(_report(progress, _failed_outcome(mutant, HYPOTHESIS, result)))
            continue
        write_traces(result.value)
        outcomes.append(_report(progress, _hypothesis_outcome(mutant, result.value)))
    return outcomes


# z3 ------------------------------------------------------------------------------------------


def witness_bounds(mutant: Mutant) -> Bounds:
    """The budget and the range of item sizes of the mutant's witness configuration (a
    content the configuration does not size has size 1 on both sides), and whether its
    requests may name one identity twice."""
    config = mutant.witness.config(mutant.variant)
    sizes = [1, *(n for s in config.sizes for n in (s.shadow_bytes, s.receiver_bytes))]
    return Bounds(budget_range=(config.budget, config.budget),
                  size_range=(min(sizes), max(sizes)), duplicates=config.duplicates)


def _encoding(mutant: Mutant, bounds: Bounds) -> Encoding:
    return Encoding(mutant.variant, frozenset(Drift(d) for d in mutant.witness.drift), bounds)


def _deep(index: int, prop: str, depth: int, rlimit: int) -> Result:
    mutant = spec_mutants()[index]
    return bmc(_encoding(mutant, witness_bounds(mutant)), prop, depth, rlimit)


def _bounds_text(bounds: Bounds) -> str:
    lo, hi = bounds.size_range
    return f"budget {bounds.budget_range[0]}, sizes {lo}" + (f"..{hi}" if hi != lo else "")


def run_z3(selection: Selection, options: Options, progress: Progress) -> list[Outcome]:
    """The mutant cells over the whole range, then the witness's bounds for those left."""
    mutants = [m for m in selection.spec if required(Z3_BMC, m)]
    names = {m.variant.name: m for m in mutants}
    cells = [c for c in mutant_cells() if c.variant.name in names]
    run = SmtRun(options.z3_depth, options.z3_rlimit, options.z3_depth)
    first = run_cells(cells, run, lambda line: progress(f"  z3 {line}"), options.jobs,
                      _backend(options))
    results: dict[tuple[str, str], tuple[Result, VerdictRecord, str]] = {
        (o.cell.variant.name, o.cell.property): (o.result, o.record, "") for o in first
    }
    spent = {key: result.seconds for key, (result, _, _) in results.items()}
    again = [key for key, (result, _, _) in results.items() if not isinstance(result, Violated)]
    if again:
        progress(f"  z3: {len(again)} cell(s) without a counterexample to depth "
                 f"{options.z3_depth}; searching to depth {options.z3_deep_depth} with each "
                 "witness's budget and sizes")
    deep = [executor.Task(f"{name}_{prop}", _deep, (spec_mutants().index(names[name]), prop,
                                                    options.z3_deep_depth, options.z3_rlimit))
            for name, prop in again]
    for (name, prop), done in zip(again, executor.run(deep, _backend(options)), strict=True):
        mutant = names[name]
        bounds = witness_bounds(mutant)
        if isinstance(done, executor.Failed):
            progress(f"  z3 {name} {prop} with {_bounds_text(bounds)}: the task failed: "
                     f"{done.error}")
            continue
        result = done.value
        before = results[(name, prop)][1]
        record = to_record(_encoding(mutant, bounds), result)
        record = replace(record, detail=f"{_bounds_text(bounds)} (the witness's); whole "
                         f"range: {before.verdict.value} to {before.bound} steps; "
                         + record.detail)
        results[(name, prop)] = (result, record, _bounds_text(bounds))
        spent[(name, prop)] += result.seconds
        progress(f"  z3 {name} {prop} with {_bounds_text(bounds)}: "
                 f"{record.verdict.value} ({result.seconds:.1f} s)")
    outcomes = []
    for mutant in mutants:
        props = sorted(required(Z3_BMC, mutant))
        found = [(p, *results[(mutant.variant.name, p)]) for p in props]
        catches = [Catch(p, r.depth, via) for p, r, _, via in found if isinstance(r, Violated)]
        note = "; ".join(
            f"{p}: {rec.verdict.value} to {rec.bound} steps" + (f" with {via}" if via else "")
            for p, r, rec, via in found if not isinstance(r, Violated)
        )
        outcomes.append(_report(progress, Outcome(
            mutant.name, Z3_BMC, required(Z3_BMC, mutant), _ordered(catches),
            tuple(rec for _, _, rec, _ in found),
            sum(spent[(mutant.variant.name, p)] for p in props), note=note,
        )))
    return outcomes


# conformance ---------------------------------------------------------------------------------


def _kill_record(mutant: ImplMutant, kill: Kill, mode: str, seconds: float) -> VerdictRecord:
    caught = kill.caught_by is not None
    return VerdictRecord(
        CONFORMANCE.record, mutant.adapter.name, (), kill.caught_by or "lockstep",
        Verdict.COUNTEREXAMPLE if caught else Verdict.HOLDS, kill.length, "steps",
        round(seconds, 3), counterexample_length=kill.length,
        detail=f"implementation mutant of {mutant.base}, {mode}: "
        + (f"caught in {kill.where}" if caught else "no disagreement in the ci profile"),
    )


def _conformance(mutant: ImplMutant, processes: int) -> Outcome:
    start = time.perf_counter()
    (row,) = killmatrix.kill_matrix(processes=processes > 1, mutants=(mutant,))
    seconds = time.perf_counter() - start
    modes: list[tuple[str, Kill]] = [("one process", row.in_process)]
    if row.two_processes is not None:
        modes.append(("two processes", row.two_processes))
    props = {p.id for p in registry()}
    catches: list[Catch] = []
    for mode, kill in modes:
        if kill.caught_by is None:
            continue
        name = kill.caught_by if kill.caught_by in props else f"{kill.caught_by} differs"
        if catches and (catches[0].property, catches[0].steps) == (name, kill.length):
            catches[0] = Catch(name, kill.length, "the same across two processes")
        else:
            catches.append(Catch(name, kill.length, "" if mode == "one process" else mode))
    unmet = tuple(mode for mode, k in modes if k.caught_by is None)
    records = tuple(_kill_record(mutant, k, mode, seconds) for mode, k in modes)
    note = f"no disagreement in the {killmatrix.PROFILE.name} profile" if unmet else ""
    return Outcome(mutant.name, CONFORMANCE, frozenset(), tuple(catches), records, seconds,
                   unmet=unmet, note=note)


def run_conformance(selection: Selection, options: Options, progress: Progress) -> list[Outcome]:
    return [_report(progress, _conformance(m, options.processes)) for m in selection.impl]


RUNNERS: dict[str, Runner] = {
    SCENARIOS.name: run_scenario,
    HYPOTHESIS.name: run_hypothesis,
    Z3_BMC.name: run_z3,
    CONFORMANCE.name: run_conformance,
}
"""Checker name (`Checker.name`) -> its runner (looked up at run time, so a test can replace
one)."""


def _impl_mutants() -> tuple[ImplMutant, ...]:
    """The reference mutants the command runs: those of its sets."""
    return reference_mutants(*COMMAND_SETS)


def select(names: Sequence[str] | None) -> Selection:
    """The spec and implementation mutants of these names (None: all of them)."""
    return Selection(
        tuple(m for m in spec_mutants() if names is None or m.name in names),
        tuple(m for m in _impl_mutants() if names is None or m.name in names),
    )


def applies(checker: str, name: str) -> bool:
    """Whether the checker named `checker` has something to check the mutant `name` with."""
    if column(checker) is CONFORMANCE:
        return any(m.name == name for m in _impl_mutants())
    return any(m.name == name and required(column(checker), m) for m in spec_mutants())
