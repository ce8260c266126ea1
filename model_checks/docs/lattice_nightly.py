"""The drift-combinations page's sections on the lattice's long runs: liveness answers
beyond the ci profile.

Each is rendered from a committed run (`LONG_RUNS`: its JSON, written by `LongRun.command`
from the run's kept outcomes, and its witnesses), never from a live run: the nightly profile
(every environment of up to 3 sources at 3 requests, the D7 environments of up to 2 sources
on to 4), and every single-source environment climbing to the matrix's four requests. A run
that did not reach all of its environments is rendered as far as it got: per variant and
liveness property, the minimal breaking sets the explorer found, how many of the run's
environments are decided, and, for what is left, the projected cost at the run's own median
CPU seconds per exploration. A hold is for the rung it names, never for all instances.

A section carries its run's wall time, CPU time and worker count: what the projection is
computed from, and what a reader needs to plan the rest of the run.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

from model_checks.docs.lattice_reach import liveness_ids, reach_counts, reach_sentence
from model_checks.docs.snapshot import SnapshotError
from model_checks.kernel import result_files


@dataclass(frozen=True)
class LongRun:
    """A committed lattice run of a profile beyond the ci one: its JSON, its kept outcomes
    (the `--resume` file), its witnesses, the options that set its ladder, and its heading."""

    name: str
    options: str
    heading: str

    @property
    def json(self) -> str:
        return f"results/lattice-{self.name}.json"

    @property
    def outcomes(self) -> str:
        return f"results/lattice-{self.name}-outcomes.json.gz"

    @property
    def witnesses(self) -> str:
        return f"results/lattice-{self.name}"

    def command(self) -> str:
        """Renders the kept outcomes into the committed JSON; the parts that explored them
        ran the same command with `--variant V` and without `--no-explore`."""
        return (f"python -m model_checks explore --lattice {self.options} --resume "
                f"docs/{self.outcomes} --no-explore --json docs/{self.json} "
                f"--out docs/{self.witnesses}")


LONG_RUNS = (
    LongRun("nightly", "--profile nightly", "Liveness at the nightly rung"),
    LongRun("single-source", "--profile nightly --max-size 1 --max-requests 4",
            "Liveness at four requests, one source at a time"),
)
"""The long runs the page renders where committed: the nightly profile (every environment
of up to 3 sources at 3 requests), and every single-source environment climbing to the
matrix's four requests."""
NIGHTLY = LONG_RUNS[0]


class NightlyFileError(SnapshotError):
    """The committed nightly result cannot be read; the message is one line saying why."""


def load_long_run(root: Path, run: LongRun = NIGHTLY) -> list[dict[str, Any]] | None:
    """The run's entries under `root` (the docs folder), or None where it was not
    committed; a malformed file is a `NightlyFileError` naming it."""
    path = root / run.json
    if not path.exists():
        return None
    try:
        entries = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise NightlyFileError(f"{path}: unreadable nightly lattice ({error})") from None
    if (not isinstance(entries, list) or not entries
            or not all(isinstance(e, dict) and isinstance(e.get("run"), dict) for e in entries)):
        raise NightlyFileError(f"{path}: expected a non-empty list of lattice entries, each "
                               "with its run")
    return entries


def scope(entry: dict[str, Any]) -> int:
    """The environments the profile searches bottom-up: every set of at most `max_size` of
    the sources."""
    sources, size = len(entry["sources"]), int(entry["max_size"])
    return sum(comb(sources, k) for k in range(size + 1))


def load_kept(root: Path, run: LongRun) -> list[dict[str, Any]]:
    """The run's kept outcomes (its `--resume` file, read in either form:
    `kernel.result_files`)."""
    path = result_files.stored(root / run.outcomes)
    try:
        outcomes = result_files.read(path)["outcomes"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise NightlyFileError(f"{path}: unreadable ({error})") from None
    if not isinstance(outcomes, list) or not all(isinstance(o, dict) for o in outcomes):
        raise NightlyFileError(f"{path}: expected a list of outcome objects")
    return outcomes


def _medians(outcomes: list[dict[str, Any]]) -> tuple[float, float] | None:
    """(median CPU seconds of the explorations, of those the state limit cut), the cut
    figure the overall one where none was cut; None for no exploration."""
    every = [float(o["cpu_seconds"]) for o in outcomes]
    cut = [float(o["cpu_seconds"]) for o in outcomes if not o.get("complete", True)]
    if not every:
        return None
    return statistics.median(every), statistics.median(cut or every)


def _breaks(entry: dict[str, Any]) -> str:
    if entry.get("vacuous"):
        return f"vacuous ({entry['vacuous']})"
    sets = entry["minimal_breaking"]
    if not sets:
        return "no break found"
    return "breaks minimally under " + ", ".join("+".join(s) for s in sets)


def _line(entry: dict[str, Any], outcomes: list[dict[str, Any]]) -> str:
    total = scope(entry)
    left = int(entry.get("undecided_in_scope", entry["undecided_count"]))
    answered = total - left
    reached = reach_sentence(reach_counts(outcomes, entry["variant"], entry["property"]))
    return (f"- **{entry['variant']} {entry['property']}**: {_breaks(entry)}; answered in "
            f"{answered} of the {total} environments ({100 * answered / total:.0f} %)"
            + (f", {left} undecided" if left else "") + f"; explored: {reached}.")


def _run_words(run: dict[str, Any]) -> str:
    parts = run.get("parts") or []
    # rendering from kept outcomes runs nothing: the parts' own processes are the workers
    processes = sorted({p.get("processes") for p in parts if p.get("processes")}) or [
        run.get("processes", "?")]
    workers = ("a Dask cluster" if run.get("dask")
               else f"{'/'.join(str(n) for n in processes)} worker process(es)")
    done = ", ".join(f"{'+'.join(p.get('variants') or ['?'])} in "
                     f"{float(p.get('wall_seconds', 0)) / 3600:.2f} h wall with "
                     f"{p.get('processes') or '?'} process(es)" for p in parts)
    return (f"{run['explorations']:,} explorations ({run['cut']} cut by the state limit), "
            f"{run['states']:,} states, {float(run['wall_seconds']) / 3600:.2f} hours wall "
            f"and {float(run['cpu_seconds']) / 3600:.2f} CPU-hours with {workers}"
            + (f"; parts: {done}" if done else ""))


def _projection(entries: list[dict[str, Any]], outcomes: list[dict[str, Any]]) -> list[str]:
    """Per variant: the explorations still needed (at least the most environments any one
    property leaves undecided), priced between the median CPU seconds of its explorations and
    of those the state limit cut (the run's, for a variant not yet explored): what is left
    is mostly the largest graphs."""
    lines = []
    for variant in dict.fromkeys(e["variant"] for e in entries):
        mine = [e for e in entries if e["variant"] == variant]
        left = max(int(e.get("undecided_in_scope", e["undecided_count"])) for e in mine)
        if not left:
            lines.append(f"- {variant}: every environment of the run answered.")
            continue
        own = [o for o in outcomes if o.get("variant") == variant]
        medians = _medians(own or outcomes)
        if medians is None:
            lines.append(f"- {variant}: at least {left} explorations left, no exploration "
                         "to price them from.")
            continue
        low, high = medians
        whose = "its explorations" if own else "the run's explorations"
        lines.append(f"- {variant}: at least {left} explorations left, about "
                     f"{left * low / 3600:.1f}-{left * high / 3600:.1f} CPU-hours (at the "
                     f"median CPU seconds of {whose}, {low:.0f}, and of those the state "
                     f"limit cut, {high:.0f}).")
    return lines


def long_run_section(entries: list[dict[str, Any]] | None, outcomes: list[dict[str, Any]],
                     run: LongRun = NIGHTLY) -> list[str]:
    """The run's section from its entries and kept outcomes, or nothing where it was not
    committed."""
    if entries is None:
        return []
    first = entries[0]
    live = [e for e in entries if e["property"] in liveness_ids()]
    lines = [f"## {run.heading}", "",
             f"Rendered by `{run.command()}` from its kept outcomes (`docs/{run.outcomes}`): "
             f"{_run_words(first['run'])}. Its ladder: "
             + " / ".join(f"{n}: {r}" for n, r in enumerate(first.get("ladder", [])))
             + f"; at most {first['max_states']:,} states per graph; its environments: the "
             f"{scope(first)} sets of at most {first['max_size']} sources. The explorer's "
             "answers alone (no other checker's breaks merged); a hold is for its rung, never "
             "for all instances.", ""]
    lines += [_line(e, outcomes) for e in live]
    lines += ["", "What is left, projected:", ""]
    lines += _projection(live, outcomes)
    lines.append("")
    return lines


