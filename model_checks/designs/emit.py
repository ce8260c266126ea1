"""`conform --design NAME ... --emit-pytest DIR`: a trace as a pytest file that replays it on
the implementation in lockstep with the spec (`lockstep.replay` with the design's binding,
through the user's adapter factory) and fails while the implementation disagrees with the
spec, cannot follow the trace, or breaks the property the trace records.

The file embeds the trace (a witness document), so it needs no file beside it; it imports
the adapter's module and this package (the spec and the lockstep), nothing else.
"""

from __future__ import annotations

import json
import re
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
    path = directory / f"test_{name.lower()}.py"
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text(TEMPLATE.format(where=where, design=meta["design"], claim=claim,
                                    module=module, factory=factory, name=name.lower(),
                                    trace=json.dumps(trace)))
    return path
