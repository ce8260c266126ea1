"""What the Z3 checker judges: its table keyed by property (importing no z3, so that the
command line can name the choices before z3 loads).

A state property with an encoding (`ENCODED`, the keys of `smt.encode.properties.BAD`) is decided
by bounded model checking and induction, except a documented limit; every other property is
listed as not judged, with the reason.
"""

from __future__ import annotations

from model_checks.kernel.judged import Judged, NotJudged, Table
from spec import Kind, registry, safety_ids

ENCODED: frozenset[str] = frozenset({"S1", "S2", "S3", "S4", "H1"})
"""The ids `smt.encode.properties.BAD` encodes (a test keeps them equal)."""

def encoded_safety() -> tuple[str, ...]:
    """The safety properties (`spec.safety_ids`) the encoding has: what the all-depth proofs
    of a safe variant are about."""
    return tuple(p for p in safety_ids() if p in ENCODED)


NOT_ENCODED_LIVENESS = ("a liveness property: the SMT checker decides state predicates on the "
                        "encoding, not responses over a trace")
NOT_ENCODED_STATE = "a state property with no SMT encoding of its check (`BAD`)"
DOCUMENTED_LIMIT = ("a documented limit, known to break under identity reuse in every "
                    "variant: encoded (`BAD`) but not searched")


def judged() -> Table:
    """The Z3 checker's answer for every property of the registry."""
    table: dict[str, Judged | NotJudged] = {}
    for prop in registry():
        if prop.state_check is None:
            table[prop.id] = NotJudged(NOT_ENCODED_LIVENESS)
        elif prop.id not in ENCODED:
            table[prop.id] = NotJudged(NOT_ENCODED_STATE)
        elif prop.kind is Kind.LIMIT:
            table[prop.id] = NotJudged(DOCUMENTED_LIMIT)
        else:
            table[prop.id] = Judged("bounded model checking and induction on the encoding")
    return table
