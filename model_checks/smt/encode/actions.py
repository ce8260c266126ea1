"""The spec's transition system as one formula: every registered relation, selected by the
step's action code, exactly as `spec.machine.step` dispatches on the action.

A relation returns `(guard, next)` where `next` gives every state variable's value after the
step; variables the action does not touch are copied (the frame), so nothing is left free.
`transition` combines the actions the environment enables: a faulted state has no successor.

The relations live beside the spec's steps they mirror (`client`, `front_end`, `engine`,
`drift_events`), each registered for its spec class (`relations`). The action codes are
derived: the classes of `spec.ACTION_TYPES` (in `code_order`), a class of a front end (or an
engine) once per front end (engine), front end and engine 1 under D5 only; each enabled by its
class's `requires`. P1Receive's spec argument, the message's index in the channel, is the number of
pending messages older than the chosen one (see `decode.trace`).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from model_checks.smt.encode import client, drift_events, engine, front_end
from model_checks.smt.encode.args import Args, Relation, args_at
from model_checks.smt.encode.relations import RELATIONS, Per, Registered, registered
from model_checks.smt.encode.symbols import (
    DeliveryCode,
    Encoding,
    FaultCode,
    Params,
    SymState,
    constants,
)
from spec import ACTION_TYPES, Action, Drift
from spec import transitions as t

__all__ = ["ACTIONS", "Args", "args_at", "available", "codes_of", "initial", "transition"]

RELATION_MODULES = (client, front_end, engine, drift_events)
"""Imported for their registrations: every relation is in `RELATIONS` once these have run."""

SIDES = (0, 1)
"""The front ends (engines) an action of one is encoded for: 1 exists under D5 only."""


@dataclass(frozen=True)
class ActionEncoding:
    """One spec action class (with its front end, for a front end's action; its engine, for an
    engine's), its relation, and the drift sources that must all be enabled."""

    spec_class: type[Action]
    relation: Relation
    requires: tuple[Drift, ...] = ()
    front_end: int | None = None
    engine: int | None = None

    @property
    def per(self) -> Per:
        if self.front_end is not None:
            return Per.FRONT_END
        return Per.STEP if self.engine is None else Per.ENGINE


def _encodings_of(entry: Registered) -> tuple[ActionEncoding, ...]:
    cls = entry.spec_class
    requires = () if cls.requires is None else (cls.requires,)
    if entry.per is Per.STEP:
        return (ActionEncoding(cls, entry.relation_of(0), requires),)
    return tuple(
        ActionEncoding(cls, entry.relation_of(i), (*requires, *((Drift.D5,) if i else ())),
                       front_end=i if entry.per is Per.FRONT_END else None,
                       engine=i if entry.per is Per.ENGINE else None)
        for i in SIDES
    )


BRANCH_ORDER: tuple[type[Action], ...] = (
    t.Submit, t.P0Handle, t.P0HandleRejected, t.P0Process, t.P0UpdateItem, t.P1Receive,
    t.P0ReceiveReply, t.Retry, t.ClearBoth, t.P1Clear, t.P0Clear, t.P0ClearForReset, t.P1Reset,
    t.P1Restart, t.P0Restart,
)
"""The order of `transition`'s branches (and so of the action codes) for the classes listed;
every other class of `spec.ACTION_TYPES` follows them, in that order, so a new action needs no
entry here. Z3's search depends on the order of a formula's disjuncts: the same relations in
`ACTION_TYPES` order (which differs in three places) find other, equally short,
counterexamples and other Spacer invariants, so the verdict records would change. Change
this order only together with the records it produces."""


def code_order(action_types: tuple[type[Action], ...]) -> tuple[type[Action], ...]:
    """`action_types` in the order of their codes: `BRANCH_ORDER`'s first, then the rest."""
    listed = tuple(c for c in BRANCH_ORDER if c in action_types)
    return (*listed, *(c for c in action_types if c not in listed))


def encodings(
    action_types: tuple[type[Action], ...] = ACTION_TYPES,
    table: dict[type[Action], Registered] = RELATIONS,
) -> tuple[ActionEncoding, ...]:
    """Every encoded action of `action_types` (in `code_order`); the index is the action code.
    A class without a registered relation is a `relations.MissingRelation` naming it."""
    ordered = code_order(action_types)
    return tuple(e for entry in registered(ordered, table) for e in _encodings_of(entry))


ACTIONS: tuple[ActionEncoding, ...] = encodings()
"""Every encoded action; the index is the action code."""


def available(enc: Encoding) -> tuple[int, ...]:
    """The codes of the actions the environment enables."""
    return tuple(
        code for code, action in enumerate(ACTIONS)
        if all(enc.enables(d) for d in action.requires)
        and (action.front_end is None or action.front_end < enc.front_ends)
        and (action.engine is None or action.engine < enc.engines)
    )


def codes_of(action_class: type[Action], front_end: int | None = None,
             engine: int | None = None) -> tuple[int, ...]:
    """The codes of a spec action class: of front end `front_end` for a front end's action,
    of engine `engine` for an engine's (every front end or engine where that is None)."""
    codes = tuple(
        code for code, action in enumerate(ACTIONS)
        if action.spec_class is action_class
        and (front_end is None or action.front_end in (None, front_end))
        and (engine is None or action.engine in (None, engine))
    )
    if not codes:
        raise KeyError(f"{action_class.__name__} (front end {front_end}, engine {engine}) is "
                       "not encoded")
    return codes


def transition(enc: Encoding, p: Params, s: SymState, n: SymState, a: Args) -> z3.BoolRef:
    """One step from s to n: some enabled action's guard holds and n is its next state."""
    branches = [(code, *ACTIONS[code].relation(enc, p, s, a)) for code in available(enc)]
    facts: list[z3.BoolRef] = [
        s["fault"] == FaultCode.NONE,
        z3.Or([z3.And(a.act == code, guard) for code, guard, _ in branches]),
    ]
    fixed = constants(enc)
    for name, value in s.items():
        chained = value
        for code, _, after in reversed(branches):
            if after[name] is not value:
                chained = z3.If(a.act == code, after[name], chained)
        equation = n[name] == chained
        if name in fixed:
            # a constant: every action must keep it (checked here, once, by simplification)
            equation = z3.simplify(equation)
            if z3.is_true(equation):
                continue
        facts.append(equation)
    return z3.And(facts)


def initial(enc: Encoding, s: SymState) -> z3.BoolRef:
    """The spec's initial state: empty caches and channels, no requests, no processings."""
    facts: list[z3.BoolRef] = [
        z3.Not(value) for name, value in s.items()
        if "_in_k" in name or "_ghost_k" in name or name.endswith("_pend")
    ]
    facts += [s["clock"] == 1, s["nproc"] == 0, s["nreq"] == 0, z3.Not(s["reset"]),
              s["fault"] == FaultCode.NONE, s["ld_kind"] == DeliveryCode.NONE]
    return z3.And(facts)
