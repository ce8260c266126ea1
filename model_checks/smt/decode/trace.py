"""From a Z3 model back to the spec: a concrete `Config` and the spec `Action` of every step.

The decoded actions are the spec's own classes with the same arguments (Submit(items, 0),
P0Handle(rid), P1Receive(index), and the router's choices P0Handle(rid, engine),
P1Receive(index, engine) in D5's router configuration, ...); `decode_trace` runs them with
`spec.run`, so a decoded trace is a spec trace or an error naming the step the spec refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

from model_checks.smt.encode.actions import ACTIONS, ActionEncoding, args_at
from model_checks.smt.encode.args import Args
from model_checks.smt.encode.symbols import Encoding, Params, SymState, msg_name
from spec import Config, Content, ItemSize, Trace, run
from spec.state import ClientItem
from spec.transitions import (
    Action,
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1Reset,
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
    return DECODERS[action.spec_class](_Step(enc, model, before, a, action))


@dataclass(frozen=True)
class _Step:
    """What a decoder reads: the query, the model, the state before the step, the step's
    arguments and its action encoding."""

    enc: Encoding
    model: z3.ModelRef
    before: SymState
    args: Args
    action: ActionEncoding

    def value(self, expr: z3.ExprRef) -> int:
        return _int(self.model, expr)

    @property
    def rid(self) -> int:
        return self.value(self.args.rid)


def _submit(step: _Step) -> Action:
    a = step.args
    items = tuple(
        ClientItem(step.enc.bounds.identities[step.value(a.sid[j])], step.value(a.sver[j]),
                   _bool(step.model, a.sdata[j]))
        for j in range(step.value(a.sn))
    )
    return Submit(items, step.value(a.sfe))


def _routed(kind: type[P0Handle] | type[P0UpdateItem]) -> Callable[[_Step], Action]:
    """A sending step: the router's choice of engine, where there are two."""
    def decode(step: _Step) -> Action:
        if step.enc.engines > 1:
            return kind(step.rid, step.value(step.args.eng))
        return kind(step.rid)
    return decode


def _on_request(kind: type[P0HandleRejected] | type[P0Process] | type[Retry],
                ) -> Callable[[_Step], Action]:
    return lambda step: kind(step.rid)


def _receive(step: _Step) -> Action:
    return P1Receive(_older_routed(step.enc, step.model, step.before, step.rid),
                     step.action.engine or 0)


def _on_engine(kind: type[P1Clear] | type[P1Restart]) -> Callable[[_Step], Action]:
    return lambda step: kind(step.action.engine or 0)


def _on_front_end(kind: type[P0Clear] | type[P0ClearForReset] | type[P0Restart],
                  ) -> Callable[[_Step], Action]:
    return lambda step: kind(step.action.front_end or 0)


def _no_arguments(kind: type[ClearBoth] | type[P0ReceiveReply] | type[P1Reset],
                  ) -> Callable[[_Step], Action]:
    return lambda step: kind()


DECODERS: dict[type[Action], Callable[[_Step], Action]] = {
    Submit: _submit,
    P0Handle: _routed(P0Handle),
    P0Process: _on_request(P0Process),
    P0UpdateItem: _routed(P0UpdateItem),
    P0HandleRejected: _on_request(P0HandleRejected),
    P1Receive: _receive,
    P0ReceiveReply: _no_arguments(P0ReceiveReply),
    Retry: _on_request(Retry),
    ClearBoth: _no_arguments(ClearBoth),
    P0Clear: _on_front_end(P0Clear),
    P1Clear: _on_engine(P1Clear),
    P0ClearForReset: _on_front_end(P0ClearForReset),
    P1Reset: _no_arguments(P1Reset),
    P0Restart: _on_front_end(P0Restart),
    P1Restart: _on_engine(P1Restart),
}
"""Per action class, how a step of the model becomes the spec's action."""


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
