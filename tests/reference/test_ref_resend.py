"""V4, the default: a resend (``Request.resend``, set by the retry helpers) reads nothing from
P0's shadow. Every item is processed, recorded afresh and sent as a payload, in request
order; under V0-V3 the mark changes nothing; a bad mark is rejected, changing nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from ref_helpers import ITEM_BYTES, SerialProcessor, forced_request, snapshot, snapshot_pair

from reference import (
    DEFAULT_VARIANT,
    V3,
    V4,
    BadInputTypeError,
    BadInputValueError,
    Engine,
    FrontEnd,
    MissingMediaError,
    MultiModalCacheMissError,
    Outgoing,
    Request,
    RequestItem,
    SenderCache,
    TagSource,
    Variant,
    retry,
    serve,
)
from reference.aio import AsyncFrontEnd, InlineExecutor, retry_async, serve_async

BUDGET = 8 * ITEM_BYTES
AB = (RequestItem("a", 1), RequestItem("b", 2))


def _served_pair(variant: Variant) -> tuple[FrontEnd, Engine, SerialProcessor]:
    """A front end and an engine that both hold "a" and "b" (served once)."""
    processor = SerialProcessor()
    front_end = FrontEnd(BUDGET, processor, variant=variant, tags=TagSource.for_tests(1))
    engine = Engine(BUDGET, variant=variant)
    serve(front_end, engine, Request(AB))
    return front_end, engine, processor


def test_the_default_variant_is_v4() -> None:
    assert DEFAULT_VARIANT is V4
    assert FrontEnd(BUDGET, SerialProcessor()).variant is V4
    assert Engine(BUDGET).variant is V4
    assert AsyncFrontEnd(BUDGET, SerialProcessor()).variant is V4
    assert SenderCache(BUDGET).variant is V4


def test_a_v4_resend_sends_every_item_as_a_payload_whatever_the_shadow_holds() -> None:
    front_end, engine, processor = _served_pair(V4)
    before = dict(front_end.sender.items())
    calls = len(processor.calls)
    message = front_end.prepare(Request(AB, resend=True))
    assert [item.identity for item in message.items] == ["a", "b"]  # request order
    assert all(not item.is_reference for item in message.items)
    assert len(processor.calls) == calls + 2  # every item processed again
    after = dict(front_end.sender.items())
    assert [after[i].tag for i in "ab"] == [item.tag for item in message.items]
    assert all(after[i].tag != before[i].tag for i in "ab")  # recorded afresh
    served = engine.receive(message)
    assert [s.placeholders for s in served] == [item.placeholders for item in message.items]


def test_a_v4_resend_records_afresh_what_was_recorded_after_its_probe() -> None:
    """An identity another request records between the resend's probe and update is still
    sent as a payload (the update reads nothing from the shadow either)."""
    front_end, _, _ = _served_pair(V4)
    front_end.clear()
    probed = front_end.probe(Request(AB, resend=True))
    other = front_end.prepare(Request((RequestItem("a", 1),)))
    message = front_end.update(probed)
    assert not other.items[0].is_reference
    assert all(not item.is_reference for item in message.items)
    assert message.items[0].tag != other.items[0].tag


def test_a_v3_resend_still_sends_references() -> None:
    front_end, _, processor = _served_pair(V3)
    calls = len(processor.calls)
    message = front_end.prepare(Request(AB, resend=True))
    assert all(item.is_reference for item in message.items)
    assert len(processor.calls) == calls


def test_the_asyncio_front_end_sends_a_v4_resend_as_payloads() -> None:
    front_end = AsyncFrontEnd(BUDGET, SerialProcessor(), executor=InlineExecutor())
    engine = Engine(BUDGET)

    async def main() -> list[bool]:
        await serve_async(front_end, engine, Request(AB))
        message = await front_end.prepare(Request(AB, resend=True))
        return [item.is_reference for item in message.items]

    assert asyncio.run(main()) == [False, False]


def test_the_sender_cache_records_a_v4_resend_afresh_on_its_public_path() -> None:
    sender = SenderCache(BUDGET, tags=TagSource.for_tests(2))
    processor = SerialProcessor()
    sender.update((Outgoing("a", processor(1), 1),))
    resent = sender.update((Outgoing("a", processor(1), 1),), resend=True)
    assert not resent[0].is_reference and dict(sender.items())["a"].tag == resent[0].tag
    assert sender.update((Outgoing("a", processor(1), 1),))[0].is_reference  # not a resend


def _drifting_send(front_end: FrontEnd, engine: Engine, attempts: list[Request]
                   ) -> Callable[[Request], object]:
    """Every attempt meets drift first: before the resend another request records "b"
    again on both sides, and P1 loses everything before every attempt (D3)."""
    def send(request: Request) -> object:
        attempts.append(request)
        if request.resend:
            serve(front_end, engine, Request((RequestItem("b", 2),)))
        engine.clear()
        return serve(front_end, engine, request)
    return send


def test_retry_marks_every_resend_and_under_v4_the_first_resend_cannot_miss() -> None:
    front_end, engine, _ = _served_pair(V4)
    attempts: list[Request] = []
    inputs = retry(_drifting_send(front_end, engine, attempts), Request(AB), max_retries=1)
    assert [a.resend for a in attempts] == [False, True]
    assert len(inputs) == 2  # type: ignore[arg-type]


def test_under_v3_the_same_resend_misses_again() -> None:
    """The resend's reference to "b" (recorded again meanwhile) meets P1's clear."""
    front_end, engine, _ = _served_pair(V3)
    attempts: list[Request] = []
    with pytest.raises(MultiModalCacheMissError) as error:
        retry(_drifting_send(front_end, engine, attempts), Request(AB), max_retries=1)
    assert [a.resend for a in attempts] == [False, True]
    assert error.value.identities == ("b",)


def test_retry_async_marks_every_resend() -> None:
    front_end = AsyncFrontEnd(BUDGET, SerialProcessor(), executor=InlineExecutor())
    engine = Engine(BUDGET)
    attempts: list[Request] = []

    async def send(request: Request) -> object:
        attempts.append(request)
        engine.clear()
        return await serve_async(front_end, engine, request)

    async def main() -> None:
        await serve_async(front_end, engine, Request(AB))
        await retry_async(send, Request(AB), max_retries=1)

    asyncio.run(main())
    assert [a.resend for a in attempts] == [False, True]


def test_a_v4_resend_without_media_for_an_item_is_the_client_error() -> None:
    front_end, engine, processor = _served_pair(V4)
    before = snapshot_pair(front_end, engine)
    calls = len(processor.calls)
    with pytest.raises(MissingMediaError) as error:
        front_end.prepare(Request((RequestItem("a"), RequestItem("b", 2)), resend=True))
    assert error.value.identities == ("a",)
    assert snapshot_pair(front_end, engine) == before and len(processor.calls) == calls
    assert front_end.probed() == ()


@pytest.mark.parametrize("mark", [1, 0, None, "True"])
def test_a_bad_resend_mark_is_rejected_and_changes_nothing(mark: object) -> None:
    front_end, engine, _ = _served_pair(V4)
    afe = AsyncFrontEnd(BUDGET, SerialProcessor(), executor=InlineExecutor())
    with pytest.raises(BadInputTypeError, match="expected a bool"):
        Request(AB, resend=mark)  # type: ignore[arg-type]  # refused at construction
    request = forced_request(AB, resend=mark)  # and at every boundary, when forced
    before = (snapshot_pair(front_end, engine), front_end.probed(), snapshot(afe.sender))
    calls = [
        lambda: front_end.probe(request),
        lambda: front_end.probe_shadow(request),
        lambda: front_end.prepare(request),
        lambda: front_end.record_probed(request, frozenset(), {}),
        lambda: serve(front_end, engine, request),
        lambda: asyncio.run(afe.probe(request)),
        lambda: front_end.sender.update(  # the sender's own mark
            (Outgoing("a", None, 1),), resend=mark),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(BadInputTypeError, match=r"got resend .*expected a bool") as error:
            call()
        assert len(str(error.value)) <= 600
        assert (snapshot_pair(front_end, engine), front_end.probed(),
                snapshot(afe.sender)) == before


def test_a_v4_resend_that_claims_hits_or_lacks_a_processed_item_is_rejected() -> None:
    front_end, engine, processor = _served_pair(V4)
    before = (snapshot_pair(front_end, engine), front_end.probed())
    request = Request(AB, resend=True)
    with pytest.raises(BadInputValueError, match="for a resend, expected none"):
        front_end.record_probed(request, frozenset({"a"}), {"b": processor(2)})
    with pytest.raises(BadInputValueError, match="expected every item of a resend processed"):
        front_end.sender.update((Outgoing("a", None, 1), Outgoing("b", processor(2), 2)),
                                resend=True)
    assert (snapshot_pair(front_end, engine), front_end.probed()) == before
