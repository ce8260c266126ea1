"""Input checks shared by the boundaries. Each raises before anything is mutated."""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Iterable

from reference.errors import (
    BadInputTypeError,
    BadInputValueError,
    DuplicateIdentityError,
    describe,
    short,
    short_list,
)


def check_identity(identity: object) -> str:
    """An identity is a non-empty str (the mm_hash), a plain one: a subclass could hash or
    compare differently on each side of the pair."""
    if type(identity) is not str:
        raise BadInputTypeError(
            f"got identity {describe(identity)}, expected a str (mm_hash), not a subclass"
        )
    if not identity:
        raise BadInputValueError("got an empty identity, expected a non-empty str (mm_hash)")
    return identity


def check_identities(identities: Iterable[object], *, distinct: bool = True
                     ) -> tuple[str, ...]:
    """Every identity valid, and (``distinct``) none twice.

    A request may name one identity twice (the same image twice in one prompt, two equal
    images): its items are checked with ``distinct=False``. A miss reply and an invalidation
    list each identity once (``DuplicateIdentityError`` otherwise).

    ``identities`` is a collection of identities: a tuple, a list, a set, any iterable but
    a str or bytes (a bare ``"img"`` is one identity, not the three ``i``, ``m``, ``g``).
    """
    kind = type(identities)
    if kind is tuple or kind is list:
        checked: tuple[str, ...] = tuple(identities)  # type: ignore[arg-type]  # checked below
    else:
        checked = as_collection("identities", identities)  # type: ignore[assignment]
    for identity in checked:
        if type(identity) is not str or not identity:  # the common case costs one test
            check_identity(identity)
    if distinct and len(checked) > 1 and len(set(checked)) != len(checked):
        counts = Counter(checked)  # linear: one request may name thousands of identities
        twice = sorted(identity for identity, count in counts.items() if count > 1)
        raise DuplicateIdentityError(
            f"got identities {short_list(twice)} more than once in one list, "
            "expected each identity at most once"
        )
    return checked


def as_collection(name: str, values: object) -> tuple[object, ...]:
    """``values`` as a tuple; a str, bytes or a non-iterable is rejected (a str is one value,
    not a collection of its characters)."""
    expected = "expected a collection (tuple, list, set) of them"
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, Iterable):
        raise BadInputTypeError(f"got {name} {describe(values)}, {expected}")
    try:
        return tuple(values)
    except Exception as error:  # an iterable whose iteration raises: user code, rejected
        raise BadInputTypeError(
            f"got {name} {describe(values)} whose iteration raised {type(error).__name__}, "
            f"{expected}"
        ) from None


def check_instance(name: str, value: object, expected: type) -> None:
    if not isinstance(value, expected):
        raise BadInputTypeError(f"got {name} {describe(value)}, expected {expected.__name__}")


def check_exact(name: str, value: object, expected: type) -> None:
    """``value`` of exactly the type ``expected`` (a subclass could change what the checks
    read between the check and the use)."""
    if type(value) is not expected:
        raise BadInputTypeError(
            f"got {name} {describe(value)}, expected {expected.__name__} (not a subclass)"
        )


def check_tag(tag: object, tagged: bool, identity: str) -> None:
    """Tagged variants need a 64-bit int tag on every item; untagged ones need None."""
    if not tagged:
        if tag is not None:
            raise BadInputValueError(
                f"got tag {describe(tag)} for {short(identity)!r}, expected None "
                "(untagged variant)"
            )
        return
    if type(tag) is not int:
        raise BadInputTypeError(
            f"got tag {describe(tag)} for {short(identity)!r}, expected an int (tagged variant)"
        )
    if not 0 <= tag < 1 << 64:
        raise BadInputValueError(
            f"got tag {describe(tag)} for {short(identity)!r}, expected a 64-bit unsigned int"
        )


REQUEST_ID_LIMIT = 1 << 64


def check_request_id(request_id: object) -> int:
    """A request id is a plain int in [0, 2**64) (the front end numbers its requests from 1)."""
    if type(request_id) is not int:
        raise BadInputTypeError(f"got request id {describe(request_id)}, expected an int")
    if not 0 <= request_id < REQUEST_ID_LIMIT:
        raise BadInputValueError(
            f"got request id {describe(request_id)}, expected an int in [0, 2**64)"
        )
    return request_id


def is_async_callable(function: object) -> bool:
    """True if calling ``function`` returns a coroutine to await: an ``async def`` function
    or method, a ``functools.partial`` of one, or an object whose ``__call__`` is one."""
    call = getattr(type(function), "__call__", None)  # noqa: B004  # the class's, not callable()
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call)
