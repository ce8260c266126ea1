"""The shape every transition has: a frozen action value with a guard and a pure step.

An action class states, as class attributes, the drift source it represents (None for the
protocol's own steps) and its label, set once by `describe` right after the class;
`candidates` enumerates the instances worth asking about in a state (the guard still decides),
so checkers can list every enabled action.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from spec.config import Config
from spec.drift import Drift
from spec.state import State
from spec.values import init_values


class InvalidAction(ValueError):
    """`step` was called with an action whose guard is false in that state."""


class Described:
    """What an action class says about itself, read on the class and on its instances; each
    class sets its own with `describe`. Declared here, outside the dataclass, because a class
    variable a compiled (mypyc) dataclass declares or overrides in its body becomes one of its
    fields."""

    label: ClassVar[str] = "action"
    drift: ClassVar[Drift | None] = None
    # The drift source whose environment membership enables this action at all.
    requires: ClassVar[Drift | None] = None
    # Drift sources that particular instances exercise (e.g. a reordered delivery, D1).
    exercises: ClassVar[tuple[Drift, ...]] = ()


@dataclass(frozen=True, slots=True)
class Action(Described):
    """Base of all actions. Subclasses are frozen dataclasses whose fields are the arguments;
    `describe` states each one's label and drift sources."""

    def __reduce__(self) -> tuple[type[Action], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def guard(self, config: Config, state: State) -> bool:
        raise NotImplementedError

    def apply(self, config: Config, state: State) -> State:
        """The next state; only called when `guard` holds."""
        raise NotImplementedError

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        raise NotImplementedError

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        """The candidates whose guard holds, in candidate order (`spec.enabled` lists these for
        each available class). A class may override it with a faster enumeration of exactly
        the same actions (`tests/spec/test_spec_machine.py` compares the two)."""
        return (action for action in cls.candidates(config, state) if action.guard(config, state))

    def drift_event(self) -> Drift | None:
        """The drift source this particular step exercises, if any (used by L3's monitor)."""
        return self.drift

    def is_obligation(self) -> bool:
        """True when fairness requires this step to be taken eventually once enabled: protocol
        work in progress. New requests, optional clears and drift events are never owed."""
        return self.drift_event() is None

    @classmethod
    def may_be_owed(cls) -> bool:
        """False when no instance is ever an obligation, so fairness can skip the class."""
        return cls.drift is None

    def arguments(self) -> dict[str, object]:
        """The action's own fields (its arguments), by name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def exercised_drift(cls) -> frozenset[Drift]:
        """Every drift source some instance of this action can exercise."""
        own = {d for d in (cls.drift, cls.requires) if d is not None}
        return frozenset(own) | frozenset(cls.exercises)

    def available(self, config: Config) -> bool:
        return self.requires is None or config.enables(self.requires)



_Class = TypeVar("_Class", bound=Described)


def describe(cls: type[_Class], label: str, *, drift: Drift | None = None,
             requires: Drift | None = None, exercises: tuple[Drift, ...] = ()) -> None:
    """State what action class `cls` is: its label, the drift source it represents (None: a
    protocol step), the one whose environment membership enables it at all, and those some
    of its instances exercise. Called once, right after the class; nothing is inherited (a
    subclass states all of its own)."""
    if "label" in vars(cls):
        raise TypeError(f"{cls.__name__} is described twice")
    cls.label, cls.drift, cls.requires, cls.exercises = label, drift, requires, exercises
