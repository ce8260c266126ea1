"""What a server configures or watches: placeholders checked against the payload where the
item says which tensor counts its tokens, the client's optional backoff between resends,
and the oversize counter."""

from __future__ import annotations

import asyncio

import pytest
import torch
from ref_helpers import SerialProcessor, snapshot_pair

from reference import (
    BadInputTypeError,
    BadInputValueError,
    Engine,
    FrontEnd,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    Request,
    RequestItem,
    retry,
    serve,
)
from reference.aio import retry_async


def test_placeholders_that_do_not_describe_the_tensor_are_rejected() -> None:
    """Before: a length of 7 over a 3-token tensor was accepted (there was no way to say
    which tensor counts the tokens)."""
    embeds = torch.zeros(3, 4)
    with pytest.raises(BadInputValueError, match="length 7 for 3 tokens in payload"):
        ProcessedItem({"embeds": embeds}, Placeholders(0, 7), token_key="embeds")
    item = ProcessedItem({"embeds": embeds}, Placeholders(5, 3), token_key="embeds")
    assert item.placeholders.length == 3
    unchecked = ProcessedItem({"embeds": embeds}, Placeholders(0, 7))  # nothing to check
    assert unchecked.token_key is None


@pytest.mark.parametrize(
    ("payload", "key", "error"),
    [({"x": torch.zeros(3)}, "missing", BadInputValueError),
     ({"x": torch.tensor(1.0)}, "x", BadInputValueError),
     ({"x": {"y": torch.zeros(3)}}, "x", BadInputValueError),
     ({"x": torch.zeros(3)}, 5, BadInputTypeError)],
    ids=["absent", "0-dim", "a-mapping", "not-a-str"],
)
def test_a_token_key_must_name_a_tensor(payload: dict[str, object], key: object,
                                        error: type) -> None:
    with pytest.raises(error, match="token_key"):
        ProcessedItem(payload, Placeholders(0, 3), token_key=key)  # type: ignore[arg-type]


def test_a_processor_with_wrong_placeholders_changes_nothing() -> None:
    front_end = FrontEnd(1 << 10, lambda c: ProcessedItem(
        {"embeds": torch.zeros(3, 2)}, Placeholders(0, int(c)), token_key="embeds"))  # type: ignore[call-overload]
    engine = Engine(1 << 10)
    serve(front_end, engine, Request((RequestItem("a", 3),)))
    before = snapshot_pair(front_end, engine), front_end.probed()
    with pytest.raises(BadInputValueError, match="length 7 for 3 tokens"):
        serve(front_end, engine, Request((RequestItem("a", 3), RequestItem("b", 7))))
    assert (snapshot_pair(front_end, engine), front_end.probed()) == before


class Misses:
    """A send that misses ``times`` times, then returns the request."""

    def __init__(self, times: int) -> None:
        self.left = times

    def __call__(self, request: Request) -> Request:
        if self.left:
            self.left -= 1
            raise MultiModalCacheMissError(["a"])
        return request


REQUEST = Request((RequestItem("a", 1),))
RESENT = Request(REQUEST.items, resend=True)  # what every resend is: marked


def test_retry_resends_at_once_by_default_and_backs_off_when_asked() -> None:
    """Before: ``retry`` had no backoff. The default stays 0 (resend at once); ``backoff=b``
    waits b, 2b, 4b... before the resends, through ``sleep`` (recorded here, not timed)."""
    waits: list[float] = []
    assert retry(Misses(2), REQUEST, sleep=waits.append) == RESENT
    assert waits == []
    assert retry(Misses(3), REQUEST, backoff=0.5, sleep=waits.append) == RESENT
    assert waits == [0.5, 1.0, 2.0]
    waits.clear()
    with pytest.raises(MultiModalCacheMissError):
        retry(Misses(5), REQUEST, max_retries=2, backoff=1, sleep=waits.append)
    assert waits == [1.0, 2.0]


def test_retry_async_backs_off_through_its_sleep() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def send(request: Request) -> Request:
        return Misses.__call__(misses, request)

    misses = Misses(2)
    assert asyncio.run(retry_async(send, REQUEST, backoff=0.25, sleep=sleep)) == RESENT
    assert waits == [0.25, 0.5]


@pytest.mark.parametrize(("backoff", "error"), [(-1.0, BadInputValueError),
                                                (float("nan"), BadInputValueError),
                                                (float("inf"), BadInputValueError),
                                                (True, BadInputTypeError),
                                                ("1", BadInputTypeError)])
def test_retry_rejects_a_bad_backoff_before_sending(backoff: object, error: type) -> None:
    send = Misses(0)
    with pytest.raises(error, match="got backoff"):
        retry(send, REQUEST, backoff=backoff)  # type: ignore[arg-type]
    with pytest.raises(BadInputTypeError, match="got sleep"):
        retry(send, REQUEST, backoff=1.0, sleep=5)  # type: ignore[arg-type]


def test_the_oversize_counter_counts_every_resend_of_an_item_larger_than_the_budget() -> None:
    """What the counter a server should watch shows: an item larger than the budget is
    sent, used, and never cached, so each request carrying it processes and sends it again
    and both sides count it."""
    processor = SerialProcessor()
    front_end, engine = FrontEnd(32, processor), Engine(32)
    for _ in range(3):
        serve(front_end, engine, Request((RequestItem("big", (1, 64)),)))
    assert front_end.stats().oversize == engine.stats().oversize == 3
    assert len(processor.calls) == 3 and front_end.stats().entries == 0
