"""Traces: a configuration, an initial state and the steps taken from it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from spec.config import Config
from spec.machine import initial, step
from spec.state import State
from spec.transitions import Action, InvalidAction
from spec.values import init_values


@dataclass(frozen=True, slots=True)
class Step:
    action: Action
    state: State  # the state after the action

    def __reduce__(self) -> tuple[type[Step], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)


@dataclass(frozen=True, slots=True)
class Trace:
    config: Config
    initial: State
    steps: tuple[Step, ...] = ()

    def __reduce__(self) -> tuple[type[Trace], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    @property
    def final(self) -> State:
        return self.steps[-1].state if self.steps else self.initial

    def states(self) -> Iterator[State]:
        """Every state, the initial one first."""
        yield self.initial
        for s in self.steps:
            yield s.state

    def transitions(self) -> Iterator[tuple[int, State, Action, State]]:
        """(1-based step number, state before, action, state after) for every step."""
        before = self.initial
        for number, s in enumerate(self.steps, start=1):
            yield number, before, s.action, s.state
            before = s.state

    def extended(self, action: Action) -> Trace:
        after = step(self.config, self.final, action)
        return Trace(self.config, self.initial, (*self.steps, Step(action, after)))


class TraceError(InvalidAction):
    """An action of a scripted trace is not enabled; the message names the step."""


def run(config: Config, actions: Iterable[Action], start: State | None = None) -> Trace:
    """Execute `actions` from `start` (default: the initial state); every action must be enabled."""
    state = initial(config) if start is None else start
    first = state
    steps: list[Step] = []
    for number, action in enumerate(actions, start=1):
        try:
            state = step(config, state, action)
        except InvalidAction as error:
            raise TraceError(f"step {number}: {error}") from None
        steps.append(Step(action, state))
    return Trace(config, first, tuple(steps))
