"""Input checks shared by the boundaries. Each raises before anything is mutated."""

from __future__ import annotations

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
    """An identity is a non-empty str (the mm_hash)."""
    if not isinstance(identity, str):
        raise BadInputTypeError(f"got identity {describe(identity)}, expected a str (mm_hash)")
    if not identity:
        raise BadInputValueError("got an empty identity, expected a non-empty str (mm_hash)")
    return identity


def check_identities(identities: Iterable[object]) -> tuple[str, ...]:
    """Every identity valid, and none twice (one request names each item once).

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
    if len(checked) > 1 and len(set(checked)) != len(checked):
        twice = sorted({i for i in checked if checked.count(i) > 1})
        raise DuplicateIdentityError(
            f"got identities {short_list(twice)} more than once in one request, "
            "expected each identity at most once"
        )
    return checked


def as_collection(name: str, values: object) -> tuple[object, ...]:
    """``values`` as a tuple; a str, bytes or a non-iterable is rejected (a str is one value,
    not a collection of its characters)."""
    if isinstance(values, (str, bytes, bytearray)) or not isinstance(values, Iterable):
        raise BadInputTypeError(
            f"got {name} {describe(values)}, expected a collection (tuple, list, set) of them"
        )
    return tuple(values)


def check_instance(name: str, value: object, expected: type) -> None:
    if not isinstance(value, expected):
        raise BadInputTypeError(f"got {name} {describe(value)}, expected {expected.__name__}")


def check_tag(tag: object, tagged: bool, identity: str) -> None:
    """Tagged variants need a 64-bit int tag on every item; untagged ones need None."""
    if not tagged:
        if tag is not None:
            raise BadInputValueError(
                f"got tag {describe(tag)} for {short(identity)!r}, expected None "
                "(untagged variant)"
            )
        return
    if isinstance(tag, bool) or not isinstance(tag, int):
        raise BadInputTypeError(
            f"got tag {describe(tag)} for {short(identity)!r}, expected an int (tagged variant)"
        )
    if not 0 <= tag < 1 << 64:
        raise BadInputValueError(
            f"got tag {tag} for {short(identity)!r}, expected a 64-bit unsigned int"
        )


def check_request_id(request_id: object) -> int:
    """A request id is an int (the front end numbers its requests from 1)."""
    if isinstance(request_id, bool) or not isinstance(request_id, int):
        raise BadInputTypeError(f"got request id {describe(request_id)}, expected an int")
    return request_id
