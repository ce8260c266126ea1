"""The client's actions as relations, mirroring spec/transitions/client.py: Submit (a new
request of 1..M items) and Retry (a missed request resent with media attached)."""

from __future__ import annotations

import z3

from model_checks.smt.encode.args import Args, Step
from model_checks.smt.encode.relations import relation
from model_checks.smt.encode.slots import req, set_req, step_base, store_req, unfinished, valid_rid
from model_checks.smt.encode.symbols import (
    Encoding,
    OutcomeCode,
    Params,
    StageCode,
    SymState,
    content_bytes,
    item,
)
from spec import Drift
from spec import transitions as t


def _submitted_items(enc: Encoding, a: Args) -> z3.BoolRef:
    """Submit's items are well formed: 1..M of them, known identities (distinct unless the
    bounds admit duplicates), known versions; without D8, those that fit the budget fit it
    together (`request_fits_unless_d8` needs the sizes, so it is checked in `submit`)."""
    facts: list[z3.BoolRef] = [a.sn >= 1, a.sn <= enc.m]
    for j in range(enc.m):
        used = a.sn > j if j else z3.BoolVal(True)
        facts.append(z3.Implies(used, z3.And(a.sid[j] >= 0, a.sid[j] < enc.k,
                                             a.sver[j] >= 0, a.sver[j] < enc.versions)))
        if not enc.bounds.duplicates:
            facts += [z3.Implies(z3.And(used, a.sn > i), a.sid[i] != a.sid[j])
                      for i in range(j)]
    return z3.And(facts)


def _fits_unless_d8(enc: Encoding, p: Params, a: Args) -> z3.BoolRef:
    if enc.m == 1 or enc.enables(Drift.D8):
        return z3.BoolVal(True)
    sizes = [content_bytes(p.shadow_bytes, a.sid[j], a.sver[j]) for j in range(enc.m)]
    counted = [z3.If(z3.And(a.sn > j, sizes[j] <= p.budget), sizes[j], 0)
               for j in range(enc.m)]
    if enc.bounds.duplicates:
        # an identity named twice counts once, at its larger size (`request_fits_unless_d8`)
        for j in range(1, enc.m):
            for i in range(j):
                same = z3.And(a.sn > j, a.sid[i] == a.sid[j])
                larger = z3.If(counted[i] >= counted[j], counted[i], counted[j])
                counted[i], counted[j] = z3.If(same, larger, counted[i]), z3.If(
                    same, z3.IntVal(0), counted[j])
    return z3.Sum(counted) <= p.budget


@relation(t.Submit)
def submit(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    """Submit(items, front_end) as request nreq."""
    guard = z3.And(
        s["nreq"] < enc.r,
        unfinished(enc, s) < enc.bounds.max_in_flight,
        a.sfe >= 0, a.sfe < enc.front_ends,
        _submitted_items(enc, a), _fits_unless_d8(enc, p, a),
    )
    n = step_base(s)
    fields: dict[str, z3.ExprRef] = {
        "fe": a.sfe, "n": a.sn, "retries": z3.IntVal(0), "stage": z3.IntVal(StageCode.SUBMITTED),
        "outcome": z3.IntVal(OutcomeCode.NONE),
    }
    for j in range(enc.m):
        fields |= {item("id", j): a.sid[j], item("ver", j): a.sver[j],
                   item("data", j): a.sdata[j], item("missed", j): z3.BoolVal(False)}
    store_req(n, enc, s["nreq"], **fields)
    n["nreq"] = s["nreq"] + 1
    return guard, n


@relation(t.Retry)
def retry(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    """The client resends a missed request with media attached to every item."""
    guard = z3.And(
        valid_rid(enc, s, a.rid),
        req(s, enc, "outcome", a.rid) == OutcomeCode.MISS,
        req(s, enc, "retries", a.rid) < enc.bounds.max_retries,
    )
    n = step_base(s)
    items: dict[str, z3.ExprRef] = {}
    for j in range(enc.m):
        items |= {item("data", j): z3.BoolVal(True), item("missed", j): z3.BoolVal(False)}
    set_req(n, enc, a.rid, retries=req(s, enc, "retries", a.rid) + 1,
            stage=z3.IntVal(StageCode.SUBMITTED), outcome=z3.IntVal(OutcomeCode.NONE), **items)
    return guard, n
