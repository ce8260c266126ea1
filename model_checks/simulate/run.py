"""Run the Hypothesis machines over a design's expected verdict matrix and its mutants.

The design declares its matrix (`simulate.matrix_design.MatrixDesign`, the table
`simulate.lru_matrix.matrix_for`; the LRU design's: `model_checks.kernel.matrix.EXPECTED`)
and its rules (`simulate.lru_rules.rules_for`); nothing here reads a design's spec.
Per cell (variant x environment of the expected matrix, or the selection `--cells` names;
each held to `Cell.at_instance`): one search checks every
must-hold property at once (if one breaks, that is a mismatch; it is recorded and the search
runs again without it), then one search per must-break property checks that property alone,
so that Hypothesis shrinks towards a minimal counterexample of exactly that property. Every
counterexample is written as a JSON trace and re-played on the spec before it is reported.
The mutants of the design's spec (the LRU design's: `model_checks.mutation.spec_mutants`) run
the same way in their witness's configuration, with the properties their witness breaks as
must-break.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis.errors import Flaky
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test

from model_checks import executor
from model_checks.executor import Backend, Done, Failed, LineProgress, LocalProcesses, Task
from model_checks.kernel.cells import (
    Agreement,
    Cell,
    Expectation,
    agreement,
    cell_label,
    identifier,
)
from model_checks.kernel.itf import write_trace
from model_checks.kernel.verdict_records import HYPOTHESIS, Verdict, VerdictRecord
from model_checks.simulate.hypothesis_private import NO_CLOCK, shrink_bound
from model_checks.simulate.lru_matrix import matrix_for
from model_checks.simulate.lru_rules import rules_for
from model_checks.simulate.machine import (
    DesignRules,
    PropertyViolated,
    RuleStats,
    machine_class,
    rule_names,
)
from model_checks.simulate.matrix_design import MatrixDesign, MutantCase, Script
from model_checks.simulate.profiles import PROFILES, SimulateProfile
from spec.designs import design_named
from spec.designs.base import DEFAULT_DESIGN, UnknownDesign

CHECKER = HYPOTHESIS.record
__all__ = ["NO_CLOCK", "PROFILES", "CellResult", "SimulateProfile", "run_cell", "run_matrix",
           "run_mutant", "run_mutants", "run_wider", "shrink_bound"]


@dataclass(frozen=True)
class Finding:
    property_id: str
    step: int  # the step the property broke at: the counterexample's length
    reason: str
    trace: Any  # the design's trace
    fair_from: int
    hypothesis_trace: str  # the trace as Hypothesis printed it (replayable Python)
    path: Path | None = None
    detail: str = ""  # set for an explicit witness

    @property
    def length(self) -> int:
        return self.step


@dataclass
class Search:
    machine: str
    checked: tuple[str, ...]
    examples: int
    steps: int
    seconds: float
    finding: Finding | None


@dataclass
class CellResult:
    label: str
    variant: str
    environment: tuple[str, ...]
    expectations: Mapping[str, Expectation]
    records: list[VerdictRecord] = field(default_factory=list)
    stats: RuleStats = field(default_factory=RuleStats)
    rules: tuple[str, ...] = ()
    findings: dict[str, Finding] = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)
    seconds: float = 0.0
    traces: dict[Path, dict[str, Any]] = field(default_factory=dict)
    """Counterexample files to write (path: content): written by the process that gathers the
    results (`write_traces`), since a cluster worker's disk is not the submitter's."""

    def coverage_failures(self) -> list[str]:
        return self.stats.never_fired()


def matrix_of(design: str) -> MatrixDesign:
    """The expected matrix `design` declares (`matrix_for`); `UnknownDesign` for none."""
    found = matrix_for(design)
    if found is None:
        raise UnknownDesign(f"design {design!r} declares no expected matrix")
    return found


def _rules(design: str) -> DesignRules:
    return rules_for(design_named(design))


def search(
    label: str,
    config: Any,
    checked: Sequence[str],
    profile: SimulateProfile,
    examples: int,
    stats: RuleStats,
) -> Search:
    """One Hypothesis run of the default design's machine for `config` checking `checked`,
    its class named after `label` made an identifier (`V2_D2+D7` gives `V2_D2_D7__S1`)."""
    cell = SimulatedCell(label, "", (), config, {})
    return _search(cell, checked, profile, examples, stats)


def _search(cell: SimulatedCell, checked: Sequence[str], profile: SimulateProfile,
            examples: int, stats: RuleStats) -> Search:
    """One Hypothesis run of the machine of `cell`'s design for its configuration, checking
    `checked` (`search`)."""
    name = f"{identifier(cell.label)}__{'_'.join(checked)}"
    cls = machine_class(name, _rules(cell.design), cell.config, checked, focused=True)
    cls.stats = RuleStats()
    start = time.perf_counter()
    finding = None
    try:
        with shrink_bound(profile.max_shrinks), with_reporter(_discard):
            run_state_machine_as_test(cls, settings=profile.settings(examples))
    except PropertyViolated as error:
        notes = getattr(error, "__notes__", [])
        printed = "\n".join(n for n in notes if n.startswith(("state", "Failing")))
        printed = printed.replace("Failing test case: <state machine>\n", "")
        printed = printed.replace("Failing test case: <state machine>", "")
        finding = Finding(
            error.property_id, error.step_number, error.reason, error.trace,
            error.prefix, printed.strip(),
        )
    except Flaky as error:  # pragma: no cover - the spec is deterministic
        raise RuntimeError(f"{name}: Hypothesis reports a flaky failure: {error}") from None
    seconds = time.perf_counter() - start
    stats.merge(cls.stats)
    return Search(name, tuple(checked), examples, cls.stats.steps, seconds, finding)


def _from_witness(
    matrix: MatrixDesign, config: Any, env: tuple[str, ...], prop: str, s: Search,
    extra: Sequence[Script],
) -> Search:
    """The search found nothing: fall back on the design's explicit witnesses
    (`MatrixDesign.witness`)."""
    found = matrix.witness(config, env, prop, extra)
    if found is None:
        return s
    name, trace, step, script_length, reason = (found.name, found.trace, found.step,
                                                found.script_length, found.reason)
    searched = f"none in {s.examples} examples" if s.examples else "tried before a search"
    finding = Finding(prop, step, reason, trace, script_length, "",
                      detail=f"explicit witness {name} (search: {searched}): {reason}")
    return Search(s.machine, s.checked, s.examples, s.steps, s.seconds, finding)


def _discard(text: object) -> None:
    """Hypothesis's own reports (its shrinking warnings among them): the findings carry the
    printed trace as exception notes, and the tables say the rest."""
    del text


def _record(
    matrix: MatrixDesign, cell: CellResult, prop: str, s: Search, out: Path | None,
    detail: str = "",
) -> VerdictRecord:
    finding = s.finding if s.finding and s.finding.property_id == prop else None
    path = None
    if finding is not None and out is not None:
        path = out / f"{cell.label}_{prop}.json"
        data = matrix.trace_document(finding.trace, prop, finding.step, finding.reason,
                                     finding.fair_from)
        replayed = matrix.replayed_step(data)  # every counterexample is replayed first
        if replayed != finding.step:
            where = f"{replayed}, not {finding.step}"
            raise RuntimeError(f"{path}: replay broke {prop} at {where}")
        cell.traces[path] = data
        finding = Finding(**{**finding.__dict__, "path": path})
    if finding is not None:
        cell.findings[prop] = finding
    return VerdictRecord(
        checker=CHECKER,
        variant=cell.variant,
        environment=cell.environment,
        property=prop,
        verdict=Verdict.COUNTEREXAMPLE if finding else Verdict.HOLDS,
        bound=s.steps,
        bound_unit="steps",
        seconds=round(s.seconds, 3),
        counterexample_length=finding.length if finding else None,
        counterexample_path=str(path) if path else None,
        detail=detail or (finding.reason if finding else f"{s.examples} examples"),
    )


@dataclass(frozen=True)
class SimulatedCell:
    """One cell to simulate: its `label` (file and record names), the variant's name, the
    environment's drift sources, the configuration searched, the expected verdict per
    property, and the design whose matrix it is of."""

    label: str
    variant_name: str
    env: tuple[str, ...]
    config: Any
    expectations: Mapping[str, Expectation]
    design: str = DEFAULT_DESIGN


def run_cell(simulated: SimulatedCell, profile: SimulateProfile, out: Path | None,
             witnesses: Sequence[Script] = (), witness_first: bool = False) -> CellResult:
    """Search the cell's configuration as `profile` says for a counterexample to each
    property, held or broken as expected; with `witness_first`, a property expected to break
    is first tried on `witnesses` (a verdict is enough there, not the shortest
    counterexample); the counterexample files go under `out`."""
    label, variant_name, env = simulated.label, simulated.variant_name, simulated.env
    config, expectations = simulated.config, simulated.expectations
    design, matrix = simulated.design, matrix_of(simulated.design)
    start = time.perf_counter()
    cell = CellResult(label, variant_name, env, expectations,
                      rules=rule_names(_rules(design), config))
    holds = [p for p, e in expectations.items() if e is Expectation.HOLDS]
    breaks = [p for p, e in expectations.items() if e is Expectation.BREAKS]
    while holds:
        s = _search(simulated, holds, profile, profile.holds_examples, cell.stats)
        if s.finding is None:
            cell.records.extend(_record(matrix, cell, p, s, out) for p in holds)
            break
        broken = s.finding.property_id
        if broken not in holds:  # a deadlock: nothing else can be judged past it
            cell.mismatches.append(f"{label}: {broken}: {s.finding.reason}")
            cell.records.append(_record(matrix, cell, broken, s, out))
            break
        cell.records.append(_record(matrix, cell, broken, s, out))
        cell.mismatches.append(f"{label}: {broken} must hold, counterexample of length "
                               f"{s.finding.length}")
        holds.remove(broken)
    for prop in breaks:
        s = Search(label, (prop,), 0, 0, 0.0, None)
        if witness_first:  # a verdict is enough here, not the shortest counterexample
            s = _from_witness(matrix, config, env, prop, s, witnesses)
        if s.finding is None or s.finding.property_id != prop:
            s = _search(simulated, [prop], profile, profile.break_examples, cell.stats)
        if s.finding is None or s.finding.property_id != prop:
            s = _from_witness(matrix, config, env, prop, s, witnesses)
        record = _record(matrix, cell, prop, s, out, s.finding.detail if s.finding else "")
        cell.records.append(record)
        if agreement(HYPOTHESIS, Expectation.BREAKS, record.verdict) is Agreement.MISMATCH:
            found = s.finding.property_id if s.finding else "nothing"
            cell.mismatches.append(f"{label}: {prop} must break, found {found} in "
                                   f"{s.examples} examples")
    cell.seconds = time.perf_counter() - start
    return cell


def _run_expected(design: str, index: int, profile: SimulateProfile, out: Path | None
                  ) -> CellResult:
    matrix = matrix_of(design)
    cell = matrix.all_cells[index]
    label = cell_label(cell.variant, cell.environment)
    return run_cell(SimulatedCell(label, cell.variant, cell.environment, matrix.config(cell),
                                  cell.at_instance, design), profile, out)


def run_matrix(
    profile: SimulateProfile, out: Path | None, cells: Sequence[Cell],
    progress: bool = False, backend: Backend | None = None, design: str = DEFAULT_DESIGN,
) -> list[CellResult]:
    """Every cell of `design`'s matrix, through `backend` (default: `profile.jobs` local
    processes); each cell is an independent, deterministic task. Results in the order of
    `cells`."""
    every = matrix_of(design).all_cells
    tasks = [Task(cell_label(c.variant, c.environment), _run_expected,
                (design, every.index(c), profile, out)) for c in cells]
    failed = [(c.variant, c.environment, c.at_instance) for c in cells]
    return _gathered(tasks, failed, profile, backend, "Hypothesis cells" if progress else None)


def _gathered(
    tasks: Sequence[Task[CellResult]],
    cells: Sequence[tuple[str, tuple[str, ...], Mapping[str, Expectation]]],
    profile: SimulateProfile,
    backend: Backend | None,
    title: str | None,
) -> list[CellResult]:
    """Run the tasks, write their counterexample files here; a failed task becomes a cell with
    no records and one mismatch naming the error (the other cells are kept)."""
    report = LineProgress(title, _cell_line) if title is not None else None
    results = executor.run(tasks, backend or LocalProcesses(profile.jobs), report)
    gathered = []
    for result, (variant, env, expectations) in zip(results, cells, strict=True):
        if isinstance(result, Failed):
            cell = CellResult(result.label, variant, env, expectations)
            cell.mismatches.append(f"{result.label}: the task failed: {result.error}")
        else:
            cell = result.value
        write_traces(cell)
        gathered.append(cell)
    return gathered


def write_traces(cell: CellResult) -> None:
    for path, data in cell.traces.items():
        write_trace(path, data)


def _cell_line(done: Done[CellResult]) -> str:
    cell = done.value
    broken = " ".join(sorted(cell.findings)) or "none"
    return (f"{cell.label}: {cell.seconds:.1f} s, broken: {broken}"
            f"{' MISMATCH' if cell.mismatches else ''}")


def wider_checker(design: str = DEFAULT_DESIGN) -> str:
    """The checker name of the records judging `Cell.wider` at the wider instance (kept apart
    from the cell's records, whose instance is the matrix's):
    `hypothesis-3-unfinished` for the LRU design's L3/L4."""
    return f"hypothesis-{matrix_of(design).wider_in_flight}-unfinished"


def _wider_label(cell: Cell, matrix: MatrixDesign) -> str:
    return f"{cell_label(cell.variant, cell.environment)}_{matrix.wider_in_flight}_unfinished"


def _run_wider(design: str, index: int, profile: SimulateProfile, out: Path | None
               ) -> CellResult:
    """One cell's properties judged at the wider instance, against `Cell.wider`."""
    matrix = matrix_of(design)
    cell = matrix.all_cells[index]
    simulated = SimulatedCell(_wider_label(cell, matrix), cell.variant, cell.environment,
                              matrix.config(cell, wider=True), cell.wider, design)
    result = run_cell(simulated, profile, out, witness_first=True)
    result.records = [replace(r, checker=wider_checker(design)) for r in result.records]
    return result


def run_wider(
    profile: SimulateProfile, out: Path | None, cells: Sequence[Cell],
    progress: bool = False, backend: Backend | None = None, design: str = DEFAULT_DESIGN,
) -> list[CellResult]:
    """Every cell's `Cell.wider` at the wider instance, through `backend` like `run_matrix`."""
    matrix = matrix_of(design)
    tasks = [Task(_wider_label(c, matrix), _run_wider,
                  (design, matrix.all_cells.index(c), profile, out)) for c in cells]
    failed = [(c.variant, c.environment, c.wider) for c in cells]
    title = (f"L3/L4 at {matrix.wider_in_flight} unfinished requests" if progress else None)
    return _gathered(tasks, failed, profile, backend, title)


def _mutant_expectations(case: MutantCase) -> dict[str, Expectation]:
    return {p: Expectation.BREAKS for p in sorted(case.breaks)}


def run_mutant(mutant: Any, profile: SimulateProfile, out: Path | None,
               design: str = DEFAULT_DESIGN) -> CellResult:
    """A mutant of `design`'s spec (one of `MatrixDesign.mutants`) searched as a cell, its
    own witness tried when the search finds nothing."""
    case = matrix_of(design).mutant_case(mutant)
    simulated = SimulatedCell(identifier(f"mutant_{case.name}"), case.variant,
                              case.environment, case.config, _mutant_expectations(case),
                              design)
    return run_cell(simulated, profile, out, (case.witness,))


def _run_mutant_at(design: str, index: int, profile: SimulateProfile, out: Path | None
                   ) -> CellResult:
    return run_mutant(matrix_of(design).mutants()[index], profile, out, design)


def run_mutants(
    profile: SimulateProfile, out: Path | None, progress: bool = False,
    backend: Backend | None = None, design: str = DEFAULT_DESIGN,
) -> list[CellResult]:
    matrix = matrix_of(design)
    cases = [matrix.mutant_case(m) for m in matrix.mutants()]
    tasks = [Task(identifier(f"mutant_{c.name}"), _run_mutant_at, (design, i, profile, out))
             for i, c in enumerate(cases)]
    cells = [(c.variant, c.environment, _mutant_expectations(c)) for c in cases]
    return _gathered(tasks, cells, profile, backend, "Hypothesis mutants" if progress else None)
