"""The byte-budget LRU of `spec.lru`, over one side of a symbolic state.

Each function takes a state and returns a new one (a dict copy): nothing is mutated. The order
is a timestamp per identity: touching or inserting stamps the slot with the step's clock, and the
least-recent slot is the one with the smallest stamp (ties, which reachable states never have,
go to the lowest identity index so that a victim always exists). Eviction is the spec's loop
unrolled K times, which suffices: every iteration that does not fit removes one of at most K
slots. A flawed LRU changes one small function, as in the spec: `_victim`, `_fits`, or `touch`.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from model_checks.smt.encode.symbols import SymState, lru_name
from spec import LruFlaw


def merge(cond: z3.BoolRef, then: SymState, other: SymState) -> SymState:
    """The state `then` where cond holds, `other` elsewhere (variable by variable)."""
    merged: SymState = {}
    for name, value in other.items():
        chosen = then[name]
        merged[name] = value if chosen is value or chosen.eq(value) else z3.If(cond, chosen, value)
    return merged


def _slot_field(s: SymState, side: str, field_name: str, k: int) -> z3.ExprRef:
    """The variable of `field_name` in side's slot of identity index k."""
    return s[lru_name(side, field_name, k)]


def present(s: SymState, side: str, ident: z3.ArithRef, k_count: int) -> z3.BoolRef:
    return z3.Or([z3.And(ident == k, _slot_field(s, side, "in", k)) for k in range(k_count)])


def field_of(s: SymState, side: str, name: str, ident: z3.ArithRef, k_count: int) -> z3.ExprRef:
    result = _slot_field(s, side, name, k_count - 1)
    for k in range(k_count - 2, -1, -1):
        result = z3.If(ident == k, _slot_field(s, side, name, k), result)
    return result


def used(s: SymState, side: str, k_count: int) -> z3.ArithRef:
    """Bytes held by the entries (ghosts hold none)."""
    return z3.Sum([z3.If(_slot_field(s, side, "in", k), _slot_field(s, side, "size", k), 0)
                   for k in range(k_count)])


def _stamp(s: SymState, side: str, k: int, cond: z3.BoolRef, clock: z3.ArithRef) -> None:
    name = lru_name(side, "ts", k)
    s[name] = z3.If(cond, clock, s[name])


def touch(
    s: SymState, side: str, ident: z3.ArithRef, clock: z3.ArithRef, flaw: LruFlaw, k_count: int
) -> SymState:
    """A present entry becomes most recent; an absent key changes nothing, except under
    GHOST_TOUCH, where it becomes (or stays) a ghost slot, most recent."""
    s = dict(s)
    for k in range(k_count):
        hit = z3.And(ident == k, _slot_field(s, side, "in", k))
        if flaw is LruFlaw.GHOST_TOUCH:
            this = ident == k
            _stamp(s, side, k, this, clock)
            ghost = lru_name(side, "ghost", k)
            s[ghost] = z3.Or(s[ghost], z3.And(this, z3.Not(_slot_field(s, side, "in", k))))
        else:
            _stamp(s, side, k, hit, clock)
    return s


@dataclass(frozen=True)
class Found:
    """What `get` returns: whether an entry is present, and its pid, version and tag."""

    present: z3.BoolRef
    pid: z3.ArithRef
    ver: z3.ArithRef
    tag: z3.ArithRef


def get(
    s: SymState, side: str, ident: z3.ArithRef, clock: z3.ArithRef, k_count: int
) -> tuple[Found, SymState]:
    """The entry for ident (if present), which becomes most recent."""
    found = Found(
        present(s, side, ident, k_count),
        field_of(s, side, "pid", ident, k_count),
        field_of(s, side, "ver", ident, k_count),
        field_of(s, side, "tag", ident, k_count),
    )
    s = dict(s)
    for k in range(k_count):
        _stamp(s, side, k, z3.And(ident == k, _slot_field(s, side, "in", k)), clock)
    return found, s


def pop(s: SymState, side: str, ident: z3.ArithRef, k_count: int) -> SymState:
    """Remove any slot (entry or ghost) for `ident`."""
    s = dict(s)
    for k in range(k_count):
        for name in ("in", "ghost"):
            key = lru_name(side, name, k)
            s[key] = z3.And(s[key], ident != k)
    return s


def clear(s: SymState, side: str, k_count: int) -> SymState:
    s = dict(s)
    for k in range(k_count):
        s[lru_name(side, "in", k)] = z3.BoolVal(False)
        s[lru_name(side, "ghost", k)] = z3.BoolVal(False)
    return s


def _fits(s: SymState, side: str, size: z3.ArithRef, budget: z3.ArithRef, flaw: LruFlaw,
          k_count: int) -> z3.BoolRef:
    if flaw is LruFlaw.IGNORE_NEW_SIZE:
        return used(s, side, k_count) <= budget
    return used(s, side, k_count) + size <= budget


def _victim(s: SymState, side: str, flaw: LruFlaw, k_count: int) -> list[z3.BoolRef]:
    """Per identity: its slot is the one eviction takes (least recent; most recent if flawed)."""
    slot = [z3.Or(_slot_field(s, side, "in", k), _slot_field(s, side, "ghost", k))
            for k in range(k_count)]
    ts = [_slot_field(s, side, "ts", k) for k in range(k_count)]
    newest = flaw is LruFlaw.EVICT_MOST_RECENT
    victims = []
    for k in range(k_count):
        beats = []
        for u in range(k_count):
            if u == k:
                continue
            if newest:
                better = ts[k] > ts[u] if u < k else ts[k] >= ts[u]
            else:
                better = ts[k] < ts[u] if u < k else ts[k] <= ts[u]
            beats.append(z3.Implies(slot[u], better))
        victims.append(z3.And(slot[k], *beats))
    return victims


@dataclass(frozen=True)
class Limits:
    """The cache a `put` inserts into: its byte `budget` (symbolic), its LRU's `flaw`, and
    the number of identities it has slots for (`k_count`)."""

    budget: z3.ArithRef
    flaw: LruFlaw
    k_count: int


def put(
    s: SymState,
    side: str,
    entry: tuple[z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef, z3.ArithRef],
    clock: z3.ArithRef,
    limits: Limits,
) -> tuple[SymState, z3.BoolRef]:
    """Insert entry (ident, size, pid, ver, tag) as most recent if it fits the budget, evicting
    least-recent slots first; any old slot for ident goes first. Returns (state, hang): hang
    when eviction reaches a ghost slot and can make no progress (the state is then unusable)."""
    budget, flaw, k_count = limits.budget, limits.flaw, limits.k_count
    ident, size, pid, ver, tag = entry
    s = pop(s, side, ident, k_count)
    fits_budget = size <= budget
    hang: z3.BoolRef = z3.BoolVal(False)
    evicting = dict(s)
    for _ in range(k_count):
        need = z3.And(fits_budget, z3.Not(_fits(evicting, side, size, budget, flaw, k_count)))
        victims = _victim(evicting, side, flaw, k_count)
        ghost_hit = z3.Or([z3.And(v, _slot_field(evicting, side, "ghost", k))
                           for k, v in enumerate(victims)])
        hang = z3.Or(hang, z3.And(need, ghost_hit))
        step = dict(evicting)
        for k, victim in enumerate(victims):
            key = lru_name(side, "in", k)
            step[key] = z3.And(step[key], z3.Not(z3.And(need, victim, z3.Not(hang))))
        evicting = step
    for k in range(k_count):
        this = z3.And(fits_budget, ident == k)
        evicting[lru_name(side, "in", k)] = z3.Or(evicting[lru_name(side, "in", k)], this)
        for name, value in (("ts", clock), ("size", size), ("pid", pid), ("ver", ver),
                            ("tag", tag)):
            key = lru_name(side, name, k)
            evicting[key] = z3.If(this, value, evicting[key])
    return evicting, hang
