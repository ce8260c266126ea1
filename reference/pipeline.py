"""``serve``: one request through a front end and an engine, with the recovery wiring.

In the real system the message crosses a process boundary and the reply comes back
asynchronously; here both run in the caller's thread, which is what tests and examples need.
"""

from __future__ import annotations

from typing import Protocol

from reference.engine import Engine
from reference.errors import MultiModalCacheMissError
from reference.frontend import FrontEnd
from reference.messages import Message, ModelInput, Reply, Request

__all__ = ["deliver", "serve"]


class ReplyTarget(Protocol):
    """The front end's half of a request's end (`FrontEnd` and the asyncio front end)."""

    def handle_reply(self, reply: Reply) -> None: ...

    def abandon(self, request_id: int) -> None: ...


def serve(front_end: FrontEnd, engine: Engine, request: Request) -> tuple[ModelInput, ...]:
    """Prepare ``request`` on ``front_end``, resolve it on ``engine``, close it on the front end.

    On a miss, the front end invalidates exactly the missed identities before the miss error
    propagates to the client (BRIEF section 3, recovery); on any other engine error the
    request is abandoned and the error propagates.
    """
    return deliver(front_end, engine, front_end.prepare(request))


def deliver(front_end: ReplyTarget, engine: Engine, message: Message) -> tuple[ModelInput, ...]:
    """Resolve a prepared ``message`` on ``engine`` and close it on ``front_end``: a miss is
    replied (the front end invalidates exactly the missed identities) and re-raised; any other
    engine error abandons the request and propagates; success replies with no miss."""
    try:
        inputs = engine.receive(message)
    except MultiModalCacheMissError as error:
        front_end.handle_reply(Reply(message.request_id, error.identities))
        raise
    except BaseException:
        front_end.abandon(message.request_id)
        raise
    front_end.handle_reply(Reply(message.request_id))
    return inputs
