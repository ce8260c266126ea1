"""An action's dataclass fields <-> a step's symbolic arguments, in both directions, keyed by
field name (never by action class): a new action whose fields are among these is decoded and
cross-checked with no edit here.

- `decode_action`: the spec action a model's step took: the step's code gives the class, and
  each field of the class is read from the model (`FieldCodec.decode`).
- `pin_arguments`: the facts fixing a step's arguments to a spec action's (`FieldCodec.pin`),
  and the front end or engine of its action code, where its fields say.

How each field maps, for an action encoded once (`Per.STEP`), per front end or per engine:
- `rid`: the request the step takes (`args.rid`); for a front end's action, the request's
  front end is the code's.
- `front_end`: the code's front end for a front end's action; otherwise the symbolic `sfe`
  (Submit's).
- `engine`: the code's engine for an engine's action; otherwise the router's choice `eng`
  where there are two engines (D5's router configuration), else the field's default.
- `index`: P1Receive's index in its engine's queue: the pending messages routed to the same
  engine, older than the taken one.
- `items`: Submit's items: `sn` of them, item j from `sid{j}`, `sver{j}`, `sdata{j}`.

An action with no field that names its front end (P0ReceiveReply) is pinned to its class's
codes of every front end, the request left to the relation (its guard takes the oldest reply).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import z3

from model_checks.smt.encode.actions import ACTIONS, ActionEncoding
from model_checks.smt.encode.args import Args
from model_checks.smt.encode.relations import Per
from model_checks.smt.encode.symbols import Encoding, SymState, msg_name
from spec import Action, State
from spec.state import ClientItem

HERE = "model_checks/smt/decode/fields.py"


class NotEncodable(ValueError):
    """A spec state or action outside the bounded encoding (more items or front ends)."""


class UnknownField(LookupError):
    """An action field this module does not map to a step's arguments."""


@dataclass(frozen=True)
class ModelStep:
    """What decoding reads: the query, the model, the state before the step, the step's
    arguments and the action encoding its code names."""

    enc: Encoding
    model: z3.ModelRef
    before: SymState
    args: Args
    action: ActionEncoding

    def value(self, expr: z3.ExprRef) -> int:
        return int(self.model.eval(expr, model_completion=True).as_long())

    def flag(self, expr: z3.ExprRef) -> bool:
        return bool(z3.is_true(self.model.eval(expr, model_completion=True)))


@dataclass(frozen=True)
class SpecStep:
    """What pinning reads: the query, the spec state before the step, the spec action, the
    step's symbolic arguments and how the action's class is encoded."""

    enc: Encoding
    before: State
    action: Action
    args: Args
    per: Per


@dataclass(frozen=True)
class Pin:
    """Facts fixing arguments, and the front end or engine of the action code (None: any)."""

    facts: tuple[z3.BoolRef, ...] = ()
    front_end: int | None = None
    engine: int | None = None


@dataclass(frozen=True)
class FieldCodec:
    """One field: its value in a model's step (None: the field's default), and the facts a
    spec action's value fixes."""

    decode: Callable[[ModelStep], object]
    pin: Callable[[SpecStep, object], Pin]


def _decode_rid(step: ModelStep) -> object:
    return step.value(step.args.rid)


def _pin_rid(step: SpecStep, rid: object) -> Pin:
    assert isinstance(rid, int)
    front_end = step.before.requests[rid].front_end if step.per is Per.FRONT_END else None
    return Pin((step.args.rid == rid,), front_end=front_end)


def _decode_front_end(step: ModelStep) -> object:
    if step.action.front_end is not None:
        return step.action.front_end
    return step.value(step.args.sfe)


def _pin_front_end(step: SpecStep, front_end: object) -> Pin:
    assert isinstance(front_end, int)
    if step.per is Per.FRONT_END:
        return Pin(front_end=front_end)
    if front_end >= step.enc.front_ends:
        raise NotEncodable(f"{step.action!r}: {step.enc.front_ends} front ends are encoded")
    return Pin((step.args.sfe == front_end,))


def _decode_engine(step: ModelStep) -> object:
    if step.action.engine is not None:
        return step.action.engine
    if step.enc.engines > 1:
        return step.value(step.args.eng)  # the router's choice
    return None


def _pin_engine(step: SpecStep, engine: object) -> Pin:
    assert isinstance(engine, int)
    if step.per is Per.ENGINE:
        return Pin(engine=engine)
    if step.enc.engines > 1:
        return Pin((step.args.eng == engine,))  # the router's choice
    return Pin()


def _decode_index(step: ModelStep) -> object:
    """The pending messages routed to the same engine as the taken one, older than it."""
    rid = step.value(step.args.rid)
    before = step.before
    mine = step.value(before[msg_name(rid, "seq")])
    engine = step.value(before[msg_name(rid, "eng")])
    return sum(
        1 for r in range(step.enc.r)
        if r != rid and step.flag(before[msg_name(r, "pend")])
        and step.value(before[msg_name(r, "eng")]) == engine
        and step.value(before[msg_name(r, "seq")]) < mine
    )


def _pin_index(step: SpecStep, index: object) -> Pin:
    assert isinstance(index, int)
    engine = getattr(step.action, "engine", 0)
    at = step.before.queue_of(engine)[index]
    return Pin((step.args.rid == step.before.to_engine[at].rid,))


def _decode_items(step: ModelStep) -> object:
    a = step.args
    return tuple(
        ClientItem(step.enc.bounds.identities[step.value(a.sid[j])], step.value(a.sver[j]),
                   step.flag(a.sdata[j]))
        for j in range(step.value(a.sn))
    )


def _pin_items(step: SpecStep, items: object) -> Pin:
    assert isinstance(items, tuple)
    enc, a = step.enc, step.args
    if len(items) > enc.m:
        raise NotEncodable(f"{step.action!r}: at most {enc.m} items are encoded")
    facts: list[z3.BoolRef] = [a.sn == len(items)]
    for j, client_item in enumerate(items):
        assert isinstance(client_item, ClientItem)
        facts += [a.sid[j] == enc.bounds.identities.index(client_item.identity),
                  a.sver[j] == client_item.version, a.sdata[j] == client_item.has_data]
    return Pin(tuple(facts))


FIELDS: dict[str, FieldCodec] = {
    "rid": FieldCodec(_decode_rid, _pin_rid),
    "front_end": FieldCodec(_decode_front_end, _pin_front_end),
    "engine": FieldCodec(_decode_engine, _pin_engine),
    "index": FieldCodec(_decode_index, _pin_index),
    "items": FieldCodec(_decode_items, _pin_items),
}
"""Per action field name, how it maps to a step's arguments."""


def _codec(cls: type[Action], name: str) -> FieldCodec:
    try:
        return FIELDS[name]
    except KeyError:
        raise UnknownField(f"{cls.__name__}.{name}: no mapping of this field to a step's "
                           f"arguments; add one to FIELDS in {HERE}") from None


def decode_action(step: ModelStep) -> Action:
    """The spec action of a model's step: its class from the code, each field from the model."""
    cls = step.action.spec_class
    values = {f.name: _codec(cls, f.name).decode(step) for f in dataclasses.fields(cls)}
    build = cast(Callable[..., Action], cls)
    return build(**{name: value for name, value in values.items() if value is not None})


def per_of(cls: type[Action]) -> Per:
    """How `cls` is encoded: once, per front end or per engine."""
    for encoded in ACTIONS:
        if encoded.spec_class is cls:
            return encoded.per
    raise KeyError(f"{cls.__name__} is not encoded")


def pin_arguments(enc: Encoding, before: State, action: Action, args: Args) -> Pin:
    """The facts fixing a step's arguments to `action`'s fields (taken from `before`), and the
    front end or engine of its action code where its fields say."""
    cls = type(action)
    step = SpecStep(enc, before, action, args, per_of(cls))
    facts: list[z3.BoolRef] = []
    front_end = engine = None
    for f in dataclasses.fields(action):
        pin = _codec(cls, f.name).pin(step, getattr(action, f.name))
        facts += pin.facts
        front_end = pin.front_end if pin.front_end is not None else front_end
        engine = pin.engine if pin.engine is not None else engine
    return Pin(tuple(facts), front_end, engine)
