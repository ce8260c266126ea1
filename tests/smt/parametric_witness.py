"""Where the all-instance prover fails, a real break: V2's S1 under D7 alone.

The nearest certificate of V2's S1 under D3+D4+D7+D9+D10+D11 fails at "P1 takes a
reference" (`parametric_goals.attempt`): a reference's placeholders and P1's entry may come
from different processings. This run shows the failing step is reachable in the spec with
identity reuse (D7) alone, four requests deep, on a budget of 3 with a size per content: two
requests that P0's assertion fails (a probed hit whose entry was recorded at an older,
larger content's size is evicted by the request's own insert) leave P0's shadow updated for
requests P1 never sees, as D2 would. The first makes P0 evict h while P1 keeps h's first
content; the second makes P0 record h's second content; a reference to h then pairs P1's
old tensor with the new placeholders. The lattice's rungs (budget 2) and Z3's matrix cell
(depth 6) do not reach it; the lattice takes the written trace as evidence (checker
"scenarios": a hand-built run, replayed before it counts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from model_checks.kernel import itf
from model_checks.kernel.trace_file import trace_to_json
from model_checks.kernel.verdict_records import SCENARIOS
from spec import V2, Config, Content, ItemSize, Trace, by_id, environment, run
from spec.state import ClientItem
from spec.transitions import Action, P0Handle, P0ReceiveReply, P1Receive, Submit

SIZES = {("h", 0): 2, ("h", 1): 1, ("g", 0): 1, ("g", 1): 2, ("z", 0): 1, ("z", 1): 2}

CONFIG = Config(identities=("g", "h", "z"), budget=3, versions=2, variant=V2,
                environment=environment("D7"), max_items=2, max_requests=4,
                sizes=tuple(ItemSize(Content(i, v), n, n) for (i, v), n in SIZES.items()))


def _item(identity: str, version: int, data: bool = True) -> ClientItem:
    return ClientItem(identity, version, data)


ACTIONS: tuple[Action, ...] = (
    Submit((_item("g", 1), _item("h", 1))), P0Handle(0), P1Receive(0), P0ReceiveReply(),
    Submit((_item("z", 1), _item("g", 0))), P0Handle(1),  # P0 evicts h and g, then asserts
    Submit((_item("h", 0), _item("z", 0))), P0Handle(2),  # P0 records h@0, then asserts
    Submit((_item("h", 0, data=False),)), P0Handle(3), P1Receive(0),
)

PATH = Path("docs/results/parametric-witnesses/V2_D7_S1.json")
"""Where the trace is committed (an `explore --lattice --evidence` folder)."""


def trace() -> Trace:
    return run(CONFIG, ACTIONS)


def trace_json() -> dict[str, Any]:
    """The run as a replayable trace file, breaking S1 at its last step."""
    violation = by_id("S1").check_trace(trace())
    assert violation is not None, "the witness no longer breaks S1: the spec changed"
    return trace_to_json(trace(), property_id="S1", step=violation.step,
                         reason=violation.reason, checker=SCENARIOS.record)


def text() -> str:
    """The trace file's text (`itf.text`)."""
    return itf.text(trace_json())


def write(root: Path = Path(".")) -> Path:
    """Write the trace file under `root`; returns its path."""
    target = root / PATH
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text())
    return target
