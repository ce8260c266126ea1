"""Failure atomicity: a processor that raises (or returns a non-item) at any call site leaves
both caches and the front end's request records exactly as they were.

The processor is called at three places: ``FrontEnd.probe`` (the items that missed the
shadow), ``SenderCache.update`` (V3's late misses: probed hits gone from the shadow by the
update, reprocessed there) and, through them, ``FrontEnd.prepare`` and ``serve``. One test
per call site, each with both ways a processor fails."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch
from ref_helpers import ITEM_BYTES, SerialProcessor, snapshot, snapshot_pair

from reference import (
    V3,
    BadInputTypeError,
    Engine,
    FrontEnd,
    MissingMediaError,
    MultiModalCacheMissError,
    Outgoing,
    Placeholders,
    ProcessedItem,
    Request,
    RequestItem,
    SenderCache,
    TagSource,
    retry,
    serve,
)


class ProcessorFailed(RuntimeError):
    pass


class FlakyProcessor(SerialProcessor):
    """A SerialProcessor that fails on the contents listed in ``fail_on`` (raising, or
    returning something that is not a ProcessedItem)."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.fail_on: set[object] = set()
        self.how = how

    def __call__(self, content: object) -> ProcessedItem:
        if content in self.fail_on:
            if self.how == "raises":
                raise ProcessorFailed(f"cannot process {content!r}")
            return "not an item"  # type: ignore[return-value]
        return super().__call__(content)


HOWS = {"raises": ProcessorFailed, "returns-garbage": BadInputTypeError}


def pair(how: str) -> tuple[FrontEnd, Engine, FlakyProcessor]:
    processor = FlakyProcessor(how)
    front_end = FrontEnd(8 * ITEM_BYTES, processor, variant=V3, tags=TagSource.for_tests(1))
    engine = Engine(8 * ITEM_BYTES, variant=V3)
    return front_end, engine, processor


def records(front_end: FrontEnd) -> tuple[object, ...]:
    return front_end.probed(), front_end.outstanding()


def warm(front_end: FrontEnd, engine: Engine) -> None:
    """Both caches hold a and b; one request outstanding and one probed, so that records
    exist to be left alone."""
    serve(front_end, engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
    front_end.prepare(Request((RequestItem("a", 1),)))
    front_end.probe(Request((RequestItem("b", 2),)))


@pytest.mark.parametrize("how", HOWS)
def test_probe_site(how: str) -> None:
    front_end, engine, processor = pair(how)
    warm(front_end, engine)
    processor.fail_on = {30}
    before = snapshot_pair(front_end, engine), records(front_end)
    request = Request((RequestItem("a", 1), RequestItem("c", 30)))
    with pytest.raises(HOWS[how]):
        front_end.probe(request)
    with pytest.raises(HOWS[how]):
        front_end.prepare(request)
    with pytest.raises(HOWS[how]):
        serve(front_end, engine, request)
    assert (snapshot_pair(front_end, engine), records(front_end)) == before


@pytest.mark.parametrize("how", HOWS)
def test_late_miss_site_in_update(how: str) -> None:
    """V3's late-miss path: "a" and "b" hit at probe time, "a" is gone by the update, its
    reprocessing fails. Nothing changes: "b" is neither touched nor resolved, and the request
    stays probed (never lost, neither probed nor outstanding), to be updated again."""
    front_end, engine, processor = pair(how)
    warm(front_end, engine)
    probed = front_end.probe(Request((RequestItem("b", 2), RequestItem("a", 10))))
    assert probed.hits == {"a", "b"}
    front_end.sender.invalidate(["a"])  # e.g. a miss reply to another request
    processor.fail_on = {10}
    before = snapshot_pair(front_end, engine), records(front_end)
    with pytest.raises(HOWS[how]):
        front_end.update(probed)
    assert (snapshot_pair(front_end, engine), records(front_end)) == before
    assert probed.request_id in front_end.probed()  # still there: update again, or abandon
    processor.fail_on = set()
    message = front_end.update(probed)
    assert [w.identity for w in message.items if not w.is_reference] == ["a"]
    assert probed.request_id in front_end.outstanding()


@pytest.mark.parametrize("how", HOWS)
def test_late_miss_site_through_prepare_and_serve(how: str) -> None:
    """prepare = probe + update: a late miss whose processing fails leaves no record."""
    front_end, engine, processor = pair(how)
    warm(front_end, engine)
    processor.fail_on = {10}
    original = front_end.update

    def update_after_losing_a(probed: object) -> object:
        front_end.sender.invalidate(["a"])  # the window between probe and update (D1/D6)
        return original(probed)  # type: ignore[arg-type]

    front_end.update = update_after_losing_a  # type: ignore[assignment, method-assign]
    before = snapshot_pair(front_end, engine), records(front_end)
    with pytest.raises(HOWS[how]):
        serve(front_end, engine, Request((RequestItem("b", 2), RequestItem("a", 10))))
    (sender_entries, _, _), receiver_before, _ = before[0]
    assert snapshot(engine.receiver) == receiver_before
    assert records(front_end) == before[1]
    # the only change is the invalidation the test itself made, not the failed update's
    assert front_end.sender.entries() == [e for e in sender_entries if e[0] != "a"]


@pytest.mark.parametrize("how", HOWS)
def test_late_miss_site_in_the_sender_cache(how: str) -> None:
    processor = FlakyProcessor(how)
    cache = SenderCache(8 * ITEM_BYTES, variant=V3, tags=TagSource.for_tests(1))
    cache.update([Outgoing("a", processor(1), 1), Outgoing("b", processor(2), 2)], processor)
    processor.fail_on = {20}
    before = snapshot(cache)
    with pytest.raises(HOWS[how]):
        cache.update([Outgoing("a", None, 1), Outgoing("c", None, 20)], processor)
    assert snapshot(cache) == before


def test_the_late_miss_test_fails_on_the_old_order() -> None:
    """The check can fail: the earlier update, which touched and resolved items before the
    late miss's processor ran, leaves the shadow changed."""

    class ProcessingMidUpdate(SenderCache):
        def _reprocess_late_misses(self, outgoing: tuple[Outgoing, ...], late: frozenset[str],
                                   process: Callable[[object], ProcessedItem] | None
                                   ) -> tuple[Outgoing, ...]:
            return outgoing  # late misses met (and processed) inside the per-item loop

    processor = FlakyProcessor("raises")
    cache = ProcessingMidUpdate(8 * ITEM_BYTES, variant=V3, tags=TagSource.for_tests(1))
    cache.update([Outgoing("a", processor(1), 1), Outgoing("b", processor(2), 2)], processor)
    processor.fail_on = {20}
    before = snapshot(cache)
    with pytest.raises(ProcessorFailed):
        cache.update([Outgoing("a", None, 1), Outgoing("c", None, 20)], processor)
    assert snapshot(cache) != before  # "a" was touched and looked up before the raise


def test_retry_resends_a_lost_uuid_only_item_with_the_callers_media() -> None:
    """P0 lost "a" (cleared); the client sends it UUID-only and passes its media to retry:
    the MissingMediaError of the first attempt is retried with the media."""
    front_end, engine, processor = pair("raises")
    serve(front_end, engine, Request((RequestItem("a", 1),)))
    front_end.clear()
    uuid_only = Request((RequestItem("a"),))

    def send(request: Request) -> object:
        return serve(front_end, engine, request)

    with pytest.raises(MissingMediaError):
        retry(send, uuid_only, max_retries=2)  # no media given: a client error, at once
    inputs = retry(send, uuid_only, max_retries=2, media={"a": 1})
    assert processor.calls[-1] == 1 and len(inputs) == 1  # type: ignore[arg-type]
    with pytest.raises(MissingMediaError):
        retry(send, Request((RequestItem("b"),)), media={"a": 1})  # media lacks "b"
    with pytest.raises(MissingMediaError):
        retry(send, Request((RequestItem("b"),)), max_retries=0, media={"b": 1})
    assert front_end.probed() == () and front_end.outstanding() == ()


def test_retry_of_a_miss_and_then_a_lost_uuid_only_item() -> None:
    """Both failures in one recovery: P1 lost "a", then P0 too; one resend with media."""
    front_end, engine, _ = pair("raises")
    serve(front_end, engine, Request((RequestItem("a", 1),)))
    engine.clear()
    calls: list[Request] = []

    def send(request: Request) -> object:
        calls.append(request)
        return serve(front_end, engine, request)

    with pytest.raises(MultiModalCacheMissError):
        send(Request((RequestItem("a"),)))  # the miss reply invalidated "a" on P0
    inputs = retry(send, Request((RequestItem("a"),)), media={"a": 1})
    assert len(inputs) == 1 and calls[-1].items[0].content == 1  # type: ignore[arg-type]


def test_update_records_a_processed_late_miss_once() -> None:
    """After a failed late-miss update, the successful one sends "a" once, tagged afresh."""
    front_end, engine, processor = pair("raises")
    warm(front_end, engine)
    probed = front_end.probe(Request((RequestItem("a", 10),)))
    front_end.sender.invalidate(["a"])
    processor.fail_on = {10}
    with pytest.raises(ProcessorFailed):
        front_end.update(probed)
    processor.fail_on = set()
    message = front_end.update(probed)
    payload = message.items[0].payload
    assert payload is not None and isinstance(payload["serial"], torch.Tensor)
    assert front_end.sender.items()[-1][0] == "a"
    assert Placeholders(int(payload["serial"].item()), 4) == message.items[0].placeholders
