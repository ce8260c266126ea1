"""`conform ... --emit-pytest DIR`: a trace as a pytest file, for every design; the one place
that names, checks, shrinks and writes the files.

Any design's file embeds the trace (a witness document) and replays it on the implementation
in lockstep with the spec (`design_lockstep.replay` with the design's binding, through the
user's adapter factory): it fails while the implementation disagrees with the spec, cannot
follow the trace, or breaks the property the trace records, and imports the adapter's module
and this package, nothing else (`write_pytest`).

A design whose binding spells a trace in its implementation's own calls (the LRU design's,
`lru_lockstep.calls`) gets a standalone file instead: one `Line` per call, then the check on
the implementation's own observations; the file is written only if its test fails by an
AssertionError (`fails`), with single calls deleted while it still fails (`shrunk`), so it has
the fewest calls found. What has no expression in those calls is `Unsupported`: no file, and
the reason is printed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_checks.kernel import itf

TEMPLATE = '''"""Replays {where} on the implementation in lockstep with design {design}'s spec.

Written by `python -m model_checks conform --design {design} --emit-pytest`. It fails while
the implementation disagrees with the spec, cannot follow a step, or breaks {claim}.
"""

import json

from model_checks.conform.design_lockstep import replay
from model_checks.designs.lockstep_bindings import binding_of
from model_checks.designs.witness_files import parse
from {module} import {factory} as factory

TRACE = json.loads({trace!r})


def test_{name}():
    witness = parse(TRACE)
    wanted = [witness.property_id] if witness.property_id else []
    outcome = replay(binding_of(witness.design.name), factory(), witness.config(),
                     witness.actions, wanted)
    assert outcome.disagreement is None, outcome.disagreement.report()
    assert outcome.not_driven is None, outcome.not_driven
    for prop, reasons in outcome.broken.items():
        assert not reasons, f"{{prop}} broken on the implementation: {{reasons}}"
'''


def write(directory: Path, name: str, text: str) -> Path:
    """Write `text` as `directory/test_<name>.py` (the directory made if missing); its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"test_{name}.py"
    path.write_text(text)
    return path


def write_pytest(directory: Path, adapter_path: str, trace: dict[str, Any], where: str
                 ) -> Path:
    """Write `trace` (a witness document) as `directory/test_<design>_<env>_<property>.py`;
    the path written."""
    module, _, factory = adapter_path.partition(":")
    meta = itf.project(trace)
    env = "_".join(meta["environment"]) or "none"
    name = re.sub(r"\W", "_", f"{meta['design']}_{env}_{meta['property'] or 'trace'}")
    claim = (f"{meta['property']}" if meta["property"] else "no property (a disagreement's "
             "trace)")
    return write(directory, name.lower(), TEMPLATE.format(
        where=where, design=meta["design"], claim=claim, module=module, factory=factory,
        name=name.lower(), trace=json.dumps(trace)))


# -- a trace in the implementation's own calls -------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One line of the test body: `call` (an implementation call, deletable when shrinking)
    or not."""

    text: str
    call: bool


class Unsupported(Exception):
    """The trace or the check has no expression in the implementation's calls."""


@dataclass(frozen=True)
class Emitted:
    """A file's text and its number of implementation calls, or why there is none."""

    text: str | None
    calls: int
    why: str = ""


def fails(text: str, name: str) -> bool:
    """Whether the test in `text` fails by an AssertionError when run in this process."""
    namespace: dict[str, object] = {"__name__": "emitted"}
    try:
        # dont_inherit: compiled as pytest compiles the file, without this module's
        # `from __future__ import annotations`
        exec(compile(text, "<emitted>", "exec", dont_inherit=True), namespace)
        test = namespace[f"test_{name}"]
    except Exception:
        return False
    if not callable(test):
        return False
    try:
        test()
    except AssertionError:
        return True
    except Exception:
        return False
    return False


def shrunk(head: str, lines: Sequence[Line], tail: str, name: str) -> Emitted:
    """The file of `head`, one line per `Line` of the test body and `tail`, with single calls
    deleted, last first, while its test `test_<name>` still fails; no file if the whole one
    does not fail."""
    def text(kept: Sequence[Line]) -> str:
        return head + "".join(f"    {line.text}\n" for line in kept) + tail

    if not fails(text(lines), name):
        return Emitted(None, 0, "its calls do not reproduce the failure in one process")
    kept = list(lines)
    for index in range(len(kept) - 1, -1, -1):
        shorter = kept[:index] + kept[index + 1:]
        if kept[index].call and fails(text(shorter), name):
            kept = shorter
    return Emitted(text(kept), sum(line.call for line in kept))
