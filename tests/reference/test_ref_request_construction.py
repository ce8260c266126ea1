"""`Request` and `RequestItem` check their fields when built, with the error `serve()` gives
for the same fields (forced past construction): a list of items, an int identity, a bad
resend mark are refused at once, in one line, naming what was expected."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from ref_helpers import SerialProcessor, forced_item, forced_request

from reference import (
    BadInputError,
    Engine,
    FrontEnd,
    Request,
    RequestItem,
    serve,
)

BAD: dict[str, tuple[Callable[[], object], Callable[[], Request]]] = {
    "a list of items": (lambda: Request([RequestItem("a", 1)]),  # type: ignore[arg-type]
                        lambda: forced_request([RequestItem("a", 1)])),
    "a tuple of pairs": (lambda: Request((("a", 1),)),  # type: ignore[arg-type]
                         lambda: forced_request((("a", 1),))),
    "an int identity": (lambda: RequestItem(7, 1),  # type: ignore[arg-type]
                        lambda: forced_request((forced_item(7, 1),))),
    "an empty identity": (lambda: RequestItem("", 1),
                          lambda: forced_request((forced_item("", 1),))),
    "a list identity": (lambda: RequestItem(["a"], 1),  # type: ignore[arg-type]
                        lambda: forced_request((forced_item(["a"], 1),))),
    "an int resend mark": (lambda: Request((RequestItem("a", 1),), resend=1),  # type: ignore[arg-type]
                           lambda: forced_request((RequestItem("a", 1),), resend=1)),
}


def _error(build: Callable[[], object]) -> BadInputError:
    with pytest.raises(BadInputError) as caught:
        build()
    return caught.value


@pytest.mark.parametrize("case", sorted(BAD))
def test_construction_refuses_what_serve_refuses_with_the_same_error(case: str) -> None:
    construct, forced = BAD[case]
    at_construction = _error(construct)
    at_serve = _error(lambda: serve(FrontEnd(64, SerialProcessor()), Engine(64), forced()))
    assert type(at_construction) is type(at_serve)
    assert str(at_construction) == str(at_serve)
    assert "\n" not in str(at_construction) and str(at_construction).startswith("got ")


def test_good_requests_are_built_as_before() -> None:
    request = Request((RequestItem("a", 1), RequestItem("b")), resend=True)
    assert request.identities == ("a", "b") and request.items[1].uuid_only
    assert Request(()).items == ()
