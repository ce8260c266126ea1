"""Reading and writing the per-request slots of a symbolic state at a symbolic request index.

Request r's fields, its message to P1 and its reply to P0 live in slots named by r
(`symbols.req_name`, `msg_name`, `rep_name`); an action that takes "request rid" reads them
with `pick` and writes them with one `If(rid == r, ...)` per slot, so every other slot is
copied unchanged (the frame).
"""

from __future__ import annotations

from collections.abc import Callable

import z3

from model_checks.smt.encode.symbols import (
    DeliveryCode,
    Encoding,
    StageCode,
    SymState,
    constants,
    item,
    msg_name,
    pick,
    req_name,
)

SlotName = Callable[[int, str], str]


def read(s: SymState, enc: Encoding, name: SlotName, field_name: str,
         rid: z3.ArithRef) -> z3.ExprRef:
    """Field `field_name` of slot rid (the last slot's when rid is out of range)."""
    return pick([s[name(r, field_name)] for r in range(enc.r)], rid)


def req(s: SymState, enc: Encoding, field_name: str, rid: z3.ArithRef) -> z3.ExprRef:
    return read(s, enc, req_name, field_name, rid)


def req_item(s: SymState, enc: Encoding, field_name: str, rid: z3.ArithRef,
             j: int) -> z3.ExprRef:
    return read(s, enc, req_name, item(field_name, j), rid)


def write(s: SymState, enc: Encoding, name: SlotName, rid: z3.ArithRef,
          **values: z3.ExprRef) -> None:
    """Set fields of slot rid in place (s is the caller's own copy)."""
    for r in range(enc.r):
        for field_name, value in values.items():
            key = name(r, field_name)
            s[key] = z3.If(rid == r, value, s[key])


def set_req(s: SymState, enc: Encoding, rid: z3.ArithRef, **values: z3.ExprRef) -> None:
    write(s, enc, req_name, rid, **values)


def store_req(s: SymState, enc: Encoding, rid: z3.ArithRef, **values: z3.ExprRef) -> None:
    """`set_req`, skipping the fields this encoding keeps constant (`symbols.constants`)."""
    fixed = constants(enc)
    set_req(s, enc, rid, **{f: v for f, v in values.items() if req_name(0, f) not in fixed})


def valid_rid(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    return z3.And(rid >= 0, rid < s["nreq"], rid < enc.r)


def stage_is(enc: Encoding, s: SymState, rid: z3.ArithRef, stage: StageCode) -> z3.BoolRef:
    return z3.And(valid_rid(enc, s, rid), req(s, enc, "stage", rid) == stage)


def item_exists(enc: Encoding, s: SymState, rid: z3.ArithRef, j: int) -> z3.BoolRef:
    """Item j is one of request rid's items."""
    return z3.BoolVal(True) if j == 0 else req(s, enc, "n", rid) > j


def unfinished(enc: Encoding, s: SymState) -> z3.ArithRef:
    return z3.Sum([
        z3.If(z3.And(r < s["nreq"], s[req_name(r, "stage")] != StageCode.DONE), 1, 0)
        for r in range(enc.r)
    ])


def oldest(enc: Encoding, s: SymState, name: SlotName, rid: z3.ArithRef) -> z3.BoolRef:
    """The channel item of `rid` is pending and older than every other pending one."""
    mine = read(s, enc, name, "seq", rid)
    return z3.And(
        read(s, enc, name, "pend", rid),
        *[z3.Implies(z3.And(rid != r, s[name(r, "pend")]), mine < s[name(r, "seq")])
          for r in range(enc.r)],
    )


def oldest_routed(enc: Encoding, s: SymState, rid: z3.ArithRef) -> z3.BoolRef:
    """rid's message is pending and older than every other pending message routed to the
    same engine (`oldest` with one engine: every message goes to engine 0)."""
    if enc.engines == 1:
        return oldest(enc, s, msg_name, rid)
    mine, engine = read(s, enc, msg_name, "seq", rid), read(s, enc, msg_name, "eng", rid)
    return z3.And(
        read(s, enc, msg_name, "pend", rid),
        *[z3.Implies(z3.And(rid != r, s[msg_name(r, "pend")], s[msg_name(r, "eng")] == engine),
                     mine < s[msg_name(r, "seq")])
          for r in range(enc.r)],
    )


def no_message(enc: Encoding, s: SymState) -> z3.BoolRef:
    return z3.And([z3.Not(s[msg_name(r, "pend")]) for r in range(enc.r)])


def step_base(s: SymState) -> SymState:
    """What every step does: advance the clock and forget the last delivery."""
    n = dict(s)
    n["clock"] = s["clock"] + 1
    n["ld_kind"] = z3.IntVal(DeliveryCode.NONE)
    return n

