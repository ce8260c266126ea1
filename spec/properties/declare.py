"""Declaring properties apart from checking them.

Decorators turn a check function into a frozen `Property` (id, title, kind, the statement the
decorator is given, fairness assumption for liveness) and record it;
`spec.properties.registry` imports the modules that declare and collects what they recorded.
Docs, checkers and tests read the registry; nothing restates a property. A property without a
statement, a liveness property without a fairness assumption, or a duplicate id fails at import
with a message naming the fix.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable
from dataclasses import dataclass

from spec.config import Config
from spec.state import State
from spec.trace import Trace


class Kind(enum.Enum):
    SAFETY = "safety"  # must hold in every reachable state
    DIAGNOSTIC = "diagnostic"  # expected to fail under drift; shows where drift bites
    LIVENESS = "liveness"  # bounded response over a trace, under a fairness assumption
    LIMIT = "documented limit"  # cannot hold in some environments; the docs say which
    LEMMA = "strengthening invariant"  # holds in every reachable state; proofs rely on it

    def __repr__(self) -> str:
        return f"Kind.{self.name}"


class InvalidDefinition(Exception):
    """A property declared wrongly; the message says what to do."""


StateCheck = Callable[[Config, State], list[str]]
TraceCheck = Callable[[Trace], "Violation | None"]


@dataclass(frozen=True, slots=True)
class Violation:
    """Where a property broke: the 1-based step (0: the initial state) and why."""

    property_id: str
    step: int
    reason: str


@dataclass(frozen=True, slots=True)
class Property:
    id: str
    title: str
    kind: Kind
    statement: str
    fairness: str | None
    state_check: StateCheck | None
    trace_check: TraceCheck | None
    compares_contents: bool = False
    """The property compares the contents of one identity (a tensor's with its placeholders',
    or with what the client sent): vacuous where every identity has one content."""

    def check_state(self, config: Config, state: State) -> list[str]:
        """Reasons this state violates the property (empty: it holds). State properties only."""
        if self.state_check is None:
            raise TypeError(f"{self.id} is a trace property; use check_trace")
        return self.state_check(config, state)

    def check_trace(self, trace: Trace) -> Violation | None:
        """The first violation along `trace`, or None."""
        if self.trace_check is not None:
            return self.trace_check(trace)
        for number, state in enumerate(trace.states()):
            reasons = self.check_state(trace.config, state)
            if reasons:
                return Violation(self.id, number, "; ".join(reasons))
        return None


_DECLARED: dict[str, Property] = {}
_LEMMAS: dict[str, Property] = {}
_GENERATION = [0]
"""Bumped by every declaration and withdrawal, so that a reader caching what it computed
from `declared()` knows when to compute it again (`generation`)."""


def declared() -> tuple[Property, ...]:
    """Every property declared so far, lemmas excepted, in declaration order (the registry
    orders them: `spec.properties.registry.registry`)."""
    return tuple(_DECLARED.values())


def declared_lemmas() -> tuple[Property, ...]:
    """Every strengthening invariant (`Kind.LEMMA`) declared so far, in declaration order."""
    return tuple(_LEMMAS.values())


def generation() -> int:
    """A number that changes with every declaration and withdrawal (checkers ask for the
    registry at every step: a cache of it stays valid while this number does)."""
    return _GENERATION[0]


def withdraw(prop_id: str) -> None:
    """Undo the declaration of `prop_id` (a property declared for a test's fixture); an id
    never declared is an error, and changes nothing."""
    for table in (_DECLARED, _LEMMAS):
        if prop_id in table:
            del table[prop_id]
            _GENERATION[0] += 1
            return
    raise KeyError(f"property {prop_id!r} was never declared, nothing to withdraw")


def _statement(statement: str, prop_id: str) -> str:
    """The statement as a docstring reads (`inspect.cleandoc`: the lines after the first
    dedented, blank lines around dropped). Given to the decorator, not read from the check's
    docstring: a function compiled with mypyc has none."""
    text = inspect.cleandoc(statement)
    if not text.strip():
        raise InvalidDefinition(
            f"property {prop_id} has no statement: write what it asserts as the decorator's "
            "`statement`"
        )
    return text


def _record(prop: Property) -> None:
    table = _LEMMAS if prop.kind is Kind.LEMMA else _DECLARED
    if prop.id in table:
        raise InvalidDefinition(f"property id {prop.id} is declared twice; give each an own id")
    table[prop.id] = prop
    _GENERATION[0] += 1


def state_property(prop_id: str, title: str, kind: Kind, *, statement: str,
                   compares_contents: bool = False) -> Callable[[StateCheck], StateCheck]:
    """Declare a property checked on every state (safety, diagnostic or documented limit),
    asserting `statement`; `compares_contents`: see `Property.compares_contents`."""
    if kind is Kind.LIVENESS:
        raise InvalidDefinition(f"{prop_id}: a liveness property is declared with trace_property")
    if (kind is Kind.LEMMA) != prop_id.startswith("I"):
        raise InvalidDefinition(f"{prop_id}: strengthening invariants, and only they, use I ids")
    text = _statement(statement, prop_id)

    def declare(check: StateCheck) -> StateCheck:
        _record(Property(prop_id, title, kind, text, None, check, None, compares_contents))
        return check

    return declare


def trace_property(prop_id: str, title: str, fairness: str, *, statement: str
                   ) -> Callable[[TraceCheck], TraceCheck]:
    """Declare a liveness property checked over a trace, asserting `statement` under the
    stated fairness assumption."""
    if not fairness.strip():
        raise InvalidDefinition(f"{prop_id}: state the fairness assumption the property needs")
    text = _statement(statement, prop_id)

    def declare(check: TraceCheck) -> TraceCheck:
        _record(Property(prop_id, title, Kind.LIVENESS, text, fairness, None, check))
        return check

    return declare
