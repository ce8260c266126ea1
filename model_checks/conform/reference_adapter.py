"""The reference implementation's adapter: the first implementation put under the checks.

`factory()` is the entry point (``--adapter model_checks.conform.reference_adapter:factory``).
`ReferenceAdapter` takes the front-end and engine classes to build, so that implementation
mutants (`model_checks.mutant_run.reference_mutants`) are the same adapter over subclasses.

Glue decisions (each also in docs/conformance.md):
- request ids: the reference numbers attempts per `FrontEnd` from 1; a restart builds a new
  `FrontEnd`, so the adapter's id is ``epoch << 32 | id``. A reply to an attempt of an earlier
  life of the front end cannot be closed by the new object (it never sent it); the adapter then
  does what the spec does with it: drop the listed identities from the current shadow.
- tags: the first front end's first life gets a deterministic nonce (``1 + 64 * epoch +
  index``); every other front end or life is built as a user builds it, with no tag source
  (``FrontEnd(budget, processor, variant=...)``), so the random nonce path runs in every case
  with two front ends or a restart. The harness compares tags through a bijection it learns,
  so random values replay the same comparisons.
- restarts: a restart builds a new `Engine` too; the end-to-end serve is handed the engine
  side's address (`EngineAddress`), so a message sent before a restart of the engine is
  received by the restarted one, as the spec's `P1Restart` keeps it queued.
- the client: `ReferenceFrontEnd.retry_items` resends through the reference's own retry
  helper (`reference.retry`), so a bug in it (media not attached, the wrong items) is
  checked by L1-L3 like any other.
- the resend mark: the harness hands `probe` the items of an attempt, not the reference's
  `Request`. The side keeps the `Request` its client built for each resend with the items
  tuple it handed the harness (`EpochFrontEnd.remember_resend`), and the probe of that very
  tuple (the harness passes it back unchanged) probes that `Request`, marked as the client
  marked it (`Request.resend`; V4 reads it). A client that forgets the mark is then seen as
  the spec sees it: a resend that reads the shadow.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import torch

from model_checks.conform import adapter as api
from model_checks.conform.reference_items import ItemUpdater
from reference import (
    Engine,
    FrontEnd,
    Message,
    MissingMediaError,
    ModelInput,
    MultiModalCacheMissError,
    Placeholders,
    ProcessedItem,
    ReceiverCacheAssertionError,
    Reply,
    Request,
    RequestItem,
    SenderCache,
    SenderCacheAssertionError,
    TagSource,
    WireItem,
    pipeline,
    retry,
)
from reference import variants as ref_variants
from reference.items import TensorTree
from reference.lru import CacheStats
from reference.receiver import ReceiverCache
from spec import VARIANT_NAMES

_EPOCH_SHIFT = 32
_ID_MASK = (1 << _EPOCH_SHIFT) - 1


_IMPLEMENTED: dict[str, ref_variants.Variant] = {v.name: v for v in ref_variants.VARIANTS}

SUPPORTED: tuple[str, ...] = tuple(name for name in VARIANT_NAMES if name in _IMPLEMENTED)
"""The spec's variants the reference implements (`reference.variants.VARIANTS`), in the
spec's order: what the reference adapter claims to support."""


def unsupported_reason(name: str) -> str:
    """Why the reference adapter does not support the variant `name` ("" if it does)."""
    if name in SUPPORTED:
        return ""
    return (f"the reference implements no variant {name} (reference.variants.VARIANTS has "
            f"{', '.join(_IMPLEMENTED)}): not supported")


def variant_of(name: str) -> ref_variants.Variant:
    """The reference's variant of the spec's name `name`; one it does not implement is a
    clear error (`unsupported_reason`)."""
    if name not in SUPPORTED:
        raise ValueError(unsupported_reason(name) or f"no variant {name!r}")
    return _IMPLEMENTED[name]


def _flat(tree: TensorTree) -> dict[str, torch.Tensor]:
    flat: dict[str, torch.Tensor] = {}
    for key, value in tree.items():
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"got a nested payload under {key!r}, expected flat tensors")
        flat[key] = value
    return flat


def _placeholders(value: Placeholders) -> tuple[int, int]:
    return (value.offset, value.length)


def served_of(inputs: Iterable[ModelInput]) -> api.Served:
    """The model inputs a reference engine delivered, as the adapter's `Served`."""
    return api.Served(tuple(
        api.ModelInput(i.identity, _flat(i.payload), _placeholders(i.placeholders))
        for i in inputs))


def round_trip_error(error: Exception) -> api.ClientRejected | api.Missed | api.Fault:
    """An error a reference round trip raised, as the adapter's value: a client error
    (`MissingMediaError`) the rejection, the engine's miss error the `Missed` reply,
    anything else the side's fault (`fault_of`)."""
    if isinstance(error, MissingMediaError):
        return api.ClientRejected(error.identities)
    if isinstance(error, MultiModalCacheMissError):
        return api.Missed(error.identities)
    return fault_of(error)


def fault_of(error: BaseException) -> api.Fault:
    """An error an implementation raised, as the side's `Fault` (its kind from its class)."""
    if isinstance(error, SenderCacheAssertionError):
        return api.Fault("p0-assert", str(error))
    if isinstance(error, ReceiverCacheAssertionError):
        return api.Fault("engine-crash", str(error))
    if isinstance(error, api.EvictionHang):
        return api.Fault("hang", str(error))
    return api.Fault("crash", f"{type(error).__name__}: {error}")


def _reported(call: Callable[[], object]) -> api.Fault | None:
    """Run a clear or a restart: an error in it (an eviction hang, an assertion, a crash) is
    the side's `Fault`."""
    try:
        call()
    except Exception as error:
        return fault_of(error)
    return None


def wire_message(message: Message, epoch: int) -> api.WireMessage:
    """A reference `Message` as the harness's `WireMessage`, its id tagged with `epoch`."""
    items = tuple(
        api.WireItem(
            w.identity,
            None if w.payload is None else _flat(w.payload),
            _placeholders(w.placeholders),
            w.tag,
        )
        for w in message.items
    )
    return api.WireMessage(epoch << _EPOCH_SHIFT | message.request_id, items)


def request_of(items: tuple[api.ItemIn, ...]) -> Request:
    """The harness's items as a first attempt (no resend mark)."""
    return Request(tuple(RequestItem(i.identity, i.media) for i in items))


def items_of(request: Request) -> tuple[api.ItemIn, ...]:
    """A reference `Request`'s items as the harness's (the client's attempt)."""
    return tuple(api.ItemIn(i.identity, i.content)  # type: ignore[arg-type]
                 for i in request.items)


Attempts = list[tuple[tuple[api.ItemIn, ...], Request]]
"""The client's attempts of one retry loop, in order: the items handed the harness, and the
`Request` they came from."""


def send_attempt(send: Callable[[tuple[api.ItemIn, ...]], api.Missed | None],
                 built: Attempts, request: Request) -> None:
    """One attempt of the client's retry loop through the harness's `send`: remembered in
    `built`, a miss raised as the reference's miss error (which the retry helper resends)."""
    items_in = items_of(request)
    built.append((items_in, request))
    missed = send(items_in)
    if missed is not None:
        raise MultiModalCacheMissError(list(missed.identities))


def processor_for(setup: api.Setup) -> Callable[[object], ProcessedItem]:
    """The harness's processor as a reference processor (media -> `ProcessedItem`)."""
    process = setup.process

    def processor(content: object) -> ProcessedItem:
        assert isinstance(content, torch.Tensor)
        payload, (offset, length) = process(content)
        return ProcessedItem(payload, Placeholders(offset, length))

    return processor


class FrontEndLike(Protocol):
    """What `EpochFrontEnd` needs of a front end (`reference.FrontEnd`, `AsyncFrontEnd`)."""

    @property
    def sender(self) -> SenderCache: ...

    def abandon(self, request_id: int) -> None: ...

    def handle_reply(self, reply: Reply) -> None: ...

    def clear(self) -> None: ...


F = TypeVar("F", bound=FrontEndLike)


@dataclass
class EpochFrontEnd(ABC, Generic[F]):
    """The engine-facing half every reference front-end side shares (threaded or asyncio):
    request ids tagged with the front end's life (`epoch`), replies routed to the life that
    sent them, clear, restart and the shadow view. A subclass builds the front end (`_build`)
    and implements `probe` and `update`."""

    setup: api.Setup
    index: int
    epoch: int = 0
    front_end: F = field(init=False)
    # the client's resends not probed yet: id of the items tuple -> (that tuple, its Request)
    resends: dict[int, tuple[tuple[api.ItemIn, ...], Request]] = field(
        init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.front_end = self._build()

    def remember_resend(self, items: tuple[api.ItemIn, ...], request: Request) -> None:
        """The client built `request` for the attempt whose items it handed the harness as
        `items` (kept alive here, so its id names it until it is probed)."""
        self.resends[id(items)] = (items, request)

    def keep_last_resend(self, built: Attempts) -> None:
        """After a retry loop: its last attempt is the resend the harness keeps (none when
        the loop made one attempt)."""
        if len(built) > 1:
            self.remember_resend(*built[-1])

    def request_for(self, items: tuple[api.ItemIn, ...]) -> Request:
        """The `Request` to probe for `items`: the client's own if it built one for this
        very tuple (a resend, with its mark), else the items as a first attempt. Survives a
        restart: the client's resend is a resend whichever life of the front end takes it."""
        kept = self.resends.pop(id(items), None)
        if kept is not None and kept[0] is items:
            return kept[1]
        return request_of(items)

    @abstractmethod
    def _build(self) -> F:
        """A new front end (at construction and at each restart)."""

    def abandon(self, request_id: int) -> None:
        self.front_end.abandon(request_id & ((1 << _EPOCH_SHIFT) - 1))

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        if request_id >> _EPOCH_SHIFT != self.epoch:
            self.front_end.sender.invalidate(missed)  # a reply to an earlier life: see above
            return
        own_id = request_id & ((1 << _EPOCH_SHIFT) - 1)
        self.front_end.handle_reply(Reply(own_id, missed))

    def clear(self) -> api.Fault | None:
        return _reported(self.front_end.clear)

    def restart(self) -> api.Fault | None:
        self.epoch += 1
        return _reported(self._rebuild)

    def _rebuild(self) -> None:
        self.front_end = self._build()

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        sizes = dict(self.front_end.sender.entries())
        return tuple(
            api.ShadowEntry(identity, sizes[identity], _placeholders(e.placeholders), e.tag)
            for identity, e in self.front_end.sender.items()
        )


@dataclass
class ReferenceFrontEnd(EpochFrontEnd[FrontEnd]):
    """`FrontEndSide` over `reference.FrontEnd` (or a subclass, `make`); the client's resends
    go through `resend` (`reference.retry`, or a mutant of it)."""

    make: Callable[..., FrontEnd] = FrontEnd
    resend: Callable[..., Any] = retry
    end_to_end: Callable[..., Any] = pipeline.serve
    items: ItemUpdater = field(init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.items = ItemUpdater(lambda: self.front_end)

    def update_item(self, probed: object
                    ) -> api.WireMessage | api.ClientRejected | api.Fault | None:
        """One item of the update (`adapter.ItemUpdates`; `reference_items.ItemUpdater`)."""
        result = self.items.update_item(probed)  # type: ignore[arg-type]
        if result is None or isinstance(result, api.ClientRejected):
            return result
        if isinstance(result, BaseException):
            return fault_of(result)
        return wire_message(result, self.epoch)

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        if request_id >> _EPOCH_SHIFT == self.epoch and self.items.reply(
                request_id & _ID_MASK, missed):
            return
        super().handle_reply(request_id, missed)

    def abandon(self, request_id: int) -> None:
        if not self.items.abandon(request_id & _ID_MASK):
            super().abandon(request_id)

    def _rebuild(self) -> None:
        self.items.restart()
        super()._rebuild()

    def retry_loop(
        self, send: Callable[[tuple[api.ItemIn, ...]], api.Missed | None],
        items: tuple[api.ItemIn, ...], media: Mapping[str, torch.Tensor], max_retries: int,
    ) -> None:
        """The client's whole retry loop (`adapter.ClientLoop`): `reference.retry` (or a
        mutant of it), each attempt through the harness's `send`."""
        built: Attempts = []
        try:
            self.resend(functools.partial(send_attempt, send, built), request_of(items),
                        max_retries=max_retries, media=media)
        finally:
            self.keep_last_resend(built)

    def serve(self, engine: api.EngineSide, items: tuple[api.ItemIn, ...]
              ) -> api.Served | api.Missed | api.ClientRejected | api.Fault:
        """`reference.pipeline.serve` (or a mutant of it) on this front end and `engine`."""
        if not isinstance(engine, ReferenceEngine):
            raise TypeError(f"got engine side {type(engine).__name__}, expected this "
                            "adapter's ReferenceEngine in this process")
        try:
            inputs = self.end_to_end(self.front_end, EngineAddress(engine), request_of(items))
        except Exception as error:
            return round_trip_error(error)
        return served_of(inputs)

    def _build(self) -> FrontEnd:
        processor = processor_for(self.setup)
        variant = variant_of(self.setup.variant)
        if self.epoch or self.index:  # as users build it: a random nonce
            return self.make(self.setup.budget, processor, variant=variant)
        nonce = 1 + 64 * self.epoch + self.index
        tags = TagSource.for_tests(nonce)
        return self.make(self.setup.budget, processor, variant=variant, tags=tags)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        try:
            return self.front_end.probe(self.request_for(items))
        except MissingMediaError as error:
            return api.ClientRejected(error.identities)

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        try:
            message = self.front_end.update(probed)  # type: ignore[arg-type]
        except MissingMediaError as error:
            return api.ClientRejected(error.identities)
        except Exception as error:  # an assertion or a crash: reported, the harness compares
            return fault_of(error)
        return wire_message(message, self.epoch)

    def retry_items(
        self, items: tuple[api.ItemIn, ...], media: Mapping[str, torch.Tensor]
    ) -> tuple[api.ItemIn, ...]:
        """What `reference.retry` resends after a miss of this attempt."""
        request = request_of(items)
        attempts: list[Request] = []

        def send(attempt: Request) -> None:
            attempts.append(attempt)
            if len(attempts) == 1:
                raise MultiModalCacheMissError([i.identity for i in items])

        self.resend(send, request, max_retries=1, media=media)
        resent = items_of(attempts[-1])
        self.remember_resend(resent, attempts[-1])
        return resent


@dataclass
class ReferenceEngine:
    """`EngineSide` over `reference.Engine` (or a subclass)."""

    setup: api.Setup
    make: Callable[..., Engine]
    engine: Engine = field(init=False)

    def __post_init__(self) -> None:
        self._build()

    def _build(self) -> None:
        self.engine = self.make(self.setup.budget, variant=variant_of(self.setup.variant))

    def receive(self, message: api.WireMessage) -> api.Delivered:
        wire = tuple(
            WireItem(i.identity, i.payload, Placeholders(*i.placeholders), i.tag)
            for i in message.items
        )
        try:
            inputs = self.engine.receive(Message(message.request_id, wire))
        except MultiModalCacheMissError as error:
            return api.Missed(error.identities)
        except Exception as error:
            return fault_of(error)
        return served_of(inputs)

    def clear(self) -> api.Fault | None:
        return _reported(self.engine.clear)

    def restart(self) -> api.Fault | None:
        return _reported(self._build)

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        sizes = dict(self.engine.receiver.entries())
        return tuple(
            api.ReceiverEntry(identity, sizes[identity], _flat(e.payload), e.tag)
            for identity, e in self.engine.receiver.items()
        )

    def close(self) -> None:
        pass


class EngineAddress(Engine):
    """The engine as an end-to-end serve reaches it: each call goes to the engine `side`
    runs when it is made (`ReferenceEngine.engine`, rebuilt at each restart), so a message
    prepared before a restart of the engine is received by the restarted engine, as the
    spec's `P1Restart` keeps a queued message for it (a front end addresses the engine, not
    one life of it). Holds no cache of its own."""

    def __init__(self, side: ReferenceEngine) -> None:  # (no Engine.__init__: no cache)
        self._side = side

    def admit(self, tags: TagSource) -> None:
        self._side.engine.admit(tags)

    def check_admission(self, tags: TagSource) -> None:
        self._side.engine.check_admission(tags)

    @property
    def receiver(self) -> ReceiverCache:
        return self._side.engine.receiver

    @property
    def variant(self) -> ref_variants.Variant:
        return self._side.engine.variant

    def receive(self, message: Message) -> tuple[ModelInput, ...]:
        return self._side.engine.receive(message)

    def clear(self) -> None:
        self._side.engine.clear()

    def stats(self) -> CacheStats:
        return self._side.engine.stats()


@dataclass
class ReferenceAdapter:
    """`Adapter` for the reference implementation; `front_end_class`/`engine_class` may be
    subclasses (mutants). `variants` limits the variants it claims to support (at most
    `SUPPORTED`: the spec's variants the reference implements)."""

    name: str = "reference"
    front_end_class: Callable[..., FrontEnd] = FrontEnd
    engine_class: Callable[..., Engine] = Engine
    variants: tuple[str, ...] = SUPPORTED

    def supports(self, variant: str) -> bool:
        return variant in self.variants

    def unsupported_reason(self, variant: str) -> str:
        """Why `variant` is not supported ("" if it is)."""
        if self.supports(variant):
            return ""
        return unsupported_reason(variant) or f"{self.name} is limited to {self.variants}"

    def front_end(self, setup: api.Setup, index: int) -> ReferenceFrontEnd:
        return ReferenceFrontEnd(setup, index, make=self.front_end_class)

    def engine(self, setup: api.Setup) -> ReferenceEngine:
        return ReferenceEngine(setup, self.engine_class)


def factory() -> ReferenceAdapter:
    """The reference implementation, every variant it implements (`SUPPORTED`)."""
    return ReferenceAdapter()
