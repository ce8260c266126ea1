"""No user code under a lock: V3's late-miss reprocessing runs the processor outside the sender
cache's lock, then re-validates what changed meanwhile, as the spec's late miss does.

The processors here call back into the front end (``stats``, ``outstanding``, the shadow) or
change the shadow while they run. A call that would block on a lock held by its own thread
deadlocks; ``completes`` runs each scenario in a daemon thread and reports whether it ended
(a hang guard with a generous bound, not a timing assertion: nothing here measures speed).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ref_helpers import ITEM_BYTES, SerialProcessor, consistent

from reference import (
    V3,
    Engine,
    FrontEnd,
    ProcessedItem,
    Request,
    RequestItem,
    TagSource,
    serve,
)
from reference.pipeline import deliver

HANG_GUARD_SECONDS = 120


def completes(scenario: Callable[[], None]) -> bool:
    """Run ``scenario`` in a daemon thread; True if it ended (raising counts as ended: the
    error is re-raised here)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            scenario()
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_SECONDS)
    if errors:
        raise errors[0]
    return not thread.is_alive()


class CallbackProcessor(SerialProcessor):
    """A SerialProcessor that runs ``callback`` (once per call) before processing."""

    def __init__(self) -> None:
        super().__init__()
        self.callback: Callable[[], None] = lambda: None

    def __call__(self, content: object) -> ProcessedItem:
        self.callback()
        return super().__call__(content)


def setup() -> tuple[FrontEnd, Engine, CallbackProcessor]:
    processor = CallbackProcessor()
    front_end = FrontEnd(8 * ITEM_BYTES, processor, variant=V3, tags=TagSource.for_tests(1))
    engine = Engine(8 * ITEM_BYTES, variant=V3)
    serve(front_end, engine, Request((RequestItem("a", 1), RequestItem("b", 2))))
    return front_end, engine, processor


def test_a_late_miss_processor_may_call_back_into_the_front_end() -> None:
    """Before: the processor ran under the sender's lock, and ``fe.stats()`` from inside it
    deadlocked."""
    front_end, engine, processor = setup()
    seen: list[object] = []
    processor.callback = lambda: seen.append(
        (front_end.stats(), front_end.sender.entries(), front_end.outstanding(), "a" in
         front_end.sender))

    def scenario() -> None:
        probed = front_end.probe(Request((RequestItem("a", 1),)))
        front_end.sender.invalidate(["a"])  # the late miss
        [model_input] = deliver(front_end, engine, front_end.update(probed))
        assert consistent(model_input)

    assert completes(scenario)
    assert len(seen) == 1


def test_the_sender_lock_is_free_while_the_processor_runs() -> None:
    """Before: a slow late-miss processor held the sender's lock, so ``stats()`` from any
    other thread waited for it. Here the processor waits until another thread's ``stats()``
    has returned: it never does if the lock is held."""
    front_end, engine, processor = setup()
    stats_done = threading.Event()
    processor.callback = lambda: None

    def other_thread() -> None:
        front_end.stats()
        front_end.sender.entries()
        stats_done.set()

    def wait_for_other_thread() -> None:
        threading.Thread(target=other_thread, daemon=True).start()
        assert stats_done.wait(HANG_GUARD_SECONDS), "stats() blocked behind the processor"

    processor.callback = wait_for_other_thread

    def scenario() -> None:
        probed = front_end.probe(Request((RequestItem("a", 1),)))
        front_end.sender.invalidate(["a"])
        deliver(front_end, engine, front_end.update(probed))

    assert completes(scenario)
    assert stats_done.is_set()


def test_a_hit_lost_while_processing_is_processed_too() -> None:
    """What changed meanwhile is handled as the spec's late miss: "a" is reprocessed, and
    while it is, "b" (another hit of the request) is invalidated; the update re-validates
    and processes "b" as well, so both are sent as payloads and served consistently."""
    front_end, engine, processor = setup()
    probed = front_end.probe(Request((RequestItem("a", 1), RequestItem("b", 2))))
    front_end.sender.invalidate(["a"])
    calls: list[object] = []

    def lose_b() -> None:
        calls.append(1)
        if len(calls) == 1:
            front_end.sender.invalidate(["b"])

    processor.callback = lose_b

    def scenario() -> None:
        message = front_end.update(probed)
        assert [w.is_reference for w in message.items] == [False, False]
        inputs = deliver(front_end, engine, message)
        assert all(consistent(i) for i in inputs) and len(calls) == 2

    assert completes(scenario)


def test_an_item_recorded_while_processing_is_sent_as_a_reference() -> None:
    """The other direction: while "a" is reprocessed, another request records "a" again;
    the update finds it present and sends a reference to that entry, not a second payload."""
    front_end, engine, processor = setup()
    probed = front_end.probe(Request((RequestItem("a", 1),)))
    front_end.sender.invalidate(["a"])
    done: list[object] = []

    def record_a_meanwhile() -> None:
        if not done:
            done.append(1)
            serve(front_end, engine, Request((RequestItem("a", 1),)))

    processor.callback = record_a_meanwhile

    def scenario() -> None:
        message = front_end.update(probed)
        assert message.items[0].is_reference
        [model_input] = deliver(front_end, engine, message)
        assert consistent(model_input)

    assert completes(scenario)
