"""The drift events as relations, mirroring spec/transitions/drift_events.py: the clears, the
resets and the restarts. Each wipes whole caches, so each is a few lines over `lru.clear`.

A new drift source of the event kind adds its relation here, registered for its spec class
(`relations`); its action code, decoding and cross-check are derived from the class.
"""

from __future__ import annotations

import z3

from model_checks.smt.encode import lru
from model_checks.smt.encode.args import Args, Relation, Step
from model_checks.smt.encode.front_end import front_end_idle
from model_checks.smt.encode.relations import per_engine, per_front_end, relation
from model_checks.smt.encode.slots import no_message, step_base
from model_checks.smt.encode.symbols import Encoding, Params, SymState, receiver_side, shadow_side
from spec import transitions as t


def _shadows_cleared(enc: Encoding, s: SymState) -> SymState:
    for side in enc.shadows:
        s = lru.clear(s, side, enc.k)
    return s


def _all_idle(enc: Encoding, s: SymState) -> z3.BoolRef:
    return z3.And([front_end_idle(enc, s, fe) for fe in range(enc.front_ends)])


def _receivers_cleared(enc: Encoding, s: SymState) -> SymState:
    for side in enc.receivers:
        s = lru.clear(s, side, enc.k)
    return s


@relation(t.ClearBoth)
def clear_both(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    guard = z3.And(no_message(enc, s), z3.Not(s["reset"]), _all_idle(enc, s))
    return guard, _receivers_cleared(enc, _shadows_cleared(enc, step_base(s)))


@per_engine(t.P1Clear)
@per_engine(t.P1Restart)
def p1_clear(engine: int) -> Relation:
    """Engine `engine`'s receiver is wiped (D3's P1Clear, D10's P1Restart)."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return z3.BoolVal(True), lru.clear(step_base(s), receiver_side(engine), enc.k)

    return relation


@per_front_end(t.P0Clear)
def p0_clear(fe: int) -> Relation:
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return z3.BoolVal(True), lru.clear(step_base(s), shadow_side(fe), enc.k)

    return relation


@per_front_end(t.P0Restart)
def p0_restart(fe: int) -> Relation:
    """D10: front end fe restarts between requests (none of its attempts mid-pipeline)."""

    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        return front_end_idle(enc, s, fe), lru.clear(step_base(s), shadow_side(fe), enc.k)

    return relation


@per_front_end(t.P0ClearForReset)
def p0_clear_for_reset(fe: int) -> Relation:
    def relation(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
        n = lru.clear(step_base(s), shadow_side(fe), enc.k)
        n["reset"] = z3.BoolVal(True)
        return z3.Not(s["reset"]), n

    return relation


@relation(t.P1Reset)
def p1_reset(enc: Encoding, p: Params, s: SymState, a: Args) -> Step:
    """D4's reset reaches P1: every engine's receiver is wiped (it is broadcast)."""
    n = _receivers_cleared(enc, step_base(s))
    n["reset"] = z3.BoolVal(False)
    return s["reset"], n
