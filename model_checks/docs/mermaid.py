"""Mermaid sequence diagrams of traces: the client, P0, the channel and P1, one arrow a step."""

from __future__ import annotations

from model_checks.kernel import lru_notation
from spec.observations import sent_message
from spec.state import State
from spec.trace import Trace
from spec.transitions import Action

PARTICIPANTS = (
    "participant C as client",
    "participant P0 as P0 (shadow)",
    "participant Ch as channel",
    "participant P1 as P1 (receiver)",
)


def _lines(number: int, before: State, action: Action, after: State) -> list[str]:
    label = f"{number}. {lru_notation.action(action)}"
    if action.label == "submit" or action.label == "retry":
        lines = [f"C->>P0: {label}"]
    elif action.label == "p1_receive":
        lines = [f"Ch->>P1: {label}"]
        if after.to_front_end != before.to_front_end and after.to_front_end:
            lines.append(f"P1-->>Ch: {lru_notation.reply(after.to_front_end[-1])}")
    elif action.label == "p0_receive_reply":
        lines = [f"Ch-->>P0: {label}: {lru_notation.reply(before.to_front_end[0])}"]
    elif action.label.startswith("p0_"):
        sent = sent_message(before, after)
        lines = [f"P0->>Ch: {label}: {lru_notation.message(sent)}" if sent is not None
                 else f"Note over P0: {label}"]
    elif action.label.startswith("p1_"):
        lines = [f"Note over P1: {label}"]
    else:
        lines = [f"Note over P0,P1: {label}"]
    did = lru_notation.columns(after)["P1 did"]
    if did and action.label == "p1_receive":
        lines.append(f"Note over P1: {did}")
    if after.fault is not None and before.fault is None:
        lines.append(f"Note over P0,P1: FAULT {after.fault.kind.value}")
    return lines


def sequence_diagram(trace: Trace) -> str:
    """A fenced Mermaid block for `trace`."""
    body = [*PARTICIPANTS]
    for number, before, action, after in trace.transitions():
        body.extend(_lines(number, before, action, after))
    # ";" ends a Mermaid statement and "#" starts an entity code: keep both out of labels.
    text = "\n".join("    " + line.replace(";", ",").replace("#", " tag ") for line in body)
    return "```mermaid\nsequenceDiagram\n" + text + "\n```"
