"""Every checker's breaks as evidence for the drift lattice, each replayed before it counts.

`gather(paths)` reads records files (or folders of them: the main job's, the docs snapshot)
and makes a `lattice_report.Break` of every counterexample whose trace file:

1. replays on the spec with its own configuration and breaks its property at the recorded
   step (`replay_data`); and
2. still breaks it, at the same step, with every drift source added to the configuration's
   environment (the spec reads the environment only in guards, so adding sources only
   enables more; this is the check that the break "stands above" its environment).

A trace failing either is not evidence: it is reported by `rejected` (and the command prints
them), never merged. The break's instance is the trace's own configuration in words
(`instance.describe`): Z3's, Hypothesis's or a scenario's, not a rung of the lattice ladder.
Environments outside the lattice's drift sources (`D5-router`) are skipped. The pair cells'
hand-built witnesses (`model_checks.kernel.pair_witnesses`) are evidence too, checker
`pair-witness`, made into traces on the matrix's instance of their pair. A folder (or file)
of replayable trace files is evidence too (a lattice run's witnesses, say), each under the
checker, variant, environment and property its `#meta` names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from model_checks.explore.instance import describe
from model_checks.explore.lattice_report import Break
from model_checks.kernel import itf, legacy_trace, result_files
from model_checks.kernel.trace_file import BadTraceFile, replay_data, trace_to_json
from model_checks.kernel.verdict_records import PAIR_WITNESS, Verdict, VerdictRecord, read_records
from spec import ALL_DRIFT, Drift, TraceError, by_id, run, variant_named

rejected: list[str] = []
"""Why each counterexample of the last `gather` was not taken as evidence."""


def replayed_break(data: dict[str, Any], variant: str, prop: str, env: tuple[str, ...],
                   checker: str, source: str) -> Break | str:
    """A `Break` from one trace's JSON, or why it is not evidence."""
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
    """The pair cells' hand-built S1 witnesses (`model_checks.kernel.pair_witnesses`), each run on
    the matrix's instance of its pair and replayed like any other trace."""
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


def _trace_file(path: Path) -> dict[str, Any] | None:
    """The trace in `path` if it is a trace file of the spec (an ITF document with the
    project's metadata), else None."""
    try:
        data = result_files.read(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not (itf.is_trace(data) or legacy_trace.is_old_trace(data)):
        return None
    return data if "design" not in _meta(data) else None


def _meta(data: dict[str, Any]) -> dict[str, Any]:
    """The project's metadata of a trace (an old-format file's `#meta`)."""
    found: dict[str, Any] = itf.project(data) if itf.is_trace(data) else data.get("#meta", {})
    return found


def gather(paths: Iterable[Path]) -> list[Break]:
    """The replayed breaks of every counterexample record under `paths` and of the pair
    cells' witnesses, shortest first."""
    rejected.clear()
    drift_ids = {d.value for d in Drift}
    by_path: dict[str, list[VerdictRecord]] = {}
    checkers: dict[tuple[str, tuple[str, ...], str], set[str]] = {}
    loose: list[Break] = []
    for path in paths:
        files = result_files.json_files(path) if path.is_dir() else [path]
        if not path.exists():
            raise ValueError(f"--evidence {path}: no such file or folder")
        for file in files:
            trace = _trace_file(file)
            if trace is not None:  # a replayable trace file, not a records file
                meta = _meta(trace)
                if set(meta.get("environment", [])) <= drift_ids:
                    made = replayed_break(trace, meta["variant"], meta["property"],
                                          tuple(meta["environment"]),
                                          str(meta.get("checker", "?")), file.as_posix())
                    (loose.append if isinstance(made, Break) else rejected.append)(made)  # type: ignore[arg-type]
                continue
            try:
                records = read_records(file)
            except (OSError, ValueError, KeyError, TypeError) as error:
                raise ValueError(f"--evidence {file}: unreadable records ({error})") from None
            for r in records:
                if r.verdict is not Verdict.COUNTEREXAMPLE or not set(r.environment) <= drift_ids:
                    continue
                cell = (r.variant, tuple(r.environment), r.property)
                checkers.setdefault(cell, set()).add(r.checker)
                if r.counterexample_path:
                    by_path.setdefault(r.counterexample_path, []).append(r)
    found: list[Break] = list(loose)
    for trace_path, group in sorted(by_path.items()):
        first = group[0]
        try:
            data = result_files.read(Path(trace_path))
        except (OSError, ValueError) as error:
            rejected.append(f"{trace_path}: unreadable ({error})")
            continue
        checker = str(_meta(data).get("checker") or first.checker)
        made = replayed_break(data, first.variant, first.property, tuple(first.environment),
                              checker, trace_path)
        if isinstance(made, Break):
            cell = (first.variant, tuple(first.environment), first.property)
            found.append(replace(made, found_by=tuple(sorted(checkers[cell]))))
        else:
            rejected.append(made)
    for made in pair_witnesses():
        (found.append if isinstance(made, Break) else rejected.append)(made)  # type: ignore[arg-type]
    return sorted(found, key=lambda b: (b.variant, b.property, b.steps, b.source))
