"""Every transition of the system, one class per named step."""

from spec.transitions.base import Action, InvalidAction
from spec.transitions.client import Retry, Submit
from spec.transitions.drift_events import (
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Restart,
    P1Clear,
    P1Reset,
    P1Restart,
)
from spec.transitions.engine import P1Receive
from spec.transitions.front_end import (
    P0Handle,
    P0HandleRejected,
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
    P1Receive,
    P0ReceiveReply,
    Retry,
    ClearBoth,
    P0Clear,
    P1Clear,
    P0ClearForReset,
    P1Reset,
    P0Restart,
    P1Restart,
)
"""All action classes, in the order `enabled` lists their instances."""

__all__ = [
    "ACTION_TYPES",
    "Action",
    "ClearBoth",
    "InvalidAction",
    "P0Clear",
    "P0ClearForReset",
    "P0Handle",
    "P0HandleRejected",
    "P0Process",
    "P0ReceiveReply",
    "P0Restart",
    "P0UpdateItem",
    "P1Clear",
    "P1Receive",
    "P1Reset",
    "P1Restart",
    "Retry",
    "Submit",
]
