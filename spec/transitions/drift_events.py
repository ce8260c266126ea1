"""Clears, resets and restarts: one-sided (D3), racing in-flight requests (D4), restarts (D10),
and the protocol's own synchronised clear of both sides.

`DRIFT_EVENT_TYPES` lists every action class of this module, in the order `enabled` lists
their instances (after the protocol's steps: `spec.ACTION_TYPES` ends with it), and
`__all__` exports each by name (`spec.transitions` re-exports them); a new event is a class
here and its name in both, and `tests/spec/test_spec_drift_events.py` fails on one missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from spec.config import Config
from spec.drift import Drift
from spec.state import Stage, State
from spec.transitions.base import Action, describe

__all__ = [
    "DRIFT_EVENT_TYPES",
    "ClearBoth",
    "P0Clear",
    "P0ClearForReset",
    "P0Restart",
    "P1Clear",
    "P1Reset",
    "P1Restart",
]

_MID_PIPELINE = (Stage.PROCESSED, Stage.UPDATING)


def _front_end_idle(state: State, front_end: int) -> bool:
    return not any(r.front_end == front_end and r.stage in _MID_PIPELINE for r in state.requests)


def _clear_shadow(state: State, front_end: int) -> State:
    return state.with_shadow(front_end, ())


@dataclass(frozen=True, slots=True)
class ClearBoth(Action):
    """Protocol: clear every shadow and P1 together, while nothing is in flight (no message to
    P1, no attempt between probe and send). Safe: both sides end empty."""


    def is_obligation(self) -> bool:
        return False

    @classmethod
    def may_be_owed(cls) -> bool:
        return False

    def guard(self, config: Config, state: State) -> bool:
        if state.to_engine or state.reset_pending:
            return False  # the cheap conjuncts first: the guard is asked in every state
        return all(_front_end_idle(state, fe) for fe in range(config.front_ends))

    def apply(self, config: Config, state: State) -> State:
        return state.evolve(shadows=((),) * config.front_ends).without_receivers()

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        yield cls()

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        # The one candidate, guarded, without a generator per state (asked in every state).
        action = cls()
        return iter((action,) if action.guard(config, state) else ())


describe(ClearBoth, "clear_both")


@dataclass(frozen=True, slots=True)
class _ReceiverWipe(Action):
    """Engine `engine`'s P1 loses its whole cache, at any time; the subclass says why (its
    drift source). Engines other than 0 exist only in D5's router configuration."""

    engine: int = 0

    def guard(self, config: Config, state: State) -> bool:
        return 0 <= self.engine < config.engines

    def apply(self, config: Config, state: State) -> State:
        return state.with_receiver(self.engine, ())

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(e) for e in range(config.engines))

    # Every candidate passes the guard (which restates what `candidates` selects, for actions
    # built elsewhere): the enabled instances are the candidates themselves.
    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        return cls.candidates(config, state)


@dataclass(frozen=True, slots=True)
class P1Clear(_ReceiverWipe):
    """D3: P1's cache is cleared alone (sleep, pause with cache clear, reset of P1 only):
    P1 empty, P0 full. Unsafe: P0 keeps sending references."""


describe(P1Clear, "p1_clear", drift=Drift.D3, requires=Drift.D3)


@dataclass(frozen=True, slots=True)
class P0Clear(Action):
    """D3: one front end's shadow is cleared alone. Safe: removing keys from P0 only ever turns
    references into payloads."""

    front_end: int = 0

    def guard(self, config: Config, state: State) -> bool:
        return 0 <= self.front_end < config.front_ends

    def apply(self, config: Config, state: State) -> State:
        return _clear_shadow(state, self.front_end)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(fe) for fe in range(config.front_ends))


describe(P0Clear, "p0_clear", drift=Drift.D3, requires=Drift.D3)


@dataclass(frozen=True, slots=True)
class P0ClearForReset(Action):
    """D4, first half: P0 clears its shadow and asks for P1's reset, which travels apart from
    the data messages and is applied later (`P1Reset`); requests P0 handles in between are
    cached by P1 and then wiped, while P0 still holds their keys."""

    front_end: int = 0

    def guard(self, config: Config, state: State) -> bool:
        return 0 <= self.front_end < config.front_ends and not state.reset_pending

    def apply(self, config: Config, state: State) -> State:
        return _clear_shadow(state, self.front_end).evolve(reset_pending=True)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(fe) for fe in range(config.front_ends))


describe(P0ClearForReset, "p0_clear_for_reset", drift=Drift.D4, requires=Drift.D4)


@dataclass(frozen=True, slots=True)
class P1Reset(Action):
    """D4, second half: the pending reset reaches P1 and wipes its cache (every engine's, in
    the router configuration: the front end's reset is broadcast to all of them)."""


    def guard(self, config: Config, state: State) -> bool:
        return state.reset_pending

    def apply(self, config: Config, state: State) -> State:
        return state.without_receivers().evolve(reset_pending=False)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        yield cls()


describe(P1Reset, "p1_reset", drift=Drift.D4, requires=Drift.D4)


@dataclass(frozen=True, slots=True)
class P1Restart(_ReceiverWipe):
    """D10: the engine process restarts and loses its cache (messages already queued to it
    survive). Unsafe, like a one-sided clear."""


describe(P1Restart, "p1_restart", drift=Drift.D10, requires=Drift.D10)


@dataclass(frozen=True, slots=True)
class P0Restart(Action):
    """D10: a front end restarts while it holds no attempt between probe and send, and loses its
    shadow. Safe: P0 then sends payloads for everything."""

    front_end: int = 0

    def guard(self, config: Config, state: State) -> bool:
        in_range = 0 <= self.front_end < config.front_ends
        return in_range and _front_end_idle(state, self.front_end)

    def apply(self, config: Config, state: State) -> State:
        return _clear_shadow(state, self.front_end)

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        return (cls(fe) for fe in range(config.front_ends))


describe(P0Restart, "p0_restart", drift=Drift.D10, requires=Drift.D10)


DRIFT_EVENT_TYPES: tuple[type[Action], ...] = (
    ClearBoth,
    P0Clear,
    P1Clear,
    P0ClearForReset,
    P1Reset,
    P0Restart,
    P1Restart,
)
"""Every action class of this module, in the order `enabled` lists their instances."""
