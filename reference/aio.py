"""An asyncio front end: P0 for servers whose front end is a coroutine.

``AsyncFrontEnd`` is the threaded ``FrontEnd`` with its two steps awaited separately, as a
serving front end does (docs/protocol.md):

1. ``await probe(request)``: validate, probe the shadow (no reordering; a V4 resend finds no
   hits), reject UUID-only misses, then process the missed items, each awaited in an
   executor (the event loop serves other requests meanwhile: this is D1, other requests'
   probes and updates interleave here);
   then the request is recorded as probed.
2. ``await update(probed)``: probed hits the shadow lost meanwhile (late misses, V3) are
   processed first, awaited in the executor, unless one of them is UUID-only (then the request
   is rejected naming every such item, before anything is processed); then the sender
   cache's update (touch all, per item, one lock) builds the message. Nothing is awaited
   inside the update itself, so one request's update is atomic with respect to every other
   coroutine and thread.

``await prepare(request)`` does both. ``handle_reply``, ``abandon``, ``clear``, ``stats`` and
``outstanding`` do not await (they never wait for anything) and are plain methods.

Failure atomicity is the threaded front end's: a processor that raises, in either step,
leaves the shadow and the request records as they were (``prepare`` abandons the request it
probed). A late miss that appears after the awaited processing (the shadow changed again
during it) is processed by the sender cache itself, synchronously: still correct, rarely met.

The processor is a plain callable (content -> ``ProcessedItem``), run by ``executor``: the
loop's default thread pool if None; ``InlineExecutor`` runs it in the loop's thread (tests,
conformance: deterministic, no threads).

Usage, the example of docs/reference.md with the asyncio front end::

    >>> import asyncio, torch
    >>> from reference import Engine, Placeholders, ProcessedItem, Request, RequestItem
    >>> from reference.aio import AsyncFrontEnd, retry_async, serve_async
    >>> def processor(content: object) -> ProcessedItem:
    ...     pixels = torch.tensor(content, dtype=torch.float32)
    ...     return ProcessedItem({"pixel_values": pixels}, Placeholders(0, len(pixels)))
    >>> async def main() -> list[float]:
    ...     front_end = AsyncFrontEnd(budget=1 << 20, processor=processor)   # P0, V4
    ...     engine = Engine(budget=1 << 20)                                   # P1
    ...     async def send(request: Request):
    ...         return await serve_async(front_end, engine, request)
    ...     request = Request((RequestItem("img-1", [1.0, 2.0, 3.0]),))
    ...     await retry_async(send, request, max_retries=2)   # miss on P0: sent and cached
    ...     engine.clear()                                    # P1 loses its cache (D3)
    ...     inputs = await retry_async(send, request, max_retries=2)  # miss, invalidate, resend
    ...     return inputs[0].payload["pixel_values"].tolist()
    >>> asyncio.run(main())
    [1.0, 2.0, 3.0]
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

from reference._validate import check_instance
from reference.client import (
    awaited_result,
    backoff_delay,
    next_attempt,
    validate_backoff,
    validate_kinds,
    validate_retry,
)
from reference.engine import Engine
from reference.errors import (
    BadInputTypeError,
    MissingMediaError,
    MultiModalCacheMissError,
    describe,
)
from reference.frontend import FrontEnd, ProbedRequest, repeated_contents
from reference.items import ProcessedItem, Processor, run_processor
from reference.lru import CacheStats
from reference.messages import Message, ModelInput, Reply, Request
from reference.pipeline import check_pair, deliver
from reference.sender import SenderCache
from reference.tags import TagSource
from reference.variants import DEFAULT_VARIANT, Variant

__all__ = ["AsyncFrontEnd", "InlineExecutor", "retry_async", "serve_async"]

T = TypeVar("T")


class InlineExecutor(Executor):
    """Runs each submitted call at once, in the submitting thread (no threads at all)."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        if not callable(fn):
            raise BadInputTypeError(f"got fn {describe(fn)}, expected a callable")
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # handed to the awaiting coroutine
            future.set_exception(error)
        return future


class AsyncFrontEnd:
    """P0 with awaitable ``probe``/``update``/``prepare``; see the module docstring."""

    def __init__(
        self,
        budget: int,
        processor: Processor,
        *,
        variant: Variant = DEFAULT_VARIANT,
        tags: TagSource | None = None,
        executor: Executor | None = None,
    ) -> None:
        if executor is not None:
            check_instance("executor", executor, Executor)
        self._front_end = FrontEnd(budget, processor, variant=variant, tags=tags)
        self._executor = executor

    @property
    def front_end(self) -> FrontEnd:
        """The threaded front end underneath (its records and its sender cache)."""
        return self._front_end

    @property
    def sender(self) -> SenderCache:
        return self._front_end.sender

    @property
    def variant(self) -> Variant:
        return self._front_end.variant

    async def probe(self, request: Request) -> ProbedRequest:
        """Steps 1-2 of P0; other requests run while the missed items are processed."""
        hits = self._front_end.probe_shadow(request)
        processed = {}
        for item in request.items:  # an identity named twice: its first item's content
            if item.identity not in hits and item.identity not in processed:
                processed[item.identity] = await self._process(item.content)
        repeats = {}
        for index in repeated_contents(request.items, hits):
            repeats[index] = await self._process(request.items[index].content)
        return self._front_end.record_probed(request, hits, processed, repeats)

    async def update(self, probed: ProbedRequest) -> Message:
        """Step 3 of P0: process late misses (awaited), then update the shadow atomically.

        ``probed`` must be what ``probe`` returned, not yet updated or abandoned; anything
        else is rejected before any processing, changing nothing."""
        if type(probed) is not ProbedRequest:
            check_instance("probed request", probed, ProbedRequest)
        front_end = self._front_end
        if not front_end._is_probed(probed) or not self.variant.late_miss_reprocess:
            return front_end.update(probed)  # rejected there; or V0-V2: asserts, as modelled
        items = probed.request.items
        lost = [item for item in items
                if item.identity in probed.hits and item.identity not in self.sender]
        if any(item.content is None for item in lost):
            return front_end.update(probed)  # a UUID-only late miss: rejected, nothing processed
        late = {}
        for item in lost:  # an identity named twice: its first item's content
            if item.identity not in late:
                late[item.identity] = await self._process(item.content)
        late_repeats = {}
        lost_identities = frozenset(late)
        for index in repeated_contents(items, probed.hits - lost_identities):
            if items[index].identity in lost_identities:
                late_repeats[index] = await self._process(items[index].content)
        if late:
            probed = front_end._with_late(probed, late, late_repeats)
        return front_end.update(probed)

    async def prepare(self, request: Request) -> Message:
        """``probe`` then ``update``; if the update raises, the request is abandoned."""
        probed = await self.probe(request)
        try:
            return await self.update(probed)
        except BaseException:
            self._front_end.abandon(probed.request_id)
            raise

    def handle_reply(self, reply: Reply) -> None:
        self._front_end.handle_reply(reply)

    def abandon(self, request_id: int) -> None:
        self._front_end.abandon(request_id)

    def withdraw(self, message: Message) -> int:
        return self._front_end.withdraw(message)

    def _check_outstanding(self, message: Message) -> None:
        self._front_end._check_outstanding(message)

    def outstanding(self) -> tuple[int, ...]:
        return self._front_end.outstanding()

    def probed(self) -> tuple[int, ...]:
        return self._front_end.probed()

    def clear(self) -> None:
        self._front_end.clear()

    def stats(self) -> CacheStats:
        return self._front_end.stats()

    async def _process(self, content: object) -> ProcessedItem:
        loop = asyncio.get_running_loop()
        processor = self._front_end.processor
        return await loop.run_in_executor(self._executor, run_processor, processor, content)


async def serve_async(
    front_end: AsyncFrontEnd, engine: Engine, request: Request
) -> tuple[ModelInput, ...]:
    """``reference.serve`` with the asyncio front end: prepare (awaited), the engine, reply.
    The front end, the engine and their variants are checked before anything changes."""
    check_instance("front end", front_end, AsyncFrontEnd)
    check_pair(front_end.variant, engine)
    engine.check_admission(front_end.sender.tags)  # admitted by deliver, once prepared
    return deliver(front_end, engine, await front_end.prepare(request))


async def retry_async(
    send: Callable[[Request], Awaitable[T]],
    request: Request,
    *,
    max_retries: int = 3,
    media: Mapping[str, object] | None = None,
    backoff: float = 0.0,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
) -> T:
    """``reference.retry`` for a coroutine ``send``: the same resends, each marked as a
    resend, awaited (the backoff too, through ``sleep``; default 0: at once). The same
    promise: under V4 (the default) the first resend holds no reference and cannot miss,
    whatever drifted (it needs media for every item); under V1-V3 it can miss again.

    ``send`` and ``sleep``: async functions, or any callables returning an awaitable (``lambda
    r: serve_async(front_end, engine, r)``); a call returning anything else is refused in one
    line (``BadInputTypeError``; a plain send belongs to ``retry``)."""
    validate_retry(send, request, max_retries, media)
    validate_backoff(backoff, sleep)
    validate_kinds(send, sleep, awaited=True)
    attempt = request
    for resend in range(max_retries):
        try:
            return await awaited_result("send", send, send(attempt))
        except (MultiModalCacheMissError, MissingMediaError) as error:
            attempt = next_attempt(request, attempt, error, media)
        if backoff:
            await awaited_result("sleep", sleep, sleep(backoff_delay(backoff, resend)))
    return await awaited_result("send", send, send(attempt))
