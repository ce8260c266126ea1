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
every front end gets a deterministic nonce so runs replay.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import torch

from model_checks.conform import adapter as api
from model_checks.conform.reference_adapter import ReferenceEngine, variant_of
from reference import (
    Engine,
    MissingMediaError,
    Placeholders,
    ProbedRequest,
    ProcessedItem,
    ReceiverCacheAssertionError,
    Reply,
    Request,
    RequestItem,
    SenderCacheAssertionError,
    TagSource,
)
from reference.aio import AsyncFrontEnd, InlineExecutor
from reference.items import TensorTree

_EPOCH_SHIFT = 32
T = TypeVar("T")


def _flat(tree: TensorTree) -> dict[str, torch.Tensor]:
    flat: dict[str, torch.Tensor] = {}
    for key, value in tree.items():
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"got a nested payload under {key!r}, expected flat tensors")
        flat[key] = value
    return flat


def _fault(error: BaseException) -> api.Fault:
    if isinstance(error, SenderCacheAssertionError):
        return api.Fault("p0-assert", str(error))
    if isinstance(error, ReceiverCacheAssertionError):
        return api.Fault("engine-crash", str(error))
    return api.Fault("crash", f"{type(error).__name__}: {error}")


@dataclass
class AsyncFrontEndSide:
    """`FrontEndSide` over `reference.aio.AsyncFrontEnd`, one event loop per side."""

    setup: api.Setup
    index: int
    epoch: int = 0
    front_end_class: type[AsyncFrontEnd] = AsyncFrontEnd
    front_end: AsyncFrontEnd = field(init=False)
    loop: asyncio.AbstractEventLoop = field(init=False)

    def __post_init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        weakref.finalize(self, self.loop.close)
        self.front_end = self._build()

    def _build(self) -> AsyncFrontEnd:
        process = self.setup.process

        def processor(content: object) -> ProcessedItem:
            assert isinstance(content, torch.Tensor)
            payload, (offset, length) = process(content)
            return ProcessedItem(payload, Placeholders(offset, length))

        return self.front_end_class(
            self.setup.budget,
            processor,
            variant=variant_of(self.setup.variant),
            tags=TagSource(1 + 64 * self.epoch + self.index),
            executor=InlineExecutor(),
        )

    def _run(self, step: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(step)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        request = Request(tuple(RequestItem(i.identity, i.media) for i in items))
        try:
            return self._run(self.front_end.probe(request))
        except MissingMediaError as error:
            return api.ClientRejected(error.identities)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        if not isinstance(probed, ProbedRequest):
            raise TypeError(f"got {type(probed).__name__}, expected a probe's handle")
        try:
            message = self._run(self.front_end.update(probed))
        except MissingMediaError as error:
            self.front_end.abandon(probed.request_id)  # nothing changed; the request is over
            return api.ClientRejected(error.identities)
        except Exception as error:  # an assertion or a crash: reported, the harness compares
            return _fault(error)
        items = tuple(
            api.WireItem(
                w.identity,
                None if w.payload is None else _flat(w.payload),
                (w.placeholders.offset, w.placeholders.length),
                w.tag,
            )
            for w in message.items
        )
        return api.WireMessage(self.epoch << _EPOCH_SHIFT | message.request_id, items)

    def abandon(self, request_id: int) -> None:
        self.front_end.abandon(request_id & ((1 << _EPOCH_SHIFT) - 1))

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        if request_id >> _EPOCH_SHIFT != self.epoch:
            self.front_end.sender.invalidate(missed)  # a reply to an earlier life
            return
        own_id = request_id & ((1 << _EPOCH_SHIFT) - 1)
        self.front_end.handle_reply(Reply(own_id, missed))

    def clear(self) -> api.Fault | None:
        try:
            self.front_end.clear()
        except Exception as error:  # a side's fault, reported as the reference adapter does
            return _fault(error)
        return None

    def restart(self) -> api.Fault | None:
        self.epoch += 1
        try:
            self.front_end = self._build()
        except Exception as error:
            return _fault(error)
        return None

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        sender = self.front_end.sender
        sizes = dict(sender.entries())
        return tuple(
            api.ShadowEntry(identity, sizes[identity],
                            (e.placeholders.offset, e.placeholders.length), e.tag)
            for identity, e in sender.items()
        )


@dataclass
class AsyncAdapter:
    """`Adapter`: the asyncio front end(s) and the reference engine, every variant;
    `front_end_class` may be a subclass (a mutant)."""

    name: str = "reference-asyncio"
    variants: tuple[str, ...] = ("V0", "V1", "V2", "V3")
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
