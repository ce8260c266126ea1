"""From a Z3 model back to the spec: a concrete `Config` and the spec `Action` of every step.

The decoded actions are the spec's own classes with the same arguments (Submit(items, 0),
P0Handle(rid), P1Receive(index), and the router's choices P0Handle(rid, engine),
P1Receive(index, engine) in D5's router configuration, ...); `decode_trace` runs them with
`spec.run`, so a decoded trace is a spec trace or an error naming the step the spec refuses.
"""

from __future__ import annotations

import z3

from model_checks.smt.actions import ACTIONS, args_at
from model_checks.smt.symbols import Encoding, Params, SymState, msg_name
from spec import Config, Content, ItemSize, Trace, run
from spec.state import ClientItem
from spec.transitions import (
    Action,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1Restart,
    Retry,
    Submit,
)


def _int(model: z3.ModelRef, expr: z3.ExprRef) -> int:
    value = model.eval(expr, model_completion=True)
    return int(value.as_long())


def _bool(model: z3.ModelRef, expr: z3.ExprRef) -> bool:
    return bool(z3.is_true(model.eval(expr, model_completion=True)))


def config_of(enc: Encoding, model: z3.ModelRef, p: Params) -> Config:
    """The concrete configuration the model chose: its budget and sizes, the environment asked
    for (left-out drift sources included: they only add behaviours), M items per request."""
    ids = enc.bounds.identities
    sizes = tuple(
        ItemSize(Content(ids[k], v), _int(model, p.shadow_bytes[(k, v)]),
                 _int(model, p.receiver_bytes[(k, v)]))
        for k, v in sorted(p.shadow_bytes)
    )
    return Config(
        identities=ids,
        budget=_int(model, p.budget),
        sizes=sizes,
        versions=enc.versions,
        variant=enc.variant,
        environment=enc.environment,
        max_retries=enc.bounds.max_retries,
        max_in_flight=enc.bounds.max_in_flight,
        max_requests=enc.bounds.max_requests,
        max_items=enc.m,
        front_ends=enc.front_ends,
        engines=enc.engines,
    )


def decode_action(enc: Encoding, model: z3.ModelRef, before: SymState, t: int) -> Action:
    """The spec action of step t (from state t to t+1)."""
    a = args_at(t)
    action = ACTIONS[_int(model, a.act)]
    spec_class = action.spec_class
    rid = _int(model, a.rid)
    if spec_class is Submit:
        items = tuple(
            ClientItem(enc.bounds.identities[_int(model, a.sid[j])], _int(model, a.sver[j]),
                       _bool(model, a.sdata[j]))
            for j in range(_int(model, a.sn))
        )
        return Submit(items, _int(model, a.sfe))
    if spec_class in (P0Handle, P0UpdateItem) and enc.engines > 1:
        return spec_class(rid, _int(model, a.eng))  # the router's choice
    if spec_class in (P0Handle, P0HandleRejected, P0Process, P0UpdateItem, Retry):
        return spec_class(rid)
    if spec_class is P1Receive:
        return P1Receive(_older_routed(enc, model, before, rid), action.engine or 0)
    if spec_class in (P1Clear, P1Restart):
        return spec_class(action.engine or 0)
    if spec_class in (P0Clear, P0ClearForReset, P0Restart):
        return spec_class(action.front_end or 0)
    return spec_class()


def _older_routed(enc: Encoding, model: z3.ModelRef, before: SymState, rid: int) -> int:
    """P1Receive's index: the pending messages routed to the same engine, older than rid's."""
    mine = _int(model, before[msg_name(rid, "seq")])
    engine = _int(model, before[msg_name(rid, "eng")])
    return sum(
        1 for r in range(enc.r)
        if r != rid and _bool(model, before[msg_name(r, "pend")])
        and _int(model, before[msg_name(r, "eng")]) == engine
        and _int(model, before[msg_name(r, "seq")]) < mine
    )


def decode_trace(
    enc: Encoding, model: z3.ModelRef, p: Params, states: tuple[SymState, ...]
) -> tuple[Config, Trace]:
    config = config_of(enc, model, p)
    actions = [decode_action(enc, model, states[t], t) for t in range(len(states) - 1)]
    return config, run(config, actions)
