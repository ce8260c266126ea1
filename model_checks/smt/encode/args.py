"""The symbolic choices of one step, and the type of an action's relation.

Per step the arguments are symbolic: `act` (an index into `actions.ACTIONS`), `rid` (the request
an action takes: P0Handle, P0Process, P0UpdateItem, P0HandleRejected, Retry; the request whose
message P1Receive takes or whose reply P0ReceiveReply takes), and Submit's request: front end
`sfe`, item count `sn`, and per item j identity `sid{j}`, version `sver{j}` and whether media is
attached `sdata{j}`; `eng`, the engine a sending step routes its message to (D5's router
configuration; unused with one engine).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from model_checks.smt.encode.symbols import Encoding, Params, SymState, at, item


@dataclass(frozen=True)
class Args:
    """The symbolic choices of one step."""

    act: z3.ArithRef
    rid: z3.ArithRef
    sfe: z3.ArithRef
    sn: z3.ArithRef
    sid: tuple[z3.ArithRef, ...]
    sver: tuple[z3.ArithRef, ...]
    sdata: tuple[z3.BoolRef, ...]
    eng: z3.ArithRef


ARG_ITEMS = 2
"""Submit's per-item arguments are declared for this many items (an encoding uses its first M)."""


def args_at(t: int) -> Args:
    """The choices of the step from state t to state t+1."""
    items = range(ARG_ITEMS)
    return Args(
        z3.Int(at("act", t)), z3.Int(at("rid", t)), z3.Int(at("sfe", t)), z3.Int(at("sn", t)),
        tuple(z3.Int(at(item("sid", j), t)) for j in items),
        tuple(z3.Int(at(item("sver", j), t)) for j in items),
        tuple(z3.Bool(at(item("sdata", j), t)) for j in items),
        z3.Int(at("eng", t)),
    )


Step = tuple[z3.BoolRef, SymState]
"""An action's guard and the complete next state."""

Relation = Callable[[Encoding, Params, SymState, Args], Step]
