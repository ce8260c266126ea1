"""What one step of the spec did, as seen from outside: the message it sent to P1, the miss
reply P0 took. The liveness properties (`spec.properties.liveness`), the explorer's monitors
and the sequence diagrams read a step through these, so the three agree on what a step did.
"""

from __future__ import annotations

from spec.state import Message, Reply, Stage, State
from spec.transitions import Action, P0ReceiveReply


def sent_message(before: State, after: State) -> Message | None:
    """The message the step `before -> after` put on the channel to P1, if it sent one: the
    step that moved a request to IN_FLIGHT put its message last on the channel."""
    for request in after.requests:
        if request.stage is not Stage.IN_FLIGHT:
            continue  # asked first: most steps move no request to IN_FLIGHT
        old = before.requests[request.rid] if request.rid < len(before.requests) else None
        if old is None or old.stage is not Stage.IN_FLIGHT:
            return after.to_engine[-1]
    return None


def miss_taken(before: State, action: Action) -> Reply | None:
    """The miss reply P0 takes when `action`, taken in `before`, is P0 receiving a reply
    that lists missed identities; None for any other step."""
    if isinstance(action, P0ReceiveReply) and before.to_front_end[0].missed:
        return before.to_front_end[0]
    return None
