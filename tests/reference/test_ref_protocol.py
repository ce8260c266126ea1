"""Front end, engine, serve and retry: the request-level protocol (docs/protocol.md)."""

from __future__ import annotations

import doctest

import pytest
from ref_helpers import (
    ITEM_BYTES,
    SerialProcessor,
    consistent,
    content_of,
    forced_item,
    forced_request,
    snapshot_pair,
)

import reference
from reference import (
    V1,
    V2,
    V3,
    BadInputTypeError,
    BadInputValueError,
    DuplicateIdentityError,
    Engine,
    FrontEnd,
    Message,
    MissingMediaError,
    MultiModalCacheMissError,
    ReceiverCacheAssertionError,
    Reply,
    Request,
    RequestItem,
    TagSource,
    UnknownIdentityError,
    UnknownRequestError,
    Variant,
    retry,
    serve,
)
from reference.variants import V0

VARIANTS = [V1, V2, V3]


def pair(variant: Variant = V3, items: int = 4) -> tuple[FrontEnd, Engine, SerialProcessor]:
    processor = SerialProcessor()
    budget = items * ITEM_BYTES
    front_end = FrontEnd(budget, processor, variant=variant, tags=TagSource.for_tests(1))
    return front_end, Engine(budget, variant=variant), processor


def req(*items: tuple[str, int | None] | str) -> Request:
    """Request from ("id", content) pairs; a bare "id" is UUID-only."""
    return Request(tuple(
        RequestItem(item) if isinstance(item, str) else RequestItem(*item) for item in items
    ))


def test_readme_example_runs() -> None:
    result = doctest.testmod(reference, raise_on_error=False, verbose=False)
    assert result.attempted > 5 and result.failed == 0


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_first_request_sends_payloads_second_sends_references(variant: Variant) -> None:
    front_end, engine, processor = pair(variant)
    request = req(("a", 1), ("b", 2))
    first = front_end.prepare(request)
    assert [w.is_reference for w in first.items] == [False, False]
    inputs = engine.receive(first)
    front_end.handle_reply(Reply(first.request_id))
    second = front_end.prepare(request)
    assert [w.is_reference for w in second.items] == [True, True]
    again = engine.receive(second)
    assert [i.identity for i in again] == ["a", "b"] and all(map(consistent, again))
    assert [content_of(i) for i in again] == [content_of(i) for i in inputs] == [1, 2]
    assert processor.calls == [1, 2]  # the processor ran on the misses only
    assert front_end.outstanding() == (second.request_id,)


def test_uuid_only_item_that_hits_is_served_from_the_cache() -> None:
    front_end, engine, _ = pair()
    serve(front_end, engine, req(("u", 5)))
    [model_input] = serve(front_end, engine, req("u"))
    assert content_of(model_input) == 5


def test_uuid_only_miss_is_a_client_error_and_changes_nothing() -> None:
    front_end, engine, processor = pair()
    serve(front_end, engine, req(("a", 1)))
    before = snapshot_pair(front_end, engine)
    with pytest.raises(MissingMediaError, match=r"got UUID-only item.*u1, u2") as caught:
        front_end.prepare(req(("a", 1), "u1", ("b", 2), "u2"))
    assert caught.value.identities == ("u1", "u2") and not caught.value.retryable
    assert snapshot_pair(front_end, engine) == before
    assert processor.calls == [1]


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        (req(("a", 1), ("a", 2)), DuplicateIdentityError),
        (forced_request((forced_item(7, 1),)), BadInputTypeError),
        (forced_request((forced_item("", 1),)), BadInputValueError),
        (forced_request([RequestItem("a", 1)]), BadInputTypeError),
        (forced_request((("a", 1),)), BadInputTypeError),
        ([RequestItem("a", 1)], BadInputTypeError),
    ],
)
def test_bad_request_changes_nothing(request_: object, error: type) -> None:
    front_end, engine, processor = pair()
    serve(front_end, engine, req(("a", 1)))
    before = snapshot_pair(front_end, engine)
    with pytest.raises(error, match="got"):
        front_end.prepare(request_)  # type: ignore[arg-type]
    assert snapshot_pair(front_end, engine) == before
    assert processor.calls == [1]


def test_processor_must_be_callable_and_return_a_processed_item() -> None:
    with pytest.raises(BadInputTypeError, match="expected a callable"):
        FrontEnd(64, "not callable")  # type: ignore[arg-type]
    front_end = FrontEnd(64, lambda content: content)  # type: ignore[arg-type,return-value]
    before = (front_end.sender.entries(), front_end.stats())
    with pytest.raises(BadInputTypeError, match="expected ProcessedItem"):
        front_end.prepare(req(("a", 1)))
    assert (front_end.sender.entries(), front_end.stats()) == before


def test_miss_reply_invalidates_exactly_the_reported_identities() -> None:
    front_end, engine, _ = pair()
    serve(front_end, engine, req(("a", 1), ("b", 2), ("c", 3)))
    engine.receiver._lru.pop("a")  # P1 lost "a" and "c" alone (D3/D9-like)
    engine.receiver._lru.pop("c")
    message = front_end.prepare(req(("a", 1), ("b", 2), ("c", 3)))
    with pytest.raises(MultiModalCacheMissError) as caught:
        engine.receive(message)
    assert caught.value.identities == ("a", "c") and caught.value.request_id == message.request_id
    assert "b" in engine.receiver  # items that did not miss are still cached
    front_end.handle_reply(Reply(message.request_id, caught.value.identities))
    assert [k for k, _ in front_end.sender.entries()] == ["b"]
    assert front_end.stats().invalidations == 2 and front_end.outstanding() == ()


@pytest.mark.parametrize(
    ("reply", "error", "match"),
    [
        (Reply(999, ()), UnknownRequestError, "got a reply to request 999"),
        (Reply(1, ("a", "zz")), UnknownIdentityError, "got missed identities zz"),
        (Reply(1, ("a", "a")), DuplicateIdentityError, "more than once"),
        (Reply(1, ("a", 3)), BadInputTypeError, "got identity 3"),  # type: ignore[arg-type]
        (Reply(1, ["a"]), BadInputTypeError, "expected tuple"),  # type: ignore[arg-type]
        (("1", ()), BadInputTypeError, "expected Reply"),
    ],
)
def test_bad_reply_changes_nothing(reply: object, error: type, match: str) -> None:
    front_end, engine, _ = pair()
    message = front_end.prepare(req(("a", 1), ("b", 2)))
    assert message.request_id == 1
    before = snapshot_pair(front_end, engine)
    with pytest.raises(error, match=match):
        front_end.handle_reply(reply)  # type: ignore[arg-type]
    assert snapshot_pair(front_end, engine) == before


def test_abandon_models_a_request_rejected_after_the_update() -> None:
    """D2: P0 updated its shadow, P1 never sees the request; V3 recovers on the next one."""
    front_end, engine, _ = pair()
    message = front_end.prepare(req(("a", 1)))
    front_end.abandon(message.request_id)
    assert front_end.outstanding() == () and "a" in front_end.sender
    with pytest.raises(UnknownRequestError):
        front_end.abandon(message.request_id)
    [model_input] = retry(lambda r: serve(front_end, engine, r), req(("a", 1)), max_retries=1)
    assert consistent(model_input)


def test_abandon_a_probed_request_and_update_only_once() -> None:
    front_end, _, _ = pair()
    probed = front_end.probe(req(("a", 1)))
    front_end.abandon(probed.request_id)
    with pytest.raises(UnknownRequestError, match="not yet updated"):
        front_end.update(probed)
    probed = front_end.probe(req(("a", 1)))
    front_end.update(probed)
    with pytest.raises(UnknownRequestError):
        front_end.update(probed)
    with pytest.raises(BadInputTypeError):
        front_end.update("probed")  # type: ignore[arg-type]


def test_engine_rejects_a_bad_message_and_changes_nothing() -> None:
    front_end, engine, _ = pair()
    serve(front_end, engine, req(("a", 1)))
    before = snapshot_pair(front_end, engine)
    with pytest.raises(BadInputTypeError, match="expected Message"):
        engine.receive("message")  # type: ignore[arg-type]
    with pytest.raises(BadInputTypeError, match="expected tuple"):
        engine.receive(Message(3, [object()]))  # type: ignore[arg-type]
    assert snapshot_pair(front_end, engine) == before
    assert engine.variant is V3 and front_end.variant is V3 and engine.stats().budget == 64


def test_v0_engine_asserts_on_a_miss() -> None:
    front_end, engine, _ = pair(V0)
    serve(front_end, engine, req(("a", 1)))
    engine.clear()
    with pytest.raises(ReceiverCacheAssertionError):
        serve(front_end, engine, req(("a", 1)))
    assert front_end.outstanding() == ()  # serve abandoned the request


# --- the retry helper -------------------------------------------------------------------


def test_retry_recovers_after_a_one_sided_clear() -> None:
    """D3 then L3: after P1 loses everything, the first retry succeeds."""
    front_end, engine, processor = pair()
    request = req(("a", 1), ("b", 2))
    retry(lambda r: serve(front_end, engine, r), request)
    engine.clear()
    calls: list[Request] = []

    def send(r: Request) -> object:
        calls.append(r)
        return serve(front_end, engine, r)

    inputs = retry(send, request, max_retries=1)
    assert len(calls) == 2 and all(map(consistent, inputs))  # type: ignore[arg-type]
    assert processor.calls == [1, 2, 1, 2]


def test_retry_attaches_media_to_uuid_only_items() -> None:
    front_end, engine, _ = pair()
    serve(front_end, engine, req(("u", 4)))
    engine.clear()
    [model_input] = retry(lambda r: serve(front_end, engine, r), req("u"), media={"u": 4})
    assert content_of(model_input) == 4


def test_retry_gives_up_after_max_retries_with_the_last_miss() -> None:
    sent: list[Request] = []

    def always_miss(r: Request) -> None:
        sent.append(r)
        raise MultiModalCacheMissError([str(len(sent))])

    with pytest.raises(MultiModalCacheMissError) as caught:
        retry(always_miss, req(("a", 1)), max_retries=2)
    assert len(sent) == 3 and caught.value.identities == ("3",)
    sent.clear()
    with pytest.raises(MultiModalCacheMissError):
        retry(always_miss, req(("a", 1)), max_retries=0)
    assert len(sent) == 1


def test_retry_does_not_retry_other_errors() -> None:
    sent: list[Request] = []

    def client_error(r: Request) -> None:
        sent.append(r)
        raise MissingMediaError(["u"])

    with pytest.raises(MissingMediaError):
        retry(client_error, req("u"), max_retries=5)
    assert len(sent) == 1


@pytest.mark.parametrize(("value", "error"), [(-1, BadInputValueError), (1.0, BadInputTypeError),
                                             (True, BadInputTypeError)])
def test_retry_rejects_bad_max_retries(value: object, error: type) -> None:
    with pytest.raises(error, match="got max_retries"):
        retry(lambda r: r, req(("a", 1)), max_retries=value)  # type: ignore[arg-type]
