"""The fairness assumption made executable: drive a state to quiescence.

Quiescent means no protocol step is pending: nothing to deliver, no attempt to handle, no miss
the client may still retry. Drift events and new client requests never count as pending, so a
quiescent state is where L4's obligations fall due. `drive_to_quiescence` takes pending protocol
steps in a fixed, fair order (oldest message first, then replies, then front-end work, then
retries), with no new drift, until the state is quiescent.
"""

from __future__ import annotations

from spec.config import Config
from spec.machine import is_enabled, step
from spec.state import State
from spec.transitions import (
    ACTION_TYPES,
    Action,
    P0Handle,
    P0ReceiveReply,
    P0UpdateItem,
    P1Receive,
    Retry,
)


class FairnessBoundExceeded(Exception):
    """The system did not become quiescent within the step bound (a livelock)."""


def pending(config: Config, state: State) -> list[Action]:
    """Enabled steps that fairness owes: protocol work in progress (see `is_obligation`), in
    `enabled`'s order. Classes whose instances are never owed are not enumerated at all."""
    if state.fault is not None:
        return []
    return [
        action
        for action_type in ACTION_TYPES
        if action_type.may_be_owed()
        for action in action_type.candidates(config, state)
        if is_enabled(config, state, action) and action.is_obligation()
    ]


def is_quiescent(config: Config, state: State) -> bool:
    return state.fault is not None or not pending(config, state)


def fair_choice(actions: list[Action]) -> Action:
    """The step a fair scheduler takes next: engine first, then replies, then P0, then retries."""
    return min(actions, key=lambda a: _RANK.get(type(a), len(_RANK)))


_RANK: dict[type[Action], int] = {
    P1Receive: 0, P0ReceiveReply: 1, P0Handle: 2, P0UpdateItem: 2, Retry: 3,
}
"""`fair_choice`'s order, by action class (lower first; every other class after these)."""


def drive_to_quiescence(
    config: Config, state: State, max_steps: int = 1000
) -> list[tuple[Action, State]]:
    """The steps a fair scheduler takes from `state` until quiescence."""
    taken: list[tuple[Action, State]] = []
    while not is_quiescent(config, state):
        if len(taken) >= max_steps:
            raise FairnessBoundExceeded(f"not quiescent after {max_steps} fair steps")
        action = fair_choice(pending(config, state))
        state = step(config, state, action)
        taken.append((action, state))
    return taken
