"""Witnesses written for the server: schedules of ordinary client requests that a server can
be driven through, each built here from the spec (`spec.trace.run`) and committed under
`docs/results/server/witnesses/` (`python -m model_checks.server.witnesses` writes them;
`tests/server/test_witnesses.py` holds the committed files to this module).

`V2_D2+D7_S1`: identity reuse (D7) and requests rejected after the front end processed them
(D2, over HTTP a prompt over `--max-model-len`), nothing else: a is sent small and served;
a request for b, large, is rejected after the front end cached it, evicting a from the front
end only; a request reusing a's uuid for a large image is rejected after the front end
cached that; a's uuid alone then is a front-end hit carrying the large image's placeholders,
which the engine pairs with the small image it still holds (S1).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from model_checks.kernel.itf import write_trace
from model_checks.kernel.trace_file import trace_to_json
from spec import Config, Content, ItemSize, by_id, environment
from spec.state import ClientItem
from spec.trace import run
from spec.transitions import P0Handle, P0HandleRejected, P0ReceiveReply, P1Receive, Submit
from spec.variants import variant_named

FOLDER = Path("docs/results/server/witnesses")
CHECKER = "server-witness"


def rejected_reuse() -> dict[str, Any]:
    """The `V2_D2+D7_S1` witness (module docstring) as an ITF document."""
    config = Config(
        identities=("a", "b"), budget=2, versions=2,
        sizes=(ItemSize(Content("a", 1), 2, 2), ItemSize(Content("b", 0), 2, 2)),
        variant=variant_named("V2"), environment=environment("D2", "D7"))
    actions = (
        Submit((ClientItem("a", 0, True),), 0), P0Handle(0), P1Receive(0), P0ReceiveReply(),
        Submit((ClientItem("b", 0, True),), 0), P0HandleRejected(1),
        Submit((ClientItem("a", 1, True),), 0), P0HandleRejected(2),
        Submit((ClientItem("a", 1, False),), 0), P0Handle(3), P1Receive(0),
    )
    trace = run(config, actions)
    violation = by_id("S1").check_trace(trace)
    if violation is None:
        raise AssertionError("the rejected-reuse schedule no longer breaks S1")
    return trace_to_json(trace, property_id="S1", step=violation.step,
                         reason=violation.reason, checker=CHECKER)


WITNESSES = {"V2_D2+D7_S1.json": rejected_reuse}
"""Each committed file's name and the function building it."""


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(".")
    for name, build in WITNESSES.items():
        write_trace(root / FOLDER / name, build())
        print(f"witnesses: wrote {FOLDER / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
