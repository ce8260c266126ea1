"""The transition system: which actions are enabled, and the step function.

`step(config, state, action)` is pure and deterministic. A faulted state (crash, P0 assertion,
hang) is absorbing: nothing is enabled after a fault, as after the real engine's input thread
died. Every step clears `last_delivery`; only P1's receive sets it again.
"""

from __future__ import annotations

from spec.config import Config
from spec.state import State, initial_state
from spec.transitions import ACTION_TYPES, Action, InvalidAction


def initial(config: Config) -> State:
    """The state every run starts from: empty caches, no requests."""
    return initial_state(config.front_ends, config.engines)


def is_enabled(config: Config, state: State, action: Action) -> bool:
    return state.fault is None and action.available(config) and action.guard(config, state)


def enabled(config: Config, state: State) -> list[Action]:
    """Every enabled action, in a fixed order (action class order, then candidate order)."""
    if state.fault is not None:
        return []
    found: list[Action] = []
    for action_type in config.derived("available_types", _available_types):
        found += action_type.enabled_instances(config, state)
    return found


def _available_types(config: Config) -> tuple[type[Action], ...]:
    """The action classes the environment enables at all (`Action.available` reads only the
    class's `requires`), in `ACTION_TYPES` order."""
    return tuple(t for t in ACTION_TYPES if t.requires is None or config.enables(t.requires))


def step(config: Config, state: State, action: Action) -> State:
    """The next state. Raises InvalidAction (and changes nothing) if `action` is not enabled."""
    if not is_enabled(config, state, action):
        why = _why_not(config, state, action)
        raise InvalidAction(f"{action!r} is not enabled in this state ({why})")
    cleared = state if state.last_delivery is None else state.evolve(last_delivery=None)
    return action.apply(config, cleared)


def _why_not(config: Config, state: State, action: Action) -> str:
    if state.fault is not None:
        return f"the system has faulted: {state.fault.kind.value}"
    if not action.available(config):
        return f"it needs drift source {action.requires.value if action.requires else '?'} enabled"
    return "its guard is false"
