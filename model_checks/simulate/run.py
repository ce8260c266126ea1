"""Run the Hypothesis machines over the verdict matrix and the mutants.

Per cell (variant x environment of the expected matrix: `model_checks.kernel.matrix.EXPECTED`, or
the selection `--cells` names; each held to `Cell.at_instance`): one search checks every
must-hold property at once (if one breaks, that is a mismatch; it is recorded and the search
runs again without it), then one search per must-break property checks that property alone,
so that Hypothesis shrinks towards a minimal counterexample of exactly that property. Every
counterexample is written as a JSON trace and re-played on the spec before it is reported.
Spec mutants (`model_checks.mutation.spec_mutants`) run the same way in their witness's
configuration, with the properties their witness breaks as must-break.
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
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.cells import Agreement, agreement, cell_label, identifier
from model_checks.kernel.instance import WIDER_IN_FLIGHT, config_for
from model_checks.kernel.matrix import EXPECTED, Cell, Expectation
from model_checks.kernel.trace_file import replay_data, trace_to_json, write_trace
from model_checks.kernel.verdict_records import HYPOTHESIS, Verdict, VerdictRecord
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from model_checks.simulate.hypothesis_private import NO_CLOCK, shrink_bound
from model_checks.simulate.lru_rules import LRU_RULES
from model_checks.simulate.machine import PropertyViolated, RuleStats, machine_class, rule_names
from model_checks.simulate.profiles import PROFILES, SimulateProfile
from model_checks.simulate.witnesses import Script, shortest_witness
from spec import Config, Trace, variant_named

CHECKER = HYPOTHESIS.record
__all__ = ["NO_CLOCK", "PROFILES", "CellResult", "SimulateProfile", "run_cell", "run_matrix",
           "run_mutant", "run_mutants", "run_wider", "shrink_bound"]


@dataclass(frozen=True)
class Finding:
    property_id: str
    step: int  # the step the property broke at: the counterexample's length
    reason: str
    trace: Trace
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


def search(
    label: str,
    config: Config,
    checked: Sequence[str],
    profile: SimulateProfile,
    examples: int,
    stats: RuleStats,
) -> Search:
    """One Hypothesis run of the machine for `config` checking `checked`, its class named
    after `label` made an identifier (`V2_D2+D7` gives `V2_D2_D7__S1`)."""
    name = f"{identifier(label)}__{'_'.join(checked)}"
    cls = machine_class(name, LRU_RULES, config, checked, focused=True)
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
    config: Config, env: tuple[str, ...], prop: str, s: Search, extra: Sequence[Script]
) -> Search:
    """The search found nothing: fall back on the explicit witnesses (see `witnesses`)."""
    found = shortest_witness(config, env, prop, extra)
    if found is None:
        return s
    name, trace, step, script_length, reason = found
    searched = f"none in {s.examples} examples" if s.examples else "tried before a search"
    finding = Finding(prop, step, reason, trace, script_length, "",
                      detail=f"explicit witness {name} (search: {searched}): {reason}")
    return Search(s.machine, s.checked, s.examples, s.steps, s.seconds, finding)


def _discard(text: object) -> None:
    """Hypothesis's own reports (its shrinking warnings among them): the findings carry the
    printed trace as exception notes, and the tables say the rest."""
    del text


def _record(
    cell: CellResult, prop: str, s: Search, out: Path | None, detail: str = ""
) -> VerdictRecord:
    finding = s.finding if s.finding and s.finding.property_id == prop else None
    path = None
    if finding is not None and out is not None:
        path = out / f"{cell.label}_{prop}.json"
        data = trace_to_json(
            finding.trace, property_id=prop, step=finding.step, reason=finding.reason,
            fair_from=finding.fair_from,
        )
        replayed = replay_data(data)  # every counterexample is replayed before it is reported
        if replayed.step != finding.step:
            where = f"{replayed.step}, not {finding.step}"
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
    environment's drift sources, the configuration searched, and the expected verdict per
    property."""

    label: str
    variant_name: str
    env: tuple[str, ...]
    config: Config
    expectations: Mapping[str, Expectation]


def run_cell(simulated: SimulatedCell, profile: SimulateProfile, out: Path | None,
             witnesses: Sequence[Script] = (), witness_first: bool = False) -> CellResult:
    """Search the cell's configuration as `profile` says for a counterexample to each
    property, held or broken as expected; with `witness_first`, a property expected to break
    is first tried on `witnesses` (a verdict is enough there, not the shortest
    counterexample); the counterexample files go under `out`."""
    label, variant_name, env = simulated.label, simulated.variant_name, simulated.env
    config, expectations = simulated.config, simulated.expectations
    start = time.perf_counter()
    cell = CellResult(label, variant_name, env, expectations, rules=rule_names(LRU_RULES, config))
    holds = [p for p, e in expectations.items() if e is Expectation.HOLDS]
    breaks = [p for p, e in expectations.items() if e is Expectation.BREAKS]
    while holds:
        s = search(label, config, holds, profile, profile.holds_examples, cell.stats)
        if s.finding is None:
            cell.records.extend(_record(cell, p, s, out) for p in holds)
            break
        broken = s.finding.property_id
        if broken not in holds:  # a deadlock: nothing else can be judged past it
            cell.mismatches.append(f"{label}: {broken}: {s.finding.reason}")
            cell.records.append(_record(cell, broken, s, out))
            break
        cell.records.append(_record(cell, broken, s, out))
        cell.mismatches.append(f"{label}: {broken} must hold, counterexample of length "
                               f"{s.finding.length}")
        holds.remove(broken)
    for prop in breaks:
        s = Search(label, (prop,), 0, 0, 0.0, None)
        if witness_first:  # a verdict is enough here, not the shortest counterexample
            s = _from_witness(config, env, prop, s, witnesses)
        if s.finding is None or s.finding.property_id != prop:
            s = search(label, config, [prop], profile, profile.break_examples, cell.stats)
        if s.finding is None or s.finding.property_id != prop:
            s = _from_witness(config, env, prop, s, witnesses)
        record = _record(cell, prop, s, out, s.finding.detail if s.finding else "")
        cell.records.append(record)
        if agreement(HYPOTHESIS, Expectation.BREAKS, record.verdict) is Agreement.MISMATCH:
            found = s.finding.property_id if s.finding else "nothing"
            cell.mismatches.append(f"{label}: {prop} must break, found {found} in "
                                   f"{s.examples} examples")
    cell.seconds = time.perf_counter() - start
    return cell


def _run_expected(index: int, profile: SimulateProfile, out: Path | None) -> CellResult:
    cell = ALL_EXPECTED[index]
    config = config_for(variant_named(cell.variant), cell.environment)
    label = cell_label(cell.variant, cell.environment)
    return run_cell(SimulatedCell(label, cell.variant, cell.environment, config,
                                  cell.at_instance), profile, out)


def run_matrix(
    profile: SimulateProfile, out: Path | None, cells: Sequence[Cell] = EXPECTED,
    progress: bool = False, backend: Backend | None = None,
) -> list[CellResult]:
    """Every cell, through `backend` (default: `profile.jobs` local processes); each cell is
    an independent, deterministic task. Results in the order of `cells`."""
    tasks = [Task(cell_label(c.variant, c.environment), _run_expected,
                (ALL_EXPECTED.index(c), profile, out)) for c in cells]
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


WIDER_CHECKER = f"hypothesis-{WIDER_IN_FLIGHT}-unfinished"
"""The checker name of the records judging L3/L4 at the wider instance (kept apart from the
cell's records, whose instance is `IN_FLIGHT` unfinished requests)."""


def _run_wider(index: int, profile: SimulateProfile, out: Path | None) -> CellResult:
    """L3 and L4 of one cell at `WIDER_IN_FLIGHT` unfinished requests, against `Cell.wider`."""
    cell = ALL_EXPECTED[index]
    config = config_for(variant_named(cell.variant), cell.environment, WIDER_IN_FLIGHT)
    label = f"{cell_label(cell.variant, cell.environment)}_{WIDER_IN_FLIGHT}_unfinished"
    simulated = SimulatedCell(label, cell.variant, cell.environment, config, cell.wider)
    result = run_cell(simulated, profile, out, witness_first=True)
    result.records = [replace(r, checker=WIDER_CHECKER) for r in result.records]
    return result


def run_wider(
    profile: SimulateProfile, out: Path | None, cells: Sequence[Cell] = EXPECTED,
    progress: bool = False, backend: Backend | None = None,
) -> list[CellResult]:
    """Every cell's L3 and L4 at the wider instance, through `backend` like `run_matrix`."""
    tasks = [Task(f"{cell_label(c.variant, c.environment)}_{WIDER_IN_FLIGHT}_unfinished",
                _run_wider, (ALL_EXPECTED.index(c), profile, out)) for c in cells]
    failed = [(c.variant, c.environment, c.wider) for c in cells]
    title = f"L3/L4 at {WIDER_IN_FLIGHT} unfinished requests" if progress else None
    return _gathered(tasks, failed, profile, backend, title)


def run_mutant(mutant: Mutant, profile: SimulateProfile, out: Path | None) -> CellResult:
    config = mutant.witness.config(mutant.variant)
    expectations = {p: Expectation.BREAKS for p in sorted(mutant.breaks)}
    label = identifier(f"mutant_{mutant.name}")
    own = Script(f"mutant witness {mutant.witness.name}", frozenset(mutant.witness.drift),
                  mutant.witness.script)
    simulated = SimulatedCell(label, mutant.variant.name, mutant.witness.drift, config,
                              expectations)
    return run_cell(simulated, profile, out, (own,))


def _run_mutant_at(index: int, profile: SimulateProfile, out: Path | None) -> CellResult:
    return run_mutant(spec_mutants()[index], profile, out)


def run_mutants(
    profile: SimulateProfile, out: Path | None, progress: bool = False,
    backend: Backend | None = None,
) -> list[CellResult]:
    tasks = [Task(identifier(f"mutant_{m.name}"), _run_mutant_at, (i, profile, out))
            for i, m in enumerate(spec_mutants())]
    cells = [(m.variant.name, m.witness.drift, {p: Expectation.BREAKS for p in sorted(m.breaks)})
             for m in spec_mutants()]
    return _gathered(tasks, cells, profile, backend, "Hypothesis mutants" if progress else None)
