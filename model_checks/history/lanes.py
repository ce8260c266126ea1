"""Swim lanes of a history: one lane per client (thread or task), one row per invocation or
response in time order, in the one notation; as plain text and as a mermaid sequence
diagram (for the trace page). A call can be marked (`mark`): the first event the spec
cannot explain.
"""

from __future__ import annotations

from model_checks.history.log import Call, History, item_text, result_text
from model_checks.kernel.text_table import grid

MARK = "<< first unexplained"


def _clients(history: History) -> list[str]:
    seen: list[str] = []
    for call in sorted(history.calls, key=lambda c: c.invoked):
        if call.client not in seen:
            seen.append(call.client)
    return seen


def _invocation(call: Call) -> str:
    items = f" [{' '.join(item_text(i) for i in call.items)}]" if call.items else ""
    return f"{call.side} {call.op}{items}"


def _events(history: History) -> list[tuple[int, bool, Call]]:
    """(time, is a response, call), in time order."""
    events = [(c.invoked, False, c) for c in history.calls]
    events += [(c.returned, True, c) for c in history.calls]
    return sorted(events, key=lambda e: (e[0], e[1]))


def text_lanes(history: History, mark: int | None = None) -> str:
    """The lanes as a plain-text table: `> ...` an invocation, `< ...` its response, `|`
    a call still running in that lane; `mark` (a call number) is flagged."""
    clients = _clients(history)
    lane = {c: n for n, c in enumerate(clients)}
    running: dict[str, Call] = {}
    rows = []
    for time, response, call in _events(history):
        cells = ["|" if client in running else "" for client in clients]
        if response:
            running.pop(call.client, None)
            text = "< " + result_text(call.result)
            if call.number == mark:
                text += f"  {MARK}"
        else:
            running[call.client] = call
            text = f"> #{call.number} {_invocation(call)}"
        cells[lane[call.client]] = text
        rows.append((str(time), *cells))
    return grid(("t", *clients), rows)


def _mermaid_text(text: str) -> str:
    """Mermaid ends a message at `;` and reads `#` as an entity: neither may appear."""
    return text.replace(";", ",").replace("#", "no. ")


def mermaid_lanes(history: History, mark: int | None = None) -> str:
    """The lanes as a mermaid sequence diagram (a fenced block's body): each client a
    participant, the implementation one more, every call an activation of it."""
    clients = _clients(history)
    lines = ["sequenceDiagram"]
    lines += [f"    participant {c}" for c in clients]
    lines.append("    participant impl as implementation")
    for _, response, call in _events(history):
        if response:
            lines.append(f"    impl-->>-{call.client}: "
                         f"{_mermaid_text(result_text(call.result))}")
            if call.number == mark:
                lines.append(f"    Note over {call.client}: first unexplained")
        else:
            lines.append(f"    {call.client}->>+impl: call {call.number}: "
                         f"{_mermaid_text(_invocation(call))}")
    return "\n".join(lines)
