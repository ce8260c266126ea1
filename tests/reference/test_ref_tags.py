"""Tags that cannot collide: a nonce per source unique in the process, a thread-safe
counter, one source per nonce at the engine, a fixed nonce only through the test-only path.

The drift soak with two front ends, reused identities and forced-equal nonces is in
``test_ref_drift.py`` (``run_drift`` with ``equal_nonces``)."""

from __future__ import annotations

import threading

import pytest
from ref_helpers import ITEM_BYTES, SerialProcessor, make_item, snapshot

from reference import (
    V2,
    BadInputValueError,
    Engine,
    FrontEnd,
    NonceInUseError,
    Request,
    RequestItem,
    SenderCache,
    TagSource,
    serve,
)
from reference import tags as tags_module
from reference.aio import AsyncFrontEnd, InlineExecutor, serve_async


def test_the_old_fixed_nonce_call_fails_clearly_and_builds_nothing() -> None:
    """Before: ``FrontEnd(..., tags=TagSource(7))`` twice on one engine paired one
    processing's tensor with another's placeholders (S1)."""
    with pytest.raises(BadInputValueError, match=r"for tests only \(TagSource.for_tests"):
        TagSource(7)
    with pytest.raises(BadInputValueError, match="fixed nonce"):
        TagSource(nonce=0)


def test_random_nonces_are_unique_in_the_process() -> None:
    nonces = {TagSource().nonce for _ in range(2000)}
    assert len(nonces) == 2000


def test_a_nonce_already_issued_is_never_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The draw skips issued nonces (the known-bad variant, a draw that does not, would
    return the first value)."""
    taken = TagSource().nonce
    draws = iter([taken, taken, 12345])
    monkeypatch.setattr(tags_module.secrets, "randbits", lambda bits: next(draws))
    tags_module._issued.discard(12345)
    assert TagSource().nonce == 12345


def test_a_counter_wrap_draws_a_nonce_never_issued(monkeypatch: pytest.MonkeyPatch) -> None:
    other = TagSource()
    source = TagSource()
    draws = iter([other.nonce, source.nonce, 54321])
    monkeypatch.setattr(tags_module.secrets, "randbits", lambda bits: next(draws))
    tags_module._issued.discard(54321)
    source._counter = 1 << 32
    assert source.next() == 54321 << 32


def test_a_source_shared_by_two_senders_mints_each_tag_once() -> None:
    source = TagSource()
    senders = [SenderCache(64 * ITEM_BYTES, tags=source) for _ in range(2)]
    tags: list[int | None] = []

    def fill(sender: SenderCache, prefix: str) -> None:
        for index in range(500):
            tags.append(sender.get_and_update(f"{prefix}{index}", make_item(16)).tag)

    threads = [threading.Thread(target=fill, args=(sender, prefix))
               for sender, prefix in zip(senders, "xy", strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(tags)) == len(tags) == 1000


def request(identity: str, content: int) -> Request:
    return Request((RequestItem(identity, content),))


def test_the_engine_rejects_a_second_source_of_a_nonce_and_changes_nothing() -> None:
    processor = SerialProcessor()
    engine = Engine(4 * ITEM_BYTES)
    first = FrontEnd(4 * ITEM_BYTES, processor, tags=TagSource.for_tests(7))
    second = FrontEnd(4 * ITEM_BYTES, processor, tags=TagSource.for_tests(7))
    serve(first, engine, request("u", 1))
    before = (snapshot(engine.receiver), snapshot(first.sender), snapshot(second.sender),
              second.outstanding(), second.probed(), len(processor.calls))
    with pytest.raises(NonceInUseError, match="nonce 7 another front end presented"):
        serve(second, engine, request("u", 2))
    assert (snapshot(engine.receiver), snapshot(first.sender), snapshot(second.sender),
            second.outstanding(), second.probed(), len(processor.calls)) == before
    serve(first, engine, request("v", 3))  # the first source is still admitted


def test_a_restarted_front_end_with_the_same_fixed_nonce_is_rejected() -> None:
    """D10 with a fixed nonce: the new life would mint the old life's tags again."""
    engine = Engine(4 * ITEM_BYTES)
    serve(FrontEnd(4 * ITEM_BYTES, SerialProcessor(), tags=TagSource.for_tests(3)), engine,
          request("u", 1))
    with pytest.raises(NonceInUseError):
        serve(FrontEnd(4 * ITEM_BYTES, SerialProcessor(), tags=TagSource.for_tests(3)),
              engine, request("u", 2))


def test_the_asyncio_front_end_is_admitted_the_same_way() -> None:
    import asyncio

    engine = Engine(4 * ITEM_BYTES)
    fronts = [AsyncFrontEnd(4 * ITEM_BYTES, SerialProcessor(), tags=TagSource.for_tests(5),
                            executor=InlineExecutor()) for _ in range(2)]
    asyncio.run(serve_async(fronts[0], engine, request("u", 1)))
    with pytest.raises(NonceInUseError):
        asyncio.run(serve_async(fronts[1], engine, request("u", 2)))
    assert fronts[1].sender.entries() == [] and fronts[1].outstanding() == ()


def test_untagged_variants_send_no_tags_and_admit_any_source() -> None:
    engine = Engine(4 * ITEM_BYTES, variant=V2)
    for _ in range(2):
        front_end = FrontEnd(4 * ITEM_BYTES, SerialProcessor(), variant=V2,
                             tags=TagSource.for_tests(9))
        serve(front_end, engine, request("u", 1))
