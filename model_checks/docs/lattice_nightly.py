"""The drift-combinations page's section on the nightly lattice's liveness answers.

Rendered from the committed result of the nightly profile (`docs/results/lattice-nightly.json`,
written by `NIGHTLY_COMMAND` from the run's kept outcomes, its witnesses under
`docs/results/lattice-nightly/`), never from a live run. The nightly profile asks for every
environment of up to 3 sources at 3 requests, and the D7 environments of up to 2 sources on
to 4; a run that did not reach all of it is rendered as far as it got: per variant and
liveness property, the minimal breaking sets the explorer found, how many of the profile's
environments are decided, and, for what is left, the projected cost at the run's own median
CPU seconds per exploration. A hold is for the rung it names, never for all instances.

The section carries the run's wall time, CPU time and worker count: what the projection is
computed from, and what a reader needs to plan the rest of the run.
"""

from __future__ import annotations

import json
import statistics
from math import comb
from pathlib import Path
from typing import Any

from model_checks.docs.lattice_reach import liveness_ids
from model_checks.docs.snapshot import SnapshotError

NIGHTLY = "results/lattice-nightly.json"
NIGHTLY_OUTCOMES = "results/lattice-nightly-outcomes.json"
NIGHTLY_WITNESSES = "results/lattice-nightly"
NIGHTLY_COMMAND = (
    "python -m model_checks explore --lattice --profile nightly --resume "
    f"docs/{NIGHTLY_OUTCOMES} --no-explore --json docs/{NIGHTLY} --out docs/{NIGHTLY_WITNESSES}")
"""Renders the kept outcomes into the committed JSON; the parts that explored them ran the
same command with `--variant V` and without `--no-explore` (docs/explore.md)."""


class NightlyFileError(SnapshotError):
    """The committed nightly result cannot be read; the message is one line saying why."""


def load_nightly(root: Path) -> list[dict[str, Any]] | None:
    """The nightly entries under `root` (the docs folder), or None where no nightly run was
    committed; a malformed file is a `NightlyFileError` naming it."""
    path = root / NIGHTLY
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


def _cpu_per_exploration(root: Path) -> dict[str, float]:
    """Variant -> median CPU seconds of its kept explorations (none kept: not listed)."""
    try:
        outcomes = json.loads((root / NIGHTLY_OUTCOMES).read_text())["outcomes"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as error:
        raise NightlyFileError(f"{root / NIGHTLY_OUTCOMES}: unreadable ({error})") from None
    seconds: dict[str, list[float]] = {}
    for outcome in outcomes:
        seconds.setdefault(outcome["variant"], []).append(float(outcome["cpu_seconds"]))
    return {v: statistics.median(s) for v, s in seconds.items()}


def _breaks(entry: dict[str, Any]) -> str:
    if entry.get("vacuous"):
        return f"vacuous ({entry['vacuous']})"
    sets = entry["minimal_breaking"]
    if not sets:
        return "no break found"
    return "breaks minimally under " + ", ".join("+".join(s) for s in sets)


def _line(entry: dict[str, Any]) -> str:
    total = scope(entry)
    left = int(entry.get("undecided_in_scope", entry["undecided_count"]))
    decided = total - left
    return (f"- **{entry['variant']} {entry['property']}**: {_breaks(entry)}; decided in "
            f"{decided} of the {total} environments ({100 * decided / total:.0f} %)"
            + (f", {left} undecided" if left else "") + ".")


def _run_words(run: dict[str, Any]) -> str:
    workers = ("a Dask cluster" if run.get("dask")
               else f"{run.get('processes', '?')} worker process(es)")
    parts = run.get("parts") or []
    done = ", ".join(f"{'+'.join(p.get('variants') or ['?'])} in "
                     f"{float(p.get('wall_seconds', 0)) / 3600:.2f} h wall with "
                     f"{p.get('processes') or '?'} process(es)" for p in parts)
    return (f"{run['explorations']:,} explorations ({run['cut']} cut by the state limit), "
            f"{run['states']:,} states, {float(run['wall_seconds']) / 3600:.2f} hours wall "
            f"and {float(run['cpu_seconds']) / 3600:.2f} CPU-hours with {workers}"
            + (f"; parts: {done}" if done else ""))


def _projection(entries: list[dict[str, Any]], medians: dict[str, float]) -> list[str]:
    """Per variant: the explorations still needed (at least the most environments any one
    property leaves undecided) and their cost at the run's median per exploration."""
    lines = []
    fallback = statistics.median(medians.values()) if medians else None
    for variant in dict.fromkeys(e["variant"] for e in entries):
        mine = [e for e in entries if e["variant"] == variant]
        left = max(int(e.get("undecided_in_scope", e["undecided_count"])) for e in mine)
        if not left:
            lines.append(f"- {variant}: every environment of the profile decided.")
            continue
        median = medians.get(variant, fallback)
        whose = "its explorations'" if variant in medians else "the run's"
        cost = (f"about {left * median / 3600:.1f} CPU-hours at {whose} median of "
                f"{median:.0f} CPU seconds per exploration" if median is not None
                else "no exploration to project from")
        lines.append(f"- {variant}: at least {left} explorations left, {cost}.")
    return lines


def nightly_section(entries: list[dict[str, Any]] | None, root: Path) -> list[str]:
    """The section, or nothing where no nightly run was committed."""
    if entries is None:
        return []
    first = entries[0]
    live = [e for e in entries if e["property"] in liveness_ids()]
    lines = ["## Liveness at the nightly rung", "",
             f"The nightly profile's run, rendered by `{NIGHTLY_COMMAND}` from its kept "
             f"outcomes (`docs/{NIGHTLY_OUTCOMES}`): {_run_words(first['run'])}. Its ladder: "
             + " / ".join(first.get("ladder", [])) + f"; at most {first['max_states']:,} states "
             f"per graph; the profile's environments: the {scope(first)} sets of at most "
             f"{first['max_size']} sources. The explorer's answers alone (no other checker's "
             "breaks merged); a hold is for its rung, never for all instances.", ""]
    lines += [_line(e) for e in live]
    lines += ["", "What is left, projected:", ""]
    lines += _projection(live, _cpu_per_exploration(root))
    lines.append("")
    return lines
