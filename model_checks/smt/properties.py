"""The registry's state properties as SMT predicates over one state: `bad(prop)` holds in a
state that violates it. Each mirrors the spec's check function of the same id (spec/properties/
safety.py); a counterexample is always replayed on the spec, so a mismatch cannot go unseen.
A content is compared by version only: both pids of a served item are processings of the
served item's identity (see `symbols`)."""

from __future__ import annotations

from collections.abc import Callable

import z3

from model_checks.smt import lru
from model_checks.smt.symbols import DeliveryCode, Encoding, FaultCode, Params, SymState

Bad = Callable[[Encoding, Params, SymState], z3.BoolRef]


def bad_s1(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S1 broken: the item served pairs a tensor and placeholders of different contents."""
    return z3.And(s["ld_kind"] == DeliveryCode.SERVED, s["ld_tver"] != s["ld_pver"])


def bad_s2(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S2 broken: P1's or P0's cached bytes exceed the budget."""
    return z3.Or(lru.used(s, "p1", enc.k) > p.budget, lru.used(s, "p0", enc.k) > p.budget)


def bad_s3(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S3 broken: a fault (engine crash, P0 assertion, hang)."""
    return s["fault"] != FaultCode.NONE


def bad_s4(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """S4 broken: the tensor or the placeholders served are not of the version sent."""
    sent = s["ld_sent"]
    stale = z3.Or(s["ld_tver"] != sent, s["ld_pver"] != sent)
    return z3.And(s["ld_kind"] == DeliveryCode.SERVED, stale)


def bad_h1(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """H1 broken: P1 had no usable entry for a reference P0 sent."""
    return s["ld_kind"] == DeliveryCode.MISSED


BAD: dict[str, Bad] = {"S1": bad_s1, "S2": bad_s2, "S3": bad_s3, "S4": bad_s4, "H1": bad_h1}
"""The state properties the SMT checker decides, by registry id."""
