"""Every error this package raises on purpose, in one small hierarchy.

Callers catch by meaning, and the builtin base says the kind of fault:

- ``CacheError``: the root; ``retryable`` says whether resending the request can help.
- ``BadInputError`` (with ``BadInputTypeError``/``BadInputValueError``): a call was rejected
  because of what it was given. A rejected call changes nothing: every method validates its
  whole input before it mutates anything.
- ``MultiModalCacheMissError`` (also a ``KeyError``): the engine lacked the tensor behind a
  reference. Retryable: the front end drops the listed identities and the client resends.
- ``ClientError``: the request cannot be served as sent and retrying it unchanged cannot help
  (``MissingMediaError``: a UUID-only item that P0 does not hold).
- ``SenderCacheAssertionError``/``ReceiverCacheAssertionError`` (also ``AssertionError``): the
  analogues of the real system's assertions, raised only by the legacy variants (V0-V2).
- ``InvariantViolationError``: ``check_invariants()`` found a corrupted cache.

Messages read "got X, expected Y", and stay small whatever the input: identities are shortened
to 16 characters (``short``), lists to four of them (``short_list``), other values to about 60
characters (``describe``).
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable
from typing import ClassVar

__all__ = [
    "BadInputError",
    "BadInputTypeError",
    "BadInputValueError",
    "CacheError",
    "ClientError",
    "DuplicateIdentityError",
    "InvalidBudgetError",
    "InvalidPayloadError",
    "InvariantViolationError",
    "MissingMediaError",
    "MultiModalCacheMissError",
    "NonceInUseError",
    "ProcessorError",
    "ReceiverCacheAssertionError",
    "SenderCacheAssertionError",
    "UnknownIdentityError",
    "UnknownRequestError",
    "UnsupportedTensorError",
    "describe",
    "short",
    "short_list",
]


_IDENTITY_CHARS = 16
_LISTED_IDENTITIES = 4


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdict = 4


def describe(value: object) -> str:
    """Render a rejected value for a message: its repr (at most about 60 characters, built
    without rendering a long str, int or collection whole) and its type."""
    try:
        text = _REPR.repr(value)
    except Exception:  # a value whose repr fails is still described by its type
        text = "<unprintable>"
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def short(identity: object) -> str:
    """An identity for a message: at most 16 characters of it (a 64-hex-digit mm_hash is
    shown as its first 13 digits and "..."); the error's attributes keep it whole. Only the
    shown characters are copied, whatever the identity's length."""
    text = identity[:_IDENTITY_CHARS + 1] if type(identity) is str else describe(identity)
    if len(text) > _IDENTITY_CHARS:
        text = text[:_IDENTITY_CHARS - 3] + "..."
    return text


def short_list(identities: Iterable[object]) -> str:
    """Identities for a message: the first four, shortened, then how many more."""
    listed = identities if isinstance(identities, (list, tuple)) else list(identities)
    shown = ", ".join(short(i) for i in listed[:_LISTED_IDENTITIES])
    more = len(listed) - _LISTED_IDENTITIES
    return f"{shown} and {more} more" if more > 0 else shown


class CacheError(Exception):
    """Root of this package's errors. ``retryable``: can resending the request help?"""

    retryable: ClassVar[bool] = False


class BadInputError(CacheError):
    """A call was rejected because of its arguments; the callee is exactly unchanged."""


class BadInputTypeError(BadInputError, TypeError):
    """An argument has the wrong type (a key that is not a str, a budget that is a float...)."""


class BadInputValueError(BadInputError, ValueError):
    """An argument has the right type but a wrong value."""


class InvalidBudgetError(BadInputValueError):
    """A byte budget that is not a positive, finite number of bytes."""


class InvalidPayloadError(BadInputTypeError):
    """A payload with a leaf that is not a tensor, or a key that is not a str."""


class UnsupportedTensorError(InvalidPayloadError):
    """A payload tensor the caches cannot bound or serve: without data (meta), or of a layout
    other than dense strided (sparse, nested, quantized, mkldnn)."""


class DuplicateIdentityError(BadInputValueError):
    """A list that names each identity once (a miss reply's, an invalidation's) names one
    twice. A request may name one identity twice: that is no error."""


class UnknownRequestError(BadInputValueError):
    """A reply or an update names a request this front end has no record of."""


class UnknownIdentityError(BadInputValueError):
    """A reply names identities that were never sent in the request it answers."""


class NonceInUseError(BadInputValueError):
    """A front end presented the engine a tag nonce that another front end's source holds:
    their tags could name each other's entries. Rejected before anything changes."""


class MultiModalCacheMissError(CacheError, KeyError):
    """The engine found neither data nor a usable cache entry for some items of a request.

    ``identities`` lists EVERY missed identity of the request, in request order, so that the
    front end can invalidate them all at once and the retry carries all their data
    (vllm#46747): one retry suffices when nothing else touches the caches until it is
    delivered (`model_checks.kernel.retries`), not in general. Items that did not miss were still
    cached. Picklable, as it crosses the process boundary.
    """

    retryable: ClassVar[bool] = True

    def __init__(self, identities: Iterable[str], *, request_id: int | None = None) -> None:
        self.identities: tuple[str, ...] = tuple(identities)
        self.request_id = request_id
        super().__init__(self.identities)

    def __str__(self) -> str:
        where = "" if self.request_id is None else f" in request {self.request_id}"
        return (
            f"the engine has no cached tensor for {len(self.identities)} item(s){where}: "
            f"{short_list(self.identities)}; drop them from the sender cache and resend the data"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_miss, (self.identities, self.request_id))


def _rebuild_miss(identities: tuple[str, ...], request_id: int | None) -> MultiModalCacheMissError:
    return MultiModalCacheMissError(identities, request_id=request_id)


class ProcessorError(CacheError):
    """The processor raised one of this package's retryable errors (a cache miss, missing
    media): not the engine's miss, so not retried; the processor's error is its cause."""


class ClientError(CacheError):
    """The request cannot be served as sent; resending it unchanged cannot help."""


class MissingMediaError(ClientError, ValueError):
    """UUID-only items (no media attached) that P0 does not hold: the client must send media."""

    def __init__(self, identities: Iterable[str]) -> None:
        self.identities: tuple[str, ...] = tuple(identities)
        super().__init__(
            f"got UUID-only item(s) {short_list(self.identities)} that are not cached, "
            "expected the media to be attached"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (MissingMediaError, (self.identities,))


class SenderCacheAssertionError(CacheError, AssertionError):
    """V1/V2 only: an identity hit at probe time was gone from the shadow at update time.

    The analogue of the real sender's ``assert mm_item is not None``: P0 has neither the data
    nor a shadow entry. V3 reprocesses the item instead.
    """

    def __init__(self, identity: str) -> None:
        self.identity = identity
        super().__init__(f"expected a cached item for mm_hash={short(identity)!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return (SenderCacheAssertionError, (self.identity,))


class ReceiverCacheAssertionError(CacheError, AssertionError):
    """V0 only: the legacy receiver asserted on a miss (the engine's input thread died)."""

    def __init__(self, identities: Iterable[str]) -> None:
        self.identities: tuple[str, ...] = tuple(identities)
        super().__init__(f"expected cached items for {short_list(self.identities)}")

    def __reduce__(self) -> tuple[object, ...]:
        return (ReceiverCacheAssertionError, (self.identities,))


class InvariantViolationError(CacheError, AssertionError):
    """``check_invariants()`` found a cache whose internal state is inconsistent."""
