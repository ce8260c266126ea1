"""The one table of the Z3 side keyed by action class: each spec action's relation, registered
by a decorator beside the relation itself.

A relation module (`client`, `front_end`, `engine`, `drift_events`, mirroring
spec/transitions/) writes a relation and registers it for its spec class in the same place:

    @relation(t.Submit)                 # one relation
    def submit(enc, p, s, a): ...

    @per_front_end(t.P0Clear)           # one relation per front end (fe fixed, not symbolic)
    def p0_clear(fe): ...

    @per_engine(t.P1Clear)              # one relation per engine
    def p1_clear(engine): ...

Everything else is derived from `spec.ACTION_TYPES` and the action classes: the action codes
(`actions.ACTIONS`, in `actions.code_order`: a new class after the others), the drift source
that enables each (the class's `requires`), how a model's step becomes a spec action and how a
spec action pins a step's arguments (by the class's dataclass fields: `decode.fields`). A class
registered twice is an error at import; a spec class with no relation is an error naming it
and these modules.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from model_checks.smt.encode.args import Relation
from spec import Action

RELATION_MODULES = ("client", "front_end", "engine", "drift_events")
"""The modules of `model_checks/smt/encode/` that write and register relations."""


class Per(enum.Enum):
    """How many relations a spec action class has."""

    STEP = "one relation"
    FRONT_END = "one relation per front end"
    ENGINE = "one relation per engine"


@dataclass(frozen=True)
class Registered:
    """A spec class's relation: the relation itself (`Per.STEP`), or what builds the relation
    of front end or engine i."""

    spec_class: type[Action]
    per: Per
    relation_of: Callable[[int], Relation]


RELATIONS: dict[type[Action], Registered] = {}
"""Per spec action class, its registered relation (filled by the decorators below as the
relation modules are imported; `actions` imports them all)."""


class MissingRelation(LookupError):
    """A spec action class the Z3 encoding has no relation for (or a relation registered for a
    class that is not a spec action)."""


def _register(spec_class: type[Action], per: Per, relation_of: Callable[[int], Relation],
              table: dict[type[Action], Registered]) -> None:
    if spec_class in table:
        raise ValueError(f"{spec_class.__name__} has two Z3 relations; register it once")
    table[spec_class] = Registered(spec_class, per, relation_of)


_R = TypeVar("_R", bound=Relation)
_F = TypeVar("_F", bound=Callable[[int], Relation])


def relation(
    spec_class: type[Action], table: dict[type[Action], Registered] = RELATIONS,
) -> Callable[[_R], _R]:
    """Register `spec_class`'s one relation; the function is returned unchanged."""
    def register(function: _R) -> _R:
        _register(spec_class, Per.STEP, lambda _: function, table)
        return function
    return register


def per_front_end(
    spec_class: type[Action], table: dict[type[Action], Registered] = RELATIONS,
) -> Callable[[_F], _F]:
    """Register `spec_class`'s relation of front end fe, built by `function(fe)` (front end 1
    exists under D5 only)."""
    def register(function: _F) -> _F:
        _register(spec_class, Per.FRONT_END, function, table)
        return function
    return register


def per_engine(
    spec_class: type[Action], table: dict[type[Action], Registered] = RELATIONS,
) -> Callable[[_F], _F]:
    """Register `spec_class`'s relation of engine e, built by `function(e)` (engine 1 exists
    in D5's router configuration only)."""
    def register(function: _F) -> _F:
        _register(spec_class, Per.ENGINE, function, table)
        return function
    return register


def registered(
    action_types: tuple[type[Action], ...], table: dict[type[Action], Registered],
) -> tuple[Registered, ...]:
    """The relation of every class of `action_types`, in that order; a class without one (or a
    registered class that is not in `action_types`) is a `MissingRelation` naming it and the
    file to edit."""
    missing = [c.__name__ for c in action_types if c not in table]
    if missing:
        files = ", ".join(f"model_checks/smt/encode/{m}.py" for m in RELATION_MODULES)
        raise MissingRelation(
            f"no Z3 relation for {', '.join(missing)}: write it in the module of its kind "
            f"({files}) and register it there with @relation, @per_front_end or @per_engine")
    extra = [c.__name__ for c in table if c not in action_types]
    if extra:
        raise MissingRelation(f"Z3 relations registered for {', '.join(extra)}, which "
                              "spec.ACTION_TYPES does not list")
    return tuple(table[c] for c in action_types)
