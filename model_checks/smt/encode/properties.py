"""The registry's state properties as SMT predicates over one state: `bad(prop)` holds in a
state that violates it. Each mirrors the spec's check function of the same id (spec/properties/
safety.py); a counterexample is always replayed on the spec, so a mismatch cannot go unseen.
A content is compared by version only: both pids of a served item are processings of the
served item's identity (see `symbols`)."""

from __future__ import annotations

from collections.abc import Callable

import z3

from model_checks.smt.encode import lru
from model_checks.smt.encode.slots import item_exists
from model_checks.smt.encode.symbols import (
    DeliveryCode,
    Encoding,
    FaultCode,
    OutcomeCode,
    Params,
    SymState,
    item,
    req_name,
)

Bad = Callable[[Encoding, Params, SymState], z3.BoolRef]


def _some_served_item(enc: Encoding, s: SymState,
                      broken: Callable[[int], z3.BoolRef]) -> z3.BoolRef:
    """The last delivery served its items and `broken(j)` holds for one of them."""
    items = [z3.And(item_exists(enc, s, s["ld_rid"], j), broken(j)) for j in range(enc.m)]
    return z3.And(s["ld_kind"] == DeliveryCode.SERVED, z3.Or(items))


def bad_s1(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S1 broken: an item served pairs a tensor and placeholders of different contents."""
    return _some_served_item(enc, s, lambda j: s[item("ld_tver", j)] != s[item("ld_pver", j)])


def bad_s2(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S2 broken: P1's or a shadow's cached bytes exceed the budget."""
    return z3.Or([lru.used(s, side, enc.k) > p.budget for side in enc.sides])


def bad_s3(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S3 broken: a fault (engine crash, hang), or P0's assertion failed a request."""
    asserted = [z3.And(r < s["nreq"], s[req_name(r, "outcome")] == OutcomeCode.P0_ASSERT)
                for r in range(enc.r)]
    return z3.Or(s["fault"] != FaultCode.NONE, *asserted)


def bad_s4(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S4 broken: the tensor or the placeholders served are not of the version sent."""
    def stale(j: int) -> z3.BoolRef:
        sent = s[item("ld_sent", j)]
        return z3.Or(s[item("ld_tver", j)] != sent, s[item("ld_pver", j)] != sent)

    return _some_served_item(enc, s, stale)


def bad_h1(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """H1 broken: P1 had no usable entry for a reference P0 sent."""
    return s["ld_kind"] == DeliveryCode.MISSED


BAD: dict[str, Bad] = {"S1": bad_s1, "S2": bad_s2, "S3": bad_s3, "S4": bad_s4, "H1": bad_h1}
"""The state properties with an SMT encoding, by registry id (`smt.judged.ENCODED` names
the same ids without importing z3; which of them the checker decides is `smt.judged`)."""
