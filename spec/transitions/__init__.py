"""Every transition of the system, one class per named step.

The drift events (clears, resets, restarts) come from `drift_events`, which lists its own
classes (`DRIFT_EVENT_TYPES`) and exports them (`drift_events.__all__`), so a new event is
an edit of that module alone.
"""

from spec.transitions import drift_events
from spec.transitions.base import Action, InvalidAction
from spec.transitions.client import Retry, Submit
from spec.transitions.drift_events import *  # noqa: F403  (its `__all__`: every event class)
from spec.transitions.drift_events import DRIFT_EVENT_TYPES
from spec.transitions.engine import P1Receive, P1ReceiveOwnPayload
from spec.transitions.front_end import (
    P0Handle,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P0Process,
    P0ReceiveReply,
    P0UpdateItem,
)

ACTION_TYPES: tuple[type[Action], ...] = (
    Submit,
    P0Handle,
    P0Process,
    P0UpdateItem,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P1Receive,
    P1ReceiveOwnPayload,
    P0ReceiveReply,
    Retry,
    *DRIFT_EVENT_TYPES,
)
"""All action classes, in the order `enabled` lists their instances: the protocol's steps,
then the drift events in `DRIFT_EVENT_TYPES`' order."""

__all__ = [
    "ACTION_TYPES",
    "Action",
    "InvalidAction",
    "P0Handle",
    "P0HandleRejected",
    "P0HandleRejectedUndo",
    "P0Process",
    "P0ReceiveReply",
    "P0UpdateItem",
    "P1Receive",
    "P1ReceiveOwnPayload",
    "Retry",
    "Submit",
]
__all__ += drift_events.__all__
