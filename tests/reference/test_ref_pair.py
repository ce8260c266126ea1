"""Failure atomicity across the pair: no path through ``serve``/``deliver`` (and their asyncio
twins) leaves P0 recording an item P1 never received, leaves a request outstanding, or
replaces the engine's miss error. One test per site; each names the defect it guards against.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import torch
from ref_helpers import ITEM_BYTES, SerialProcessor, snapshot_pair

from reference import (
    V1,
    V2,
    V3,
    BadInputError,
    BadInputTypeError,
    BadInputValueError,
    Engine,
    FrontEnd,
    Message,
    ModelInput,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    Request,
    RequestItem,
    TagSource,
    UnknownRequestError,
    Variant,
    serve,
)
from reference.aio import AsyncFrontEnd, InlineExecutor, serve_async
from reference.pipeline import deliver


def records(front_end: FrontEnd) -> tuple[object, ...]:
    return front_end.probed(), front_end.outstanding()


def pair(front: Variant = V3, back: Variant = V3) -> tuple[FrontEnd, Engine]:
    front_end = FrontEnd(8 * ITEM_BYTES, SerialProcessor(), variant=front,
                         tags=TagSource.for_tests(1))
    return front_end, Engine(8 * ITEM_BYTES, variant=back)


def warm(front_end: FrontEnd, engine: Engine) -> None:
    serve(front_end, engine, Request((RequestItem("a", 1),)))


REQUEST = Request((RequestItem("a", 1), RequestItem("b", 2)))


@pytest.mark.parametrize(("front", "back"), [(V3, V2), (V2, V3), (V3, V1), (V1, V2)], ids=str)
def test_serve_with_mismatched_variants_changes_nothing(front: Variant, back: Variant) -> None:
    """Before: the engine rejected the message (a tag where none was expected, or none
    where one was) after P0 had recorded "b", which P1 never got."""
    front_end, _ = pair(front, front)
    engine = Engine(8 * ITEM_BYTES, variant=back)
    warm(front_end, Engine(8 * ITEM_BYTES, variant=front))
    before = snapshot_pair(front_end, engine), records(front_end)
    with pytest.raises(BadInputError) as caught:
        serve(front_end, engine, REQUEST)
    assert (snapshot_pair(front_end, engine), records(front_end)) == before
    assert isinstance(caught.value, BadInputValueError)
    assert "expected both sides to run the same variant" in str(caught.value)


@pytest.mark.parametrize("engine", [None, "engine", FrontEnd(64, SerialProcessor())],
                         ids=["None", "str", "front-end"])
def test_serve_without_an_engine_changes_nothing(engine: object) -> None:
    """Before: ``serve(fe, None, request)`` raised a raw AttributeError after P0 recorded
    the request's items."""
    front_end, real = pair()
    warm(front_end, real)
    before = snapshot_pair(front_end, real), records(front_end)
    with pytest.raises(BadInputTypeError, match="expected an Engine"):
        serve(front_end, engine, REQUEST)  # type: ignore[arg-type]
    assert (snapshot_pair(front_end, real), records(front_end)) == before
    with pytest.raises(BadInputTypeError, match="expected FrontEnd"):
        serve("front end", real, REQUEST)  # type: ignore[arg-type]


def test_deliver_to_an_unusable_engine_withdraws_the_message() -> None:
    """``deliver`` gets a message P0 already recorded: an engine of another variant (or no
    engine) never receives it, so P0 drops what it recorded and closes the request."""
    front_end, engine = pair()
    warm(front_end, engine)
    shadow_before = front_end.sender.entries()
    for bad in (Engine(8 * ITEM_BYTES, variant=V2), None):
        message = front_end.prepare(REQUEST)
        assert [w.is_reference for w in message.items] == [True, False]
        with pytest.raises(BadInputError):
            deliver(front_end, bad, message)  # type: ignore[arg-type]
        assert records(front_end) == ((), ())
        assert [k for k, _ in front_end.sender.entries()] == [k for k, _ in shadow_before]
    served = serve(front_end, engine, REQUEST)  # "b" is sent again, as a payload
    assert [m.identity for m in served] == ["a", "b"]


class RejectingEngine(Engine):
    """An engine that rejects every message as bad input (changing nothing, as documented)."""

    def receive(self, message: Message) -> tuple[ModelInput, ...]:
        raise BadInputValueError("got a message this engine refuses, expected another")


@pytest.mark.parametrize("variant", [V1, V2, V3], ids=str)
def test_an_engine_rejection_leaves_no_record_p1_never_received(variant: Variant) -> None:
    front_end = FrontEnd(8 * ITEM_BYTES, SerialProcessor(), variant=variant,
                         tags=TagSource.for_tests(1))
    engine = Engine(8 * ITEM_BYTES, variant=variant)
    warm(front_end, engine)
    rejecting = RejectingEngine(8 * ITEM_BYTES, variant=variant)
    with pytest.raises(BadInputValueError, match="refuses"):
        serve(front_end, rejecting, REQUEST)
    assert "b" not in front_end.sender and records(front_end) == ((), ())
    assert "a" in front_end.sender  # a reference: P0 still trusts P1's own copy


def test_withdraw_keeps_an_entry_a_later_request_recorded() -> None:
    """V3: an entry re-recorded by a later request (another tag) is not the withdrawn
    message's, and stays."""
    front_end, engine = pair()
    message = front_end.prepare(Request((RequestItem("a", 1),)))
    front_end.sender.invalidate(["a"])
    deliver(front_end, engine, front_end.prepare(Request((RequestItem("a", 1),))))
    entry = front_end.sender.items()[0][1]
    assert front_end.withdraw(message) == 0
    assert front_end.sender.items()[0][1] is entry and front_end.outstanding() == ()


def test_withdraw_rejects_what_it_did_not_send_and_changes_nothing() -> None:
    front_end, engine = pair()
    message = front_end.prepare(REQUEST)
    forged = Message(message.request_id, message.items[:1])
    before = snapshot_pair(front_end, engine), records(front_end)
    with pytest.raises(BadInputValueError, match="not the ones this front end sent"):
        front_end.withdraw(forged)
    with pytest.raises(UnknownRequestError):
        front_end.withdraw(Message(999, message.items))
    with pytest.raises(BadInputTypeError):
        front_end.withdraw("message")  # type: ignore[arg-type]
    assert (snapshot_pair(front_end, engine), records(front_end)) == before


def mutating_processor() -> tuple[Callable[[object], ProcessedItem], list[dict[str, object]]]:
    """A processor that keeps the payload mappings it returns, so a test can change them."""
    kept: list[dict[str, object]] = []

    def process(content: object) -> ProcessedItem:
        payload: dict[str, object] = {"x": torch.full((2,), float(content)),  # type: ignore[arg-type]
                                      "nested": {"y": torch.zeros(1)}}
        kept.append(payload)
        return ProcessedItem(payload, Placeholders(0, 2))  # type: ignore[arg-type]

    return process, kept


def test_a_payload_mapping_changed_between_probe_and_update_changes_nothing_sent() -> None:
    """Before: ``ProcessedItem`` kept the caller's mapping; a non-tensor leaf added after the
    probe made P1 reject the message with ``InvalidPayloadError`` while P0 kept the item."""
    process, kept = mutating_processor()
    front_end = FrontEnd(1 << 10, process, tags=TagSource.for_tests(1))
    engine = Engine(1 << 10)
    probed = front_end.probe(Request((RequestItem("a", 3),)))
    kept[0]["bad"] = "not a tensor"
    kept[0]["nested"]["z"] = 5  # type: ignore[index]
    kept[0]["x"] = torch.zeros(100)
    [model_input] = deliver(front_end, engine, front_end.update(probed))
    assert sorted(model_input.payload) == ["nested", "x"]
    assert sorted(model_input.payload["nested"]) == ["y"]  # type: ignore[arg-type]
    assert front_end.sender.entries() == engine.receiver.entries() == [("a", 12)]


class StrayMissEngine(Engine):
    """An engine that answers every message with a miss naming an identity the request never
    sent, plus the first one it did."""

    def receive(self, message: Message) -> tuple[ModelInput, ...]:
        raise MultiModalCacheMissError(["never-sent", message.items[0].identity],
                                       request_id=message.request_id)


def test_a_stray_miss_keeps_the_engines_error_and_closes_the_request() -> None:
    """Before: the front end rejected the reply (``UnknownIdentityError``), which replaced
    the engine's miss error, and the request stayed outstanding for ever."""
    front_end, _ = pair()
    engine = StrayMissEngine(8 * ITEM_BYTES, variant=V3)
    warm(front_end, Engine(8 * ITEM_BYTES, variant=V3))
    with pytest.raises(MultiModalCacheMissError) as caught:
        serve(front_end, engine, REQUEST)
    assert caught.value.identities == ("never-sent", "a")
    assert any("never sent" in note for note in caught.value.__notes__)
    assert records(front_end) == ((), ())
    assert "a" not in front_end.sender  # the identity it did send is invalidated


class ClosingEngine(Engine):
    """An engine during whose work the request is closed by someone else (an abort)."""

    front_end: FrontEnd

    def receive(self, message: Message) -> tuple[ModelInput, ...]:
        self.front_end.abandon(message.request_id)
        return super().receive(message)


def test_a_miss_for_a_request_already_closed_keeps_the_engines_error() -> None:
    front_end, _ = pair()
    engine = ClosingEngine(8 * ITEM_BYTES, variant=V3)
    engine.front_end = front_end
    warm(front_end, Engine(8 * ITEM_BYTES, variant=V3))
    with pytest.raises(MultiModalCacheMissError) as caught:
        serve(front_end, engine, Request((RequestItem("a", 1),)))
    assert any("rejected the miss reply" in note for note in caught.value.__notes__)
    assert records(front_end) == ((), ())
    with pytest.raises(UnknownRequestError):  # a message no longer outstanding: rejected
        deliver(front_end, engine, front_end.prepare(Request((RequestItem("a", 1),)))
                ._replace(request_id=999))


def test_serve_async_checks_the_pair_before_any_change() -> None:
    front_end = AsyncFrontEnd(8 * ITEM_BYTES, SerialProcessor(), executor=InlineExecutor())
    engine = Engine(8 * ITEM_BYTES, variant=V2)

    async def run() -> None:
        with pytest.raises(BadInputValueError, match="same variant"):
            await serve_async(front_end, engine, REQUEST)
        with pytest.raises(BadInputTypeError, match="expected an Engine"):
            await serve_async(front_end, None, REQUEST)  # type: ignore[arg-type]

    asyncio.run(run())
    assert front_end.sender.entries() == [] and front_end.outstanding() == ()
    assert front_end.probed() == ()
