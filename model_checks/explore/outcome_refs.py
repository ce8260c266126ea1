"""Every trace stored once: a kept outcome's trace that a witness file holds is kept as a
reference to that file, and read back through it.

A lattice run keeps, per explored environment, the trace of each property it broke (the
`--resume` file); the minimal ones are also written as witness files. After the witnesses are
written, `refer` replaces each outcome trace equal to a witness file's JSON by
`{"#trace": PATH}` (PATH relative to the outcomes file's folder); `resolve` turns them back
into traces when the file is read. A reference to a missing file is an error naming it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REF = "#trace"


class MissingTrace(ValueError):
    """A kept outcome refers to a trace file that is not there."""


def _key(data: Any) -> str:
    return json.dumps(data, sort_keys=True)


def refer(outcomes_path: Path, witnesses: Iterable[Path]) -> int:
    """Rewrite the outcomes file with references to the witness files for the traces they
    hold; the number of traces replaced."""
    base = outcomes_path.resolve().parent
    by_content = {}
    for witness in witnesses:
        if witness.is_file():
            target = witness.resolve()
            relative = target.relative_to(base) if target.is_relative_to(base) else target
            by_content[_key(json.loads(witness.read_text()))] = relative.as_posix()
    data = json.loads(outcomes_path.read_text())
    replaced = 0
    for outcome in data["outcomes"]:
        traces = outcome.get("traces") or {}
        for prop, trace in traces.items():
            ref = by_content.get(_key(trace)) if isinstance(trace, dict) else None
            if ref is not None:
                traces[prop] = {REF: ref}
                replaced += 1
    temporary = outcomes_path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data) + "\n")
    temporary.replace(outcomes_path)
    return replaced


def resolve(outcomes: list[dict[str, Any]], base: Path) -> list[dict[str, Any]]:
    """The outcomes with every reference replaced by the trace its file holds (`base`: the
    outcomes file's folder); `MissingTrace` naming a file that is not there."""
    cache: dict[str, Any] = {}
    for outcome in outcomes:
        traces = outcome.get("traces") or {}
        for prop, trace in traces.items():
            if isinstance(trace, dict) and set(trace) == {REF}:
                traces[prop] = _load(base / str(trace[REF]), cache)
    return outcomes


def _load(path: Path, cache: dict[str, Any]) -> Any:
    key = path.as_posix()
    if key not in cache:
        try:
            cache[key] = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise MissingTrace(f"a kept outcome refers to {path}, which cannot be read "
                               f"({error})") from None
    return cache[key]
