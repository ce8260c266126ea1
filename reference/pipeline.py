"""``serve``: one request through a front end and an engine, with the recovery wiring.

In the real system the message crosses a process boundary and the reply comes back
asynchronously; here both run in the caller's thread, which is what tests and examples need.

Failure atomicity across the pair (each clause has its test in
``tests/reference/test_ref_pair.py``):

- **P0 never keeps a record of an item P1 did not receive because of this wiring.** ``serve``
  checks the front end, the engine and that both run the same variant before the front end
  changes anything. ``deliver`` gets a message the front end already recorded; if the engine
  is not a usable one (wrong type, another variant) or rejects the message, the front end
  *withdraws* it (``FrontEnd.withdraw``): the request is closed and the shadow entries it
  recorded are dropped again. Dropping keys from P0 is always safe: the next request resends.
- **One source per tag nonce.** ``serve`` checks first that the engine would admit the
  front end's tag source, recording nothing (a request rejected afterwards leaves the
  engine's record as it was), and ``deliver`` has the engine admit it (``Engine.admit``)
  before the engine receives anything: a second front end presenting a nonce already
  in use is rejected (``NonceInUseError``; ``deliver`` then withdraws its message).
- **No request is left outstanding.** Whatever ``deliver`` ends with (inputs, the miss
  error, any other error), the request is closed: replied to, or withdrawn.
- **The engine's miss error is never replaced.** The miss is replied to with the identities
  the request sent (an engine naming others is noted on the error, ``add_note``), and the
  engine's own error propagates.
"""

from __future__ import annotations

from typing import Protocol

from reference._validate import check_instance
from reference.engine import Engine
from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    MultiModalCacheMissError,
    describe,
)
from reference.frontend import FrontEnd
from reference.messages import Message, ModelInput, Reply, Request
from reference.sender import SenderCache
from reference.variants import Variant

__all__ = ["deliver", "serve"]


class ReplyTarget(Protocol):
    """The front end's half of a request's end (`FrontEnd` and the asyncio front end)."""

    @property
    def variant(self) -> Variant: ...

    @property
    def sender(self) -> SenderCache: ...

    def handle_reply(self, reply: Reply) -> None: ...

    def abandon(self, request_id: int) -> None: ...

    def withdraw(self, message: Message) -> int: ...

    def _check_outstanding(self, message: Message) -> None: ...


_REPLY_TARGET_METHODS = ("handle_reply", "abandon", "withdraw", "_check_outstanding")


def serve(front_end: FrontEnd, engine: Engine, request: Request) -> tuple[ModelInput, ...]:
    """Prepare ``request`` on ``front_end``, resolve it on ``engine``, close it on the front end.

    Checks first, changing nothing: a ``FrontEnd``, an ``Engine``, the same variant on both.
    On a miss, the front end invalidates exactly the missed identities before the miss error
    propagates to the client (recovery, docs/protocol.md); on any other engine error the
    request is withdrawn (see the module docstring) and the error propagates.
    """
    check_instance("front end", front_end, FrontEnd)
    check_pair(front_end.variant, engine)
    engine.check_admission(front_end.sender.tags)  # admitted by deliver, once prepared
    return deliver(front_end, engine, front_end.prepare(request))


def check_pair(variant: Variant, engine: object) -> None:
    """``engine`` is an ``Engine`` running ``variant`` (the front end's), or raise."""
    if not isinstance(engine, Engine):
        raise BadInputTypeError(f"got engine {describe(engine)}, expected an Engine")
    if engine.variant != variant:
        raise BadInputValueError(
            f"got a front end of variant {variant} and an engine of variant {engine.variant}, "
            "expected both sides to run the same variant"
        )


def deliver(front_end: ReplyTarget, engine: Engine, message: Message) -> tuple[ModelInput, ...]:
    """Resolve a prepared ``message`` on ``engine`` and close its request on ``front_end``.

    Success replies with no miss. A miss is replied to (the front end invalidates exactly the
    missed identities it sent) and the engine's miss error re-raised, unchanged but for a
    note if the reply could not be applied as given. Any other error, an unusable engine
    included, withdraws the message and propagates. A front end or message of the wrong type,
    or a message that is not one of the front end's outstanding requests, is rejected before
    anything changes.
    """
    if any(not callable(getattr(front_end, name, None)) for name in _REPLY_TARGET_METHODS) or (
            not isinstance(getattr(front_end, "sender", None), SenderCache)):
        raise BadInputTypeError(
            f"got front end {describe(front_end)}, expected a FrontEnd or an AsyncFrontEnd"
        )
    if type(message) is not Message:
        check_instance("message", message, Message)
    front_end._check_outstanding(message)
    try:
        check_pair(front_end.variant, engine)
        engine.admit(front_end.sender.tags)
        inputs = engine.receive(message)
    except MultiModalCacheMissError as error:
        _reply_to_miss(front_end, message, error)
        raise
    except BaseException as error:
        _withdraw(front_end, message, error)
        raise
    front_end.handle_reply(Reply(message.request_id))
    return inputs


def _withdraw(front_end: ReplyTarget, message: Message, error: BaseException) -> None:
    """Withdraw ``message`` after ``error``, which is never replaced (a failed withdrawal, of
    a message that is not outstanding, is noted on it)."""
    try:
        front_end.withdraw(message)
    except Exception as unknown:
        error.add_note(f"the front end could not withdraw request {message.request_id} "
                       f"({unknown})")


def _reply_to_miss(front_end: ReplyTarget, message: Message,
                   error: MultiModalCacheMissError) -> None:
    """Close the request after the engine's miss, without ever replacing its error: the
    reply names the missed identities the request sent; if the front end still rejects it,
    the message is withdrawn. Either way a note on ``error`` says what was not as expected."""
    sent = {item.identity for item in message.items}
    missed = tuple(identity for identity in error.identities if identity in sent)
    if len(missed) != len(error.identities):
        unsent = [i for i in error.identities if i not in sent]
        error.add_note(f"the engine also reported {len(unsent)} identities request "
                       f"{message.request_id} never sent; the front end invalidated only the "
                       "ones it sent")
    try:
        front_end.handle_reply(Reply(message.request_id, missed))
    except Exception as rejected:  # the request must still be closed, the error kept
        error.add_note(f"the front end rejected the miss reply ({rejected}); "
                       "the message was withdrawn instead")
        _withdraw(front_end, message, error)
