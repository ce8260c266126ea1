"""Every checker's breaks as evidence for the drift lattice, each replayed before it counts.

`gather(paths, replay)` reads records files (or folders of them: the main job's, the docs
snapshot) and makes a `lattice_report.Break` of every counterexample whose trace file the
design's lattice replays (`Replay`: the LRU design's, `lattice_lru.replayed_break`, replays it
on the spec with its own configuration, breaking its property at the recorded step, and again
with every drift source added, the check that the break "stands above" its environment). A
trace that does not is not evidence: it is reported by `rejected` (and the command prints
them), never merged. Environments outside the lattice's drift sources (`D5-router`) are
skipped. A folder (or file) of replayable trace files is evidence too (a lattice run's
witnesses, say), each under the checker, variant, environment and property its `#meta`
names, and so is what the design's lattice makes itself (`own`: the LRU design's pair cells'
hand-built witnesses, `lattice_lru.pair_witnesses`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from model_checks.explore.lattice_report import Break
from model_checks.kernel import itf, legacy_trace, result_files
from model_checks.kernel.verdict_records import Verdict, VerdictRecord, read_records
from spec.drift import Drift

Replay = Callable[[dict[str, Any], str, str, tuple[str, ...], str, str], Break | str]
"""A design's replay of one trace's document, given the variant, property, environment,
checker and where it came from: the `Break` it is evidence of, or why it is not."""

rejected: list[str] = []
"""Why each counterexample of the last `gather` was not taken as evidence."""


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


def gather(paths: Iterable[Path], replay: Replay,
           own: Callable[[], list[Break | str]] = list) -> list[Break]:
    """The breaks `replay` makes of every counterexample record and trace file under
    `paths`, and those the design makes itself (`own`), shortest first."""
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
                    made = replay(trace, meta["variant"], meta["property"],
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
        made = replay(data, first.variant, first.property, tuple(first.environment),
                              checker, trace_path)
        if isinstance(made, Break):
            cell = (first.variant, tuple(first.environment), first.property)
            found.append(replace(made, found_by=tuple(sorted(checkers[cell]))))
        else:
            rejected.append(made)
    for made in own():
        (found.append if isinstance(made, Break) else rejected.append)(made)  # type: ignore[arg-type]
    return sorted(found, key=lambda b: (b.variant, b.property, b.steps, b.source))
