"""From a Z3 model back to the spec: a concrete `Config` and the spec `Action` of every step.

The decoded actions are the spec's own classes with the same arguments (Submit(items, 0),
P0Handle(rid), P1Receive(index), and the router's choices P0Handle(rid, engine),
P1Receive(index, engine) in D5's router configuration, ...), each argument read by its field
name (`fields`); `decode_trace` runs them with `spec.run`, so a decoded trace is a spec trace
or an error naming the step the spec refuses.
"""

from __future__ import annotations

import z3

from model_checks.smt.decode import fields
from model_checks.smt.encode.actions import ACTIONS, args_at
from model_checks.smt.encode.symbols import Encoding, Params, SymState
from spec import Action, Config, Content, ItemSize, Trace, run


def _int(model: z3.ModelRef, expr: z3.ExprRef) -> int:
    value = model.eval(expr, model_completion=True)
    return int(value.as_long())


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
        duplicates=enc.bounds.duplicates,
    )


def decode_action(enc: Encoding, model: z3.ModelRef, before: SymState, t: int) -> Action:
    """The spec action of step t (from state t to t+1): the class its code names, each
    argument read from the model (`fields`)."""
    a = args_at(t)
    action = ACTIONS[_int(model, a.act)]
    return fields.decode_action(fields.ModelStep(enc, model, before, a, action))


def decode_trace(
    enc: Encoding, model: z3.ModelRef, p: Params, states: tuple[SymState, ...]
) -> tuple[Config, Trace]:
    config = config_of(enc, model, p)
    actions = [decode_action(enc, model, states[t], t) for t in range(len(states) - 1)]
    return config, run(config, actions)
