"""The asyncio front end's adapter: `reference.aio.AsyncFrontEnd` under the same checks.

`factory()` is the entry point (``--adapter model_checks.conform.async_adapter:factory``).
The engine side is the reference adapter's (`ReferenceEngine`); the front-end side drives an
`AsyncFrontEnd`: each harness call runs one coroutine to completion on the side's own event
loop, so the harness's interleavings are exactly the ones between awaited steps (D1: another
request's probe or update between this request's probe and update; D6's split update is
`probe`, other requests, then `update`). The processor runs in the loop's thread
(`InlineExecutor`): deterministic, no threads.

Glue decisions, as in the reference adapter (docs/conformance.md): request ids are
``epoch << 32 | id`` so that a restart's new front end never closes an earlier life's
requests (a reply to one invalidates what it lists in the current shadow, as the spec does);
every front end gets a deterministic nonce so runs replay. The client is the reference's
asyncio retry helper (`reference.aio.retry_async`, driven whole: `adapter.ClientLoop`, on the
side's loop), and the probe of its resend probes the `Request` it built, with its resend mark
(`EpochFrontEnd.request_for`).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import torch

from model_checks.conform import adapter as api
from model_checks.conform.reference_adapter import (
    SUPPORTED,
    Attempts,
    EpochFrontEnd,
    ReferenceEngine,
    fault_of,
    processor_for,
    request_of,
    send_attempt,
    variant_of,
    wire_message,
)
from reference import (
    Engine,
    MissingMediaError,
    ProbedRequest,
    Request,
    TagSource,
)
from reference.aio import AsyncFrontEnd, InlineExecutor, retry_async

T = TypeVar("T")


@dataclass
class AsyncFrontEndSide(EpochFrontEnd[AsyncFrontEnd]):
    """`FrontEndSide` over `reference.aio.AsyncFrontEnd`, one event loop per side; the
    engine-facing half (ids per life, replies, clear, restart, shadow) is the reference
    adapter's `EpochFrontEnd`."""

    front_end_class: type[AsyncFrontEnd] = AsyncFrontEnd
    loop: asyncio.AbstractEventLoop = field(init=False)

    def __post_init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        weakref.finalize(self, self.loop.close)
        super().__post_init__()

    def _build(self) -> AsyncFrontEnd:
        return self.front_end_class(
            self.setup.budget,
            processor_for(self.setup),
            variant=variant_of(self.setup.variant),
            tags=TagSource.for_tests(1 + 64 * self.epoch + self.index),
            executor=InlineExecutor(),
        )

    def _run(self, step: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(step)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        try:
            return self._run(self.front_end.probe(self.request_for(items)))
        except MissingMediaError as error:
            return api.ClientRejected(error.identities)

    def retry_loop(
        self, send: Callable[[tuple[api.ItemIn, ...]], api.Missed | None],
        items: tuple[api.ItemIn, ...], media: Mapping[str, torch.Tensor], max_retries: int,
    ) -> None:
        """The client's whole retry loop (`adapter.ClientLoop`): `retry_async`, run on this
        side's loop, each attempt through the harness's `send`."""
        built: Attempts = []

        async def attempt(request: Request) -> None:
            send_attempt(send, built, request)

        try:
            self._run(retry_async(attempt, request_of(items), max_retries=max_retries,
                                  media=media))
        finally:
            self.keep_last_resend(built)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        if not isinstance(probed, ProbedRequest):
            raise TypeError(f"got {type(probed).__name__}, expected a probe's handle")
        try:
            message = self._run(self.front_end.update(probed))
        except MissingMediaError as error:
            self.front_end.abandon(probed.request_id)  # nothing changed; the request is over
            return api.ClientRejected(error.identities)
        except Exception as error:  # an assertion or a crash: reported, the harness compares
            return fault_of(error)
        return wire_message(message, self.epoch)


@dataclass
class AsyncAdapter:
    """`Adapter`: the asyncio front end(s) and the reference engine, every variant the
    reference implements (`reference_adapter.SUPPORTED`);
    `front_end_class` may be a subclass (a mutant)."""

    name: str = "reference-asyncio"
    variants: tuple[str, ...] = SUPPORTED
    front_end_class: type[AsyncFrontEnd] = AsyncFrontEnd

    def supports(self, variant: str) -> bool:
        return variant in self.variants

    def front_end(self, setup: api.Setup, index: int) -> AsyncFrontEndSide:
        return AsyncFrontEndSide(setup, index, front_end_class=self.front_end_class)

    def engine(self, setup: api.Setup) -> ReferenceEngine:
        return ReferenceEngine(setup, Engine)


def factory() -> AsyncAdapter:
    """The reference implementation with its asyncio front end, every variant."""
    return AsyncAdapter()
