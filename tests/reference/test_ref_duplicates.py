"""A request that names one identity twice: the reference serves it as the spec does (the
first item's payload, then a reference that finds it), in every variant; under identity reuse
the first content is served for both, except a V4 resend, which sends each item's own."""

from __future__ import annotations

import asyncio

import pytest
from ref_helpers import ITEM_BYTES, SerialProcessor, consistent, content_of, snapshot_pair

from reference import (
    V0,
    V1,
    V2,
    V3,
    V4,
    BadInputValueError,
    DuplicateIdentityError,
    Engine,
    FrontEnd,
    Message,
    MultiModalCacheMissError,
    Reply,
    Request,
    RequestItem,
    TagSource,
    Variant,
    serve,
)
from reference.aio import AsyncFrontEnd

VARIANTS = [V0, V1, V2, V3, V4]


def pair(variant: Variant, items: int = 4) -> tuple[FrontEnd, Engine, SerialProcessor]:
    processor = SerialProcessor()
    budget = items * ITEM_BYTES
    front_end = FrontEnd(budget, processor, variant=variant, tags=TagSource.for_tests(1))
    return front_end, Engine(budget, variant=variant), processor


def req(*items: tuple[str, int], resend: bool = False) -> Request:
    return Request(tuple(RequestItem(*item) for item in items), resend=resend)


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_the_same_image_twice_is_a_payload_then_a_reference(variant: Variant) -> None:
    front_end, engine, processor = pair(variant)
    message = front_end.prepare(req(("a", 1), ("a", 1)))
    assert [w.is_reference for w in message.items] == [False, True]
    inputs = engine.receive(message)
    front_end.handle_reply(Reply(message.request_id))
    assert [content_of(i) for i in inputs] == [1, 1] and all(map(consistent, inputs))
    again = front_end.prepare(req(("a", 1), ("a", 1)))
    assert [w.is_reference for w in again.items] == [True, True]
    assert [content_of(i) for i in engine.receive(again)] == [1, 1]
    assert len(processor.calls) == 1  # one content object, processed once


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_a_reused_identity_twice_serves_the_first_content(variant: Variant) -> None:
    """Under identity reuse (D7) the second item hits the first one's record: its content
    is not the one sent (S4, D7's limit), its pairing is consistent (S1)."""
    front_end, engine, processor = pair(variant)
    inputs = serve(front_end, engine, req(("a", 1), ("a", 2)))
    assert [content_of(i) for i in inputs] == [1, 1] and all(map(consistent, inputs))
    assert processor.calls == [1, 2]  # both probed as misses, both processed (as vLLM does)


def test_a_v4_resend_sends_each_item_its_own_content() -> None:
    front_end, engine, _ = pair(V4)
    message = front_end.prepare(req(("a", 1), ("a", 2), resend=True))
    assert [w.is_reference for w in message.items] == [False, False]
    inputs = engine.receive(message)
    assert [content_of(i) for i in inputs] == [1, 2] and all(map(consistent, inputs))


@pytest.mark.parametrize("variant", [V3, V4], ids=str)
def test_references_first_keeps_a_reference_after_its_own_payload(variant: Variant) -> None:
    """b is held, a is new: P0 sends a's payload, b's reference, a's reference; P1 resolves
    b first, then a's payload, then a's reference, which finds it."""
    front_end, engine, _ = pair(variant)
    serve(front_end, engine, req(("b", 7)))
    message = front_end.prepare(req(("a", 1), ("b", 7), ("a", 1)))
    assert [w.is_reference for w in message.items] == [False, True, True]
    inputs = engine.receive(message)
    assert [content_of(i) for i in inputs] == [1, 7, 1] and all(map(consistent, inputs))


def test_a_miss_on_an_identity_named_twice_lists_it_once() -> None:
    front_end, engine, _ = pair(V3)
    serve(front_end, engine, req(("a", 1)))
    engine.clear()
    message = front_end.prepare(req(("a", 1), ("a", 1)))
    with pytest.raises(MultiModalCacheMissError) as raised:
        engine.receive(message)
    assert raised.value.identities == ("a",)
    front_end.handle_reply(Reply(message.request_id, raised.value.identities))
    inputs = serve(front_end, engine, req(("a", 1), ("a", 1), resend=True))
    assert [content_of(i) for i in inputs] == [1, 1]


def test_a_reply_still_names_each_identity_once() -> None:
    front_end, engine, _ = pair(V3)
    message = front_end.prepare(req(("a", 1), ("a", 1)))
    before = snapshot_pair(front_end, engine)
    with pytest.raises(DuplicateIdentityError, match="more than once"):
        front_end.handle_reply(Reply(message.request_id, ("a", "a")))
    assert snapshot_pair(front_end, engine) == before


def test_record_probed_refuses_repeats_that_do_not_match_the_request() -> None:
    front_end, engine, processor = pair(V3)
    request = req(("a", 1), ("a", 2))
    before = snapshot_pair(front_end, engine)
    with pytest.raises(BadInputValueError, match=r"repeated items at \[\], expected them at \[1\]"):
        front_end.record_probed(request, frozenset(), {"a": processor(1)})
    assert snapshot_pair(front_end, engine) == before and front_end.probed() == ()


def test_the_async_front_end_processes_each_content_once() -> None:
    async def main() -> tuple[Message, list[int]]:
        processor = SerialProcessor()
        front_end = AsyncFrontEnd(4 * ITEM_BYTES, processor, variant=V4,
                                  tags=TagSource.for_tests(1))
        engine = Engine(4 * ITEM_BYTES, variant=V4)
        message = await front_end.prepare(req(("a", 1), ("a", 2), resend=True))
        inputs = engine.receive(message)
        return message, [content_of(i) for i in inputs]

    message, contents = asyncio.run(main())
    assert [w.is_reference for w in message.items] == [False, False]
    assert contents == [1, 2]
