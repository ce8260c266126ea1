"""The client's retry helper (vLLM never retries; the client does, vllm#46747)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import TypeVar

from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    MissingMediaError,
    MultiModalCacheMissError,
)
from reference.errors import describe as _describe
from reference.messages import Request

__all__ = [
    "backoff_delay",
    "next_attempt",
    "retry",
    "validate_backoff",
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

    Every resend carries the data: ``request.with_media(media)`` (the request's own content,
    plus ``media[identity]`` for the items ``media`` names, UUID-only ones included). Retried:
    the miss error, and a ``MissingMediaError`` (P0 lost a UUID-only item) when ``media``
    holds every identity it names and the attempt did not carry them yet; a resend counts
    against ``max_retries`` either way. Any other error propagates at once. After the last
    retry the last error propagates.

    ``backoff``: the k-th resend (k = 1, 2, ...) waits ``backoff * 2 ** (k - 1)`` seconds
    first, through ``sleep``. Default 0: resend at once. The miss that triggers a resend was
    answered by P0 dropping the missed identities before the error reached the client, so
    the first resend carries their data and is expected to succeed at once (L3); a backoff
    helps where misses can recur with no fault of the client's (engines behind a router
    without the pairing, repeated clears), so that retries do not hammer the server.
    """
    validate_retry(send, request, max_retries, media)
    validate_backoff(backoff, sleep)
    attempt = request
    for resend in range(max_retries):
        try:
            return send(attempt)
        except (MultiModalCacheMissError, MissingMediaError) as error:
            attempt = next_attempt(request, attempt, error, media)
        if backoff:
            sleep(backoff_delay(backoff, resend))
    return send(attempt)


def backoff_delay(backoff: float, resend: int) -> float:
    """Seconds to wait before resend number ``resend + 1``: ``backoff * 2 ** resend``."""
    return float(backoff * 2 ** resend)


def validate_backoff(backoff: object, sleep: object) -> None:
    if isinstance(backoff, bool) or not isinstance(backoff, (int, float)):
        raise BadInputTypeError(f"got backoff {_describe(backoff)}, expected seconds (a float)")
    if not math.isfinite(backoff) or backoff < 0:
        raise BadInputValueError(f"got backoff {backoff!r}, expected finite seconds >= 0")
    if not callable(sleep):
        raise BadInputTypeError(f"got sleep {_describe(sleep)}, expected a callable")


def validate_retry(send: object, request: object, max_retries: object, media: object) -> None:
    """The arguments of ``retry`` (and ``retry_async``), checked before the first send."""
    if not callable(send):
        raise BadInputTypeError(f"got send {_describe(send)}, expected a callable")
    if not isinstance(request, Request):
        raise BadInputTypeError(f"got request {_describe(request)}, expected Request")
    validate_max_retries(max_retries)
    if media is not None and not isinstance(media, Mapping):
        raise BadInputTypeError(
            f"got media {_describe(media)}, expected None or a mapping of identities to media"
        )


def validate_max_retries(max_retries: object) -> None:
    if isinstance(max_retries, bool) or not isinstance(max_retries, int):
        raise BadInputTypeError(f"got max_retries {_describe(max_retries)}, expected an int")
    if max_retries < 0:
        raise BadInputValueError(f"got max_retries {max_retries}, expected an int >= 0")


def next_attempt(
    request: Request,
    attempt: Request,
    error: MultiModalCacheMissError | MissingMediaError,
    media: Mapping[str, object] | None,
) -> Request:
    """The request to resend after ``error``, or re-raise ``error`` if resending cannot help
    (a ``MissingMediaError`` that ``media`` does not cover, or that already carried it)."""
    if isinstance(error, MissingMediaError) and (
        attempt is not request or not media or any(i not in media for i in error.identities)
    ):
        raise error
    return request.with_media(media)
