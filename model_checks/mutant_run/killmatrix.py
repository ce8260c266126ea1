"""The kill matrix: the reference's history mutants (the registry's `history` set) under the
conformance run, in one process and across two, with what caught it and the length of the
shrunk trace; then the independent slips (its `slip` set, one process), with their kill rate.
The `mutants` command's conformance checker runs its mutants through `kill_matrix` too.

``python -m model_checks.mutant_run.killmatrix`` rewrites docs/kill-matrix.md; ``--check`` exits
1 if the file differs from a fresh run (the test suite asserts it does not). Everything in the
page comes from the runs: nothing is typed in by hand.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.profiles import PROFILES, ConformProfile
from model_checks.conform.two_processes import remote_engines
from model_checks.executor import file_cache
from model_checks.mutant_run.factory import ImplMutant
from model_checks.mutant_run.reference_mutants import adapter_path, history_mutants, slip_mutants
from model_checks.mutation.registry import Target, entry_named

if TYPE_CHECKING:
    from model_checks.conform.remote import RemoteEngines

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "kill-matrix.md"
PROFILE = PROFILES["ci"]


@dataclass(frozen=True)
class Kill:
    """How one mutant was caught in one mode (caught_by is None: it survived)."""

    caught_by: str | None
    length: int | None
    where: str
    trace: str
    harness: str | None = None  # a harness failure stopped the run: neither kill nor survival


@dataclass(frozen=True)
class Row:
    mutant: ImplMutant
    in_process: Kill
    two_processes: Kill | None


def _kill(mutant: ImplMutant, profile: ConformProfile, remote: RemoteEngines | None) -> Kill:
    outcome = conform(mutant.adapter, profile, ConformRun(engine_factory=remote))
    if outcome.harness is not None:
        return Kill(None, None, "", "", outcome.harness)
    found = outcome.failure
    if found is None:
        return Kill(None, None, "", "")
    return Kill(found.caught_by, found.step, outcome.where, found.report())


def kill_matrix(
    profile: ConformProfile = PROFILE,
    *,
    processes: bool = True,
    mutants: Sequence[ImplMutant] | None = None,
) -> list[Row]:
    """One row per mutant of `mutants` (default: the history set), in their order: the
    conformance run in one process and (`processes`) across two."""
    rows: list[Row] = []
    mutants = history_mutants() if mutants is None else mutants
    if not mutants:
        return rows
    remote = remote_engines(adapter_path(mutants[0])) if processes else None
    try:
        for mutant in mutants:
            in_process = _kill(mutant, profile, None)
            across = None
            if remote is not None:
                remote.adapter_path = adapter_path(mutant)  # one child serves every mutant
                across = _kill(mutant, profile, remote)
            rows.append(Row(mutant, in_process, across))
    finally:
        if remote is not None:
            remote.close()
    return rows


def _as_json(kill: Kill | None) -> dict[str, Any] | None:
    return None if kill is None else asdict(kill)


def _kill_of(data: Any) -> Kill:
    if not isinstance(data, dict):
        raise TypeError(f"got {type(data).__name__}, expected a kill record")
    return Kill(**data)


def _rows_of(mutants: Sequence[ImplMutant]) -> Callable[[Any], list[Row]]:
    """Decodes a cached list of [in_process, two_processes] kills of `mutants`, in order."""

    def decode(data: Any) -> list[Row]:
        if not isinstance(data, list) or len(data) != len(mutants):
            raise ValueError(f"got {data!r:.40}, expected one entry per mutant")
        return [Row(m, _kill_of(one), None if two is None else _kill_of(two))
                for m, (one, two) in zip(mutants, data, strict=True)]

    return decode


@functools.cache
def independent_rows(profile: ConformProfile = PROFILE) -> list[Row]:
    """The independent mutant set, conformance alone, in one process (cached per process and
    in `file_cache`: the runs are derandomized and bounded by counts)."""
    return file_cache.cached(
        "kill-matrix-independent", repr(profile),
        lambda: [[_as_json(_kill(m, profile, None)), None] for m in slip_mutants()],
        _rows_of(slip_mutants()),
    )


def kill_rate(rows: Sequence[Row]) -> tuple[int, int]:
    """(killed, total) in one process."""
    return sum(r.in_process.caught_by is not None for r in rows), len(rows)


@functools.cache
def default_rows(profile: ConformProfile = PROFILE) -> list[Row]:
    """`kill_matrix` of every mutant in both modes, cached per process and in `file_cache`
    (docs and every test worker share it)."""
    return file_cache.cached(
        "kill-matrix", repr(profile),
        lambda: [[_as_json(r.in_process), _as_json(r.two_processes)]
                 for r in kill_matrix(profile)],
        _rows_of(history_mutants()),
    )


def page(profile: ConformProfile = PROFILE) -> str:
    """The whole page, from fresh runs."""
    return render(default_rows(profile), profile, independent_rows(profile))


def results_json(rows: Sequence[Row], independent: Sequence[Row]) -> dict[str, Any]:
    """The kill matrix as the docs keep it (`docs/results/kill-matrix.json`): every row's
    kills by mutant name, so pages render without running a mutant."""
    def kills(found: Sequence[Row]) -> list[dict[str, Any]]:
        return [{"mutant": r.mutant.name, "in_process": _as_json(r.in_process),
                 "two_processes": _as_json(r.two_processes)} for r in found]

    return {"format": "paired-caches-kill-matrix/1", "profile": repr(PROFILE),
            "rows": kills(rows), "independent": kills(independent)}


def rows_from_json(data: Any) -> tuple[list[Row], list[Row]]:
    """(rows, independent rows) of `results_json`'s value; `ValueError` naming what does not
    fit the mutant sets of this code (a mutant added or renamed since the file was written)."""
    try:
        found = [_decoded(data[part], mutants)
                 for part, mutants in (("rows", history_mutants()),
                                                ("independent", slip_mutants()))]
    except (KeyError, TypeError) as error:
        raise ValueError(f"not a kill-matrix results file ({error})") from None
    return found[0], found[1]


def _decoded(entries: list[dict[str, Any]], mutants: Sequence[ImplMutant]) -> list[Row]:
    names = [e["mutant"] for e in entries]
    if names != [m.name for m in mutants]:
        raise ValueError(f"the kill matrix results name {names[:3]}..., expected the "
                         f"mutants {[m.name for m in mutants][:3]}...: regenerate them")
    return [Row(m, _kill_of(e["in_process"]),
                None if e["two_processes"] is None else _kill_of(e["two_processes"]))
            for m, e in zip(mutants, entries, strict=True)]


def kill_text(kill: Kill | None, *, sentence: bool = False) -> str:
    """What one conformance run of a mutant came to: not run, a harness failure, survived,
    or the check that caught it with its trace length. As a kill-matrix cell (failures in
    bold), or with `sentence` as the requirements page words it ("caught by ...",
    SURVIVED in capitals)."""
    if kill is None:
        return "not run"
    if kill.harness is not None:
        return "harness failure" if sentence else "**harness failure**"
    if kill.caught_by is None:
        return "SURVIVED" if sentence else "**survived**"
    caught = f"{kill.caught_by} ({kill.length} steps)"
    return f"caught by {caught}" if sentence else caught


def render(rows: list[Row], profile: ConformProfile = PROFILE,
           independent: Sequence[Row] = ()) -> str:
    lines = [
        "# Kill matrix: mutants of the reference implementation",
        "",
        "Generated by `python -m model_checks.mutant_run.killmatrix` from real conformance runs "
        f"(profile `{profile.name}`); `tests/conform/test_conform_mutants.py` regenerates it "
        "and fails if this page is stale. Each mutant is a subclass of a reference class "
        "(`model_checks/mutant_run/history_mutants.py`), checked against the spec of its base "
        "variant. "
        "*Caught by* is the property the implementation broke while the spec kept it (S1-S3, "
        "L1-L4), or else the first observation that differed; the length is the number of "
        "lockstep steps of the shrunk trace up to the failing step.",
        "",
        "| mutant | base | the bug | caught in one process | caught across two processes |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| `{row.mutant.name}` | {row.mutant.base} | {row.mutant.story} | "
            f"{kill_text(row.in_process)} | {kill_text(row.two_processes)} |"
        )
    lines += ["", "## The shrunk traces (one process)", ""]
    for row in rows:
        lines += [f"### `{row.mutant.name}`", "", f"Found in: {row.in_process.where}.", "",
                  "```", row.in_process.trace, "```", ""]
    if independent:
        lines += _independent(independent)
    return "\n".join(lines).rstrip() + "\n"


def _independent(rows: Sequence[Row]) -> list[str]:
    killed, total = kill_rate(rows)
    lines = [
        "## An independent mutant set: what conformance alone catches",
        "",
        "Single-change slips in the reference (`model_checks/mutant_run/slip_mutants.py`: "
        "one comparison, one forgotten line, one wrong size, one wrong call each), none of "
        "them a mutant above, each checked by the same conformance run (one process). "
        f"**{killed} of {total} killed ({100 * killed // total} %).** A survivor is listed "
        "with the argument that no observation can tell it from the reference.",
        "",
        "| mutant | base | the slip | caught by | found in |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| `{row.mutant.name}` | {row.mutant.base} | {row.mutant.story} | "
                     f"{kill_text(row.in_process)} | {row.in_process.where or '-'} |")
    survivors = [r.mutant.name for r in rows if r.in_process.caught_by is None]
    if survivors:
        lines += ["", "Survivors:", ""]
        for name in survivors:
            why = (entry_named(name, Target.REFERENCE).equivalent
                   or "**not argued: a blind spot of conformance**")
            lines.append(f"- `{name}`: {why}.")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m model_checks.mutant_run.killmatrix")
    parser.add_argument("--check", action="store_true", help="fail if the page is stale")
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH)
    args = parser.parse_args(argv)
    text = page()
    if args.check:
        current = args.path.read_text() if args.path.exists() else ""
        if current != text:
            print(f"{args.path} is stale: run python -m model_checks.mutant_run.killmatrix",
                  file=sys.stderr)
            return 1
        return 0
    args.path.write_text(text)
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
