"""The results snapshot the generated pages are rendered from: `docs/results/`.

A main job takes minutes and the times in its records differ from run to run, so the pages
never read a live run: they read `results/records.json.gz` (the verdict records of the scenarios,
Hypothesis, Z3 and the explorer from main-job runs, restricted to the cells of the expected
matrix) and `results/traces/*.json` (per cell with a counterexample, the shortest trace
across checkers, Z3 preferred on ties, then the explorer's, as replayable ITF
traces, `model_checks.kernel.itf`).
`from_run` builds a new snapshot from a run's records file (a whole main job, or one phase's
part such as `build/main-job/parts/4-explore.json`), keeping the records of the checkers and
cells that run did not judge (`carried_over`), checking every trace it copies; nothing is
written unless all of it can be read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from model_checks.kernel import itf, result_files
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.cells import cell_label
from model_checks.kernel.matrix import PROPERTIES
from model_checks.kernel.trace_file import BadTraceFile, replay_data
from model_checks.kernel.verdict_records import CHECKERS as ALL_CHECKERS
from model_checks.kernel.verdict_records import (
    EXPLORE,
    SCENARIOS,
    Verdict,
    VerdictRecord,
    checker_named,
)
from spec.drift import Environment

RESULTS = "results"
RECORDS = f"{RESULTS}/records.json.gz"
TRACES = f"{RESULTS}/traces"
CHECKERS = tuple(c.record for c in ALL_CHECKERS if c.judges_cells)
"""The checkers whose records judge cells of the matrix (conformance judges implementations
against the spec, the mutants are not cells: neither is kept). The explorer's records of its
lemmas (I1-I7) are not cells of the matrix either: only the registry's properties are kept."""
TRACE_CHECKERS = tuple(c for c in CHECKERS if c != SCENARIOS.record)
"""The checkers whose records carry a trace (a scenario's record names its scenario)."""
REFRESH = "python -m model_checks docs --from-run build/main-job/records.json"

Key = tuple[str, tuple[str, ...], str]


class SnapshotError(Exception):
    """A snapshot or run file that cannot be used; the message is one line saying why."""


@dataclass(frozen=True)
class Snapshot:
    """The verdict records, and per trace file name its parsed JSON."""

    command: str
    records: tuple[VerdictRecord, ...]
    traces: dict[str, dict[str, Any]]


_VARIANT_ORDER = {v: i for i, v in enumerate(sorted({c.variant for c in ALL_EXPECTED}))}
_ENV_ORDER = {env: i for i, env in enumerate(dict.fromkeys(c.environment for c in ALL_EXPECTED))}
"""Every cell of the expected matrix, pairs included (a nightly run's records are kept)."""


def in_matrix(record: VerdictRecord) -> bool:
    """Whether a record judges a cell of the expected matrix with a checker the pages show."""
    return (
        record.checker in CHECKERS
        and record.variant in _VARIANT_ORDER
        and tuple(record.environment) in _ENV_ORDER
        and record.property in PROPERTIES
    )


def key(record: VerdictRecord) -> Key:
    return record.variant, tuple(record.environment), record.property


def _order(record: VerdictRecord) -> tuple[int, int, int, str, str]:
    return (
        _ENV_ORDER[tuple(record.environment)], _VARIANT_ORDER[record.variant],
        PROPERTIES.index(record.property), record.checker, record.detail,
    )


def trace_name(cell: Key) -> str:
    """The file name (without suffix) of a cell's trace and its counterexample page: the one
    spelling of a cell with its property (`cells.cell_label`, `V2_D2+D7_S1`)."""
    variant, env, prop = cell
    return cell_label(variant, env, prop)


def label(cell: Key) -> str:
    """`V0 D1 S3`: a cell as text."""
    variant, env, prop = cell
    return f"{variant} {Environment.of(env).text} {prop}"


def _trace_rank(record: VerdictRecord) -> tuple[int, int, str]:
    """Shorter first; on ties Z3 (the shortest in the matrix's instance), then the explorer
    (the shortest in its smaller one), then Hypothesis."""
    tie = 0 if record.checker.startswith("z3") else 1 if record.checker == EXPLORE.record else 2
    return record.counterexample_length or 0, tie, record.checker


def _shortest(records: Iterable[VerdictRecord]) -> dict[Key, VerdictRecord]:
    """Per cell, the record of its shortest counterexample trace (`_trace_rank`)."""
    best: dict[Key, VerdictRecord] = {}
    for r in records:
        if r.verdict is not Verdict.COUNTEREXAMPLE or r.counterexample_path is None:
            continue
        if r.checker not in TRACE_CHECKERS:
            continue
        old = best.get(key(r))
        if old is None or _trace_rank(r) < _trace_rank(old):
            best[key(r)] = r
    return best


# -- reading ---------------------------------------------------------------------------------


def _load_json(path: Path, what: str) -> Any:
    try:
        return result_files.read(path)
    except OSError as error:
        raise SnapshotError(f"cannot read {what} {path}: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise SnapshotError(f"{what} {path} is not JSON: {error}") from None


def read_run(path: Path) -> list[VerdictRecord]:
    """The records of a run's records file (`{"records": [...]}`); SnapshotError if unusable."""
    return _records(_load_json(path, "records file"), path)


def _records(data: Any, path: Path) -> list[VerdictRecord]:
    """The records of a records file's parsed JSON; SnapshotError naming `path` if unusable."""
    try:
        return [VerdictRecord.from_json(r) for r in data["records"]]
    except (KeyError, TypeError, ValueError) as error:
        why = f"{type(error).__name__}: {error}"
        raise SnapshotError(f"{path} is not a verdict records file: {why}") from None


def read_command(path: Path) -> str:
    """The command a snapshot's records file says it was taken with ("" if none)."""
    data = _load_json(path, "results snapshot")
    command = data.get("command", "") if isinstance(data, dict) else ""
    return str(command)


def load(root: Path) -> Snapshot:
    """The committed snapshot under `root` (the docs folder)."""
    path = root / RECORDS
    data = _load_json(path, "results snapshot")
    records = tuple(_records(data, path))
    traces: dict[str, dict[str, Any]] = {}
    for record in records:
        if record.counterexample_path is not None:
            name = Path(record.counterexample_path).name
            traces[name] = _load_json(root / TRACES / name, "snapshot trace")
    command = data.get("command", "") if isinstance(data, dict) else ""
    return Snapshot(str(command), records, traces)


# -- refreshing ------------------------------------------------------------------------------


def _locate(recorded: str, run: Path) -> Path:
    """A trace path as the run recorded it: absolute, or relative to the folder the run ran
    in, which is searched for upwards from the records file, then the working directory."""
    path = Path(recorded)
    candidates = [path] if path.is_absolute() else [
        *(parent / path for parent in run.resolve().parents), Path.cwd() / path
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise SnapshotError(f"trace {recorded} referenced by {run} not found")


def _checked_trace(record: VerdictRecord, run: Path) -> dict[str, Any]:
    """The trace a record references, replayed on the spec: it must break its property at the
    step the file says, which is the record's counterexample length (steps to the violation;
    a liveness trace goes on with the fair scheduler's steps)."""
    path = _locate(record.counterexample_path or "", run)
    data = _load_json(path, "trace")
    try:
        replayed = replay_data(data)
    except BadTraceFile as error:
        raise SnapshotError(f"{path}: {error}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise SnapshotError(
            f"{path} is not a replayable trace ({type(error).__name__}: {error})") from None
    cell = label(key(record))
    if replayed.property_id != record.property or replayed.step != replayed.recorded_step:
        raise SnapshotError(f"{path} does not reproduce {cell} on the spec")
    if replayed.step != record.counterexample_length:
        raise SnapshotError(f"{path} breaks {record.property} at step {replayed.step}, the "
                            f"record of {cell} says {record.counterexample_length}")
    return dict(data)


def _family(record: VerdictRecord) -> str:
    """The checker a record is of, one name for every record name of one checker (Z3's
    `z3-bmc` and `z3-induction` are both `z3`)."""
    return checker_named(record.checker).name


def _judged(records: Iterable[VerdictRecord]) -> set[tuple[str, Key]]:
    return {(_family(r), key(r)) for r in records}


def carried_over(run: Iterable[VerdictRecord],
                 previous: Iterable[VerdictRecord]) -> list[VerdictRecord]:
    """The previous snapshot's records of the (checker, cell) pairs the run did not judge; a
    checker with several record names is one checker here, so a cell Z3 answered by BMC in
    the run loses its earlier record of Z3's induction too (never two Z3 answers to a cell).

    A run that leaves part of the matrix to the nightly job (the main job's Z3 groups of
    `jobs.phases.PROVE_NIGHTLY_ONLY`) must not erase those cells' verdicts from the pages:
    they are kept, their traces replayed on the spec again like every other, and the
    snapshot's command says so."""
    judged = _judged(run)
    return [r for r in previous if in_matrix(r) and (_family(r), key(r)) not in judged]


KEPT = "; kept from the previous snapshot"
"""Where a refresh's command says what it carried over (`provenance`)."""
_TAKEN = re.compile(r"^ \(taken with ([^)]*)\)")


def sources(command: str) -> list[str]:
    """The commands a snapshot's records were taken with: its command's own part, then
    those it names for the records it kept (`provenance`), without repeats."""
    own, _, kept = command.partition(KEPT)
    match = _TAKEN.match(kept)
    named = re.findall(r"'([^']*)'", match.group(1)) if match else []
    return list(dict.fromkeys([own, *named] if own else named))


def provenance(command: str, kept_over: Iterable[VerdictRecord], previous_command: str) -> str:
    """The snapshot's command: the refresh's own, then, if it carried records over, how many
    per checker and every command the previous snapshot's records were taken with
    (`sources`: a flat list, so repeated refreshes never nest)."""
    counts: dict[str, int] = {}
    for record in kept_over:
        counts[record.checker] = counts.get(record.checker, 0) + 1
    if not counts:
        return command
    per_checker = ", ".join(f"{checker} {n}" for checker, n in sorted(counts.items()))
    before = "; ".join(f"'{c}'" for c in sources(previous_command))
    taken = f" (taken with {before})" if before else ""
    return (f"{command}{KEPT}{taken}, the records of the checkers and cells this run did not "
            f"judge: {per_checker}")


def from_run(run: Path, root: Path, command: str,
             previous: Iterable[VerdictRecord] = (), previous_command: str = "") -> Snapshot:
    """The snapshot of a run's records file: the matrix records, plus `carried_over` records
    of `previous` (the (checker, cell) pairs the run did not judge: a run of one checker, such
    as the main job's explore part, replaces that checker's records only), sorted; the chosen
    traces checked and renamed under `TRACES`; the other records' trace paths dropped."""
    fresh = [r for r in read_run(run) if in_matrix(r)]
    if not fresh:
        raise SnapshotError(f"{run} has no verdict records of the matrix's cells")
    kept_over = carried_over(fresh, previous)
    records = sorted(fresh + kept_over, key=_order)
    command = provenance(command, kept_over, previous_command)
    chosen = _shortest(records)
    traces = {f"{trace_name(k)}.json": _checked_trace(r, run) for k, r in chosen.items()}
    stored = f"{root.name}/{TRACES}/"
    kept = tuple(
        replace(r, counterexample_path=stored + f"{trace_name(key(r))}.json")
        if chosen.get(key(r)) is r else replace(r, counterexample_path=None)
        for r in records
    )
    return Snapshot(command, kept, traces)


def write(snapshot: Snapshot, root: Path) -> list[Path]:
    """Write the snapshot under `root`, removing trace files it no longer references."""
    payload = {"command": snapshot.command, "records": [r.to_json() for r in snapshot.records]}
    path = root / RECORDS
    result_files.write_text(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")
    written = [path]
    folder = root / TRACES
    folder.mkdir(parents=True, exist_ok=True)
    for old in sorted(folder.glob("*.json")):
        if old.name not in snapshot.traces:
            old.unlink()
    for name, data in sorted(snapshot.traces.items()):
        (folder / name).write_text(itf.text(data))
        written.append(folder / name)
    return written


def orphans(root: Path, snapshot: Snapshot) -> list[str]:
    """Trace files under `root` the snapshot's records do not reference."""
    folder = root / TRACES
    found = sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [f"{TRACES}/{p.name}" for p in found if p.name not in snapshot.traces]


# -- comparing a run with the snapshot -------------------------------------------------------


def _verdicts(records: Iterable[VerdictRecord]) -> dict[tuple[str, Key], list[str]]:
    kinds: dict[tuple[str, Key], list[str]] = {}
    for r in records:
        if in_matrix(r):
            kinds.setdefault((r.checker, key(r)), []).append(r.verdict.value)
    return {k: sorted(v) for k, v in kinds.items()}


def differing_cells(run: Iterable[VerdictRecord], snapshot: Iterable[VerdictRecord]) -> int:
    """How many (checker, variant, environment, property) cells the run judges have other
    verdict kinds in the run than in the snapshot (times and lengths are not compared)."""
    mine, theirs = _verdicts(run), _verdicts(snapshot)
    # Cells the run did not judge are not a difference: a refresh keeps them (`carried_over`).
    return sum(mine[k] != theirs.get(k) for k in mine)


def undecided_here(run: Iterable[VerdictRecord], snapshot: Iterable[VerdictRecord]) -> list[Key]:
    """The cells a checker leaves undecided in the run but decides in the snapshot: a run that
    has any must not replace the snapshot (it would turn decided verdicts into `?`)."""
    decided = {(r.checker, key(r)) for r in snapshot
               if in_matrix(r) and r.verdict is not Verdict.UNKNOWN}
    lost = {key(r) for r in run
            if in_matrix(r) and r.verdict is Verdict.UNKNOWN and (r.checker, key(r)) in decided}
    return sorted(lost, key=lambda k: (_ENV_ORDER[k[1]], _VARIANT_ORDER[k[0]],
                                       PROPERTIES.index(k[2])))
