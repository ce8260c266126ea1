"""The client's retry helper (vLLM never retries; the client does, vllm#46747)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from reference._validate import is_async_callable
from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    MissingMediaError,
    MultiModalCacheMissError,
)
from reference.errors import describe as _describe
from reference.messages import Request

__all__ = [
    "MAX_BACKOFF",
    "awaited_result",
    "backoff_delay",
    "next_attempt",
    "retry",
    "validate_backoff",
    "validate_kinds",
    "validate_max_retries",
    "validate_retry",
]

T = TypeVar("T")


def retry(
    send: Callable[[Request], T],
    request: Request,
    *,
    max_retries: int = 3,
    media: Mapping[str, object] | None = None,
    backoff: float = 0.0,
    sleep: Callable[[float], object] = time.sleep,
) -> T:
    """Send ``request``; on ``MultiModalCacheMissError`` resend it, at most ``max_retries`` times.

    Every resend carries the data and is marked as a resend: ``request.with_media(media)``
    (the request's own content, plus ``media[identity]`` for the items ``media`` names,
    UUID-only ones included) with ``resend=True`` (``next_attempt``). Retried:
    the miss error, and a ``MissingMediaError`` (P0 lost a UUID-only item) when ``media``
    holds every identity it names and the attempt did not carry them yet; a resend counts
    against ``max_retries`` either way. Any other error propagates at once. After the last
    retry the last error propagates.

    What a resend promises depends on the variant the server runs. Under V4 (the default)
    a resend reads nothing from P0's shadow: every item travels as a payload, so the first
    resend holds no reference and cannot miss, whatever drifted since the miss (L1-L3 hold
    under every drift source); it needs media for every item (the request's own content or
    ``media``'s), and one without is the ``MissingMediaError`` naming it, not retried again.
    Under V1-V3 the miss that triggers a resend was answered by P0 dropping the missed
    identities before the error reached the client, so the first resend carries their data;
    it succeeds at once when nothing else touches the caches until it is delivered
    (`model_checks.kernel.retries`, for V1-V3 without D5's router and size-changing drift), but
    other requests in between can make it miss again, even with no drift event (L3 breaks
    under a rejected request, docs/questions.md section 5).

    ``backoff``: the k-th resend (k = 1, 2, ...) waits ``backoff * 2 ** (k - 1)`` seconds
    first, through ``sleep``. Default 0: resend at once. A backoff helps where misses can
    recur with no fault of the client's (engines behind a router without the pairing,
    repeated clears, other traffic under V1-V3), so that retries do not hammer the server.
    """
    validate_retry(send, request, max_retries, media)
    validate_backoff(backoff, sleep)
    validate_kinds(send, sleep, awaited=False)
    attempt = request
    for resend in range(max_retries):
        try:
            return _sent(send(attempt))
        except (MultiModalCacheMissError, MissingMediaError) as error:
            attempt = next_attempt(request, attempt, error, media)
        if backoff:
            sleep(backoff_delay(backoff, resend))
    return _sent(send(attempt))


def _sent(result: T) -> T:
    """``send``'s result; an awaitable (a plain callable that returned a coroutine: nothing
    ran yet) is closed and rejected, instead of being returned unawaited."""
    if inspect.isawaitable(result):
        close = getattr(result, "close", None)
        if callable(close):
            close()
        raise BadInputTypeError(
            f"got send returning {_describe(result)}, expected a plain callable "
            "(retry_async resends through a coroutine)"
        )
    return result


def validate_kinds(send: object, sleep: object, *, awaited: bool) -> None:
    """``send`` and ``sleep`` of the right kind before anything is sent: for ``retry``
    (not ``awaited``) plain callables, never an async function. ``retry_async`` takes any
    callable (an async function, or a lambda returning a coroutine), whose result is checked
    when it is called (`awaited_result`)."""
    if awaited:
        return
    for name, function in (("send", send), ("sleep", sleep)):
        if is_async_callable(function):
            raise BadInputTypeError(
                f"got {name} {_describe(function)}, expected a plain callable (use retry_async)"
            )


def awaited_result(name: str, function: object, result: Awaitable[T]) -> Awaitable[T]:
    """``retry_async``'s ``send`` or ``sleep`` result, which must be awaitable (a coroutine);
    anything else is refused in one line (the call itself has run: a plain send belongs to
    ``retry``)."""
    if not inspect.isawaitable(result):
        raise BadInputTypeError(
            f"got {name} {_describe(function)} returning {_describe(result)}, expected an "
            "async function or a callable returning an awaitable (a plain send: use retry)"
        )
    return result


MAX_BACKOFF = 3600.0
"""The longest wait between two resends, in seconds (an hour); ``backoff`` itself is at most
this, and each doubling stops there."""


def backoff_delay(backoff: float, resend: int) -> float:
    """Seconds to wait before resend number ``resend + 1``: ``backoff * 2 ** resend``, at most
    ``MAX_BACKOFF`` (never an overflow, whatever ``resend``)."""
    if resend >= 64:
        return MAX_BACKOFF if backoff else 0.0
    return min(float(backoff) * float(1 << resend), MAX_BACKOFF)


def validate_backoff(backoff: object, sleep: object) -> None:
    """``backoff`` a plain int or float of seconds in [0, ``MAX_BACKOFF``]; ``sleep`` callable."""
    if type(backoff) is not int and type(backoff) is not float:
        raise BadInputTypeError(f"got backoff {_describe(backoff)}, expected seconds (a float)")
    if not 0 <= backoff <= MAX_BACKOFF:  # int comparison: no float conversion to overflow
        raise BadInputValueError(
            f"got backoff {_describe(backoff)}, expected seconds in [0, {MAX_BACKOFF:.0f}]"
        )
    if not callable(sleep):
        raise BadInputTypeError(f"got sleep {_describe(sleep)}, expected a callable")


def validate_retry(send: object, request: object, max_retries: object, media: object) -> None:
    """The arguments of ``retry`` (and ``retry_async``), checked before the first send."""
    if not callable(send):
        raise BadInputTypeError(f"got send {_describe(send)}, expected a callable")
    if type(request) is not Request:
        raise BadInputTypeError(f"got request {_describe(request)}, expected Request")
    validate_max_retries(max_retries)
    if media is not None and not isinstance(media, Mapping):
        raise BadInputTypeError(
            f"got media {_describe(media)}, expected None or a mapping of identities to media"
        )


def validate_max_retries(max_retries: object) -> None:
    if type(max_retries) is not int:
        raise BadInputTypeError(f"got max_retries {_describe(max_retries)}, expected an int")
    if max_retries < 0:
        raise BadInputValueError(f"got max_retries {max_retries}, expected an int >= 0")


def next_attempt(
    request: Request,
    attempt: Request,
    error: MultiModalCacheMissError | MissingMediaError,
    media: Mapping[str, object] | None,
) -> Request:
    """The request to resend after ``error``: ``request`` with ``media`` attached, marked as
    a resend (``Request.resend``); or re-raise ``error`` if resending cannot help (a
    ``MissingMediaError`` that ``media`` does not cover, or that already carried it)."""
    if isinstance(error, MissingMediaError) and (
        attempt is not request or not media or any(i not in media for i in error.identities)
    ):
        raise error
    return Request(request.with_media(media).items, resend=True)
