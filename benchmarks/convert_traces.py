"""Rewrite every committed trace in an old format as ITF (`model_checks.kernel.legacy_trace`):
the trace files of the spec, the traces the lattice's outcome files embed, and the design
witnesses. For each, reading the new document must give the same configuration, states,
break step and fair start as replaying the old one (the design witnesses: the same
configuration, actions and property). Prints what it converted and the sizes before and
after.

    PYTHONPATH=. python benchmarks/convert_traces.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from model_checks.designs import witness_files
from model_checks.kernel import itf, legacy_trace
from model_checks.kernel.trace_file import replay_data, upgraded


def converted_trace(old: dict[str, Any]) -> dict[str, Any]:
    """The ITF document of an old trace, checked to replay as the old one does."""
    before = replay_data(old)
    new = json.loads(itf.text(upgraded(old)))  # as a reader gets it
    after = replay_data(new)
    same = (after.trace.config == before.trace.config
            and list(after.trace.states()) == list(before.trace.states())
            and after.step == before.step and after.recorded_step == before.recorded_step
            and after.fair_from == before.fair_from)
    if not same:
        raise AssertionError("the ITF document does not replay as the old trace does")
    return new


def converted_witness(old: dict[str, Any]) -> dict[str, Any]:
    """The ITF document of an old design witness, checked to parse to the same witness."""
    new = json.loads(itf.text(witness_files.upgraded(old)))
    if witness_files.parse(new) != witness_files.parse(old):
        raise AssertionError("the ITF witness does not parse as the old one does")
    return new


def convert(path: Path) -> str | None:
    """Rewrite `path` if it holds old traces; what was converted, else None."""
    data = json.loads(path.read_text())
    if not isinstance(data, dict):
        return None
    if legacy_trace.is_old_trace(data):
        itf.write_trace(path, converted_trace(data))
        return "trace"
    if legacy_trace.is_old_witness(data):
        itf.write_trace(path, converted_witness(data))
        return "witness"
    embedded = [o["traces"] for o in data.get("outcomes", ()) if isinstance(o, dict)
                and isinstance(o.get("traces"), dict)]
    old = [(traces, prop) for traces in embedded for prop in traces
           if legacy_trace.is_old_trace(traces[prop])]
    if not old:
        return None
    for traces, prop in old:
        traces[prop] = converted_trace(traces[prop])
    path.write_text(json.dumps(data) + "\n")  # as `lattice_command.write_outcomes` writes it
    return f"{len(old)} embedded traces"


def main() -> int:
    listed = subprocess.run(["git", "ls-files", "*.json"], capture_output=True, text=True,
                            check=True).stdout.split()
    before = after = 0
    counts: dict[str, int] = {}
    for name in listed:
        path = Path(name)
        size = path.stat().st_size
        what = convert(path)
        if what is None:
            continue
        before, after = before + size, after + path.stat().st_size
        kind = what.split(" ")[-1]
        counts[kind] = counts.get(kind, 0) + (int(what.split(" ")[0]) if " " in what else 1)
        counts["files"] = counts.get("files", 0) + 1
    print(f"converted {counts}: {before:,} bytes before, {after:,} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
