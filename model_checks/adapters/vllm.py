"""vLLM's real multimodal IPC caches under the conformance checks:
``--adapter model_checks.adapters.vllm:factory``.

The two caches are vLLM's own classes, imported from the installed release
(`vllm.multimodal.cache.lru`: `LruKeyReplicatedSenderCache` on P0,
`LruKeyReplicatedReceiverCache` on P1), never copied. The glue around them is written here,
after how the release's input processor and engine core call them:

- P0's probe (the processor's cache lookup): `is_cached` over the request's identities (a
  membership probe, no reordering). A miss that came without data is the client's error;
  vLLM raises a `ValueError` naming the first such item, the glue names every one (the cache
  calls are the same: none). The harness's processor (`Setup.process`) then runs on each
  missed item: it stands for the Hugging Face processor.
- P0's update: the release's own `BaseMultiModalProcessor._merge_mm_kwargs` (it touches
  every identity of the request, then updates each item through the sender: a hit returns
  ``None`` and the cached prompt updates, a miss records the item's size and prompt updates
  if it fits and returns the item), called with the glue's `self` (`MergeSelf`: the prompt
  updates are kept as cached, where the processor would renumber their item index), then
  `release_sender_touches`, as `_cached_apply_hf_processor` does in its `finally`. Under D6
  (another request's items between two of this one's) the glue makes the same calls one
  item at a time (`update_item`). The sender's `AssertionError` (a probed hit evicted
  before its update: D6, D8) is the spec's P0 assertion (`p0-assert`).
- P1 (the engine core's `preprocess_add_request`): the receiver's own
  `get_and_update_features` over one `MultiModalFeatureSpec` per item; it touches every
  identity, updates each item, and raises one `MultiModalCacheMissError` listing every missed
  identity. The engine core's own `_handle_mm_cache_miss` turns it into the reply (compiled
  from the installed source, with records standing for the engine's output types, whose
  module imports packages the CPU set-up leaves out); the `Missed` reply lists the
  `mm_cache_miss_hashes` of its output.
- the miss reply, in two modes. The offline engine (`factory`; `LLMEngine.step`):
  `invalidate` of every identity the reply lists (`EngineCoreOutput.mm_cache_miss_hashes`),
  at once. The async server (`async_factory`; `AsyncLLM`'s output handler): the renderer's
  own `queue_mm_cache_invalidations` (it keeps the listed identities the shadow holds now)
  and `_drain_mm_cache_invalidations`, which `_process_multimodal` runs before every
  lookup, here before every probe; both compiled from the installed release's source (the
  renderers module imports packages the CPU set-up leaves out) and run on the renderer
  state they read (`RendererQueue`). The async front end's shadow view is the shadow as
  the next lookup sees it (the queued identities left out). A rejected request (D2)
  changes nothing more: vLLM's shadow keeps what the update recorded.
- clear (`reset_mm_cache`, sleep, pause): `clear_cache()`; restart: a new cache object.
- the budget: the caches read `ModelConfig.get_multimodal_config().mm_processor_cache_gb`;
  `CacheConfig` gives them a real `vllm.config.MultiModalConfig` whose value is the budget in
  GiB, as ``--mm-processor-cache-gb`` sets it (exact for any budget below 2**53 bytes).
- prompt updates: vLLM's are `ResolvedPromptUpdate` lists, which the caches store and return
  without reading; here each item's are one `PlaceholderRange(offset, length)`, from which the
  glue reads the placeholders back.
- views: the order and the recorded sizes are read from the caches' `LRUCache`
  (`_cache.order`, and cachetools' per-key size record), never recomputed.

Supported releases and their variant: `model_checks.adapters.vllm_release.IMPLEMENTS`; the
factory refuses any other release (or a machine without vLLM) with one line.
"""

from __future__ import annotations

import functools
import itertools
import logging
import queue
import textwrap
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import torch

from model_checks.adapters import vllm_pins
from model_checks.adapters.vllm_emit import VLLM_CALLS, VllmCalls
from model_checks.adapters.vllm_release import require_supported, variant_of
from model_checks.conform import adapter as api

_EPOCH_SHIFT = 32
_GIB = 1 << 30
_MODALITY = "image"


@dataclass(frozen=True)
class VllmClasses:
    """The release's classes the glue uses (imported once, on first use)."""

    sender: Any
    receiver: Any
    miss_error: type[Exception]
    kwargs_item: Any
    field_elem: Any
    batched_field: Any
    feature: Any
    placeholder: Any
    multimodal_config: Any
    kwargs_items: Any
    processor: Any


@functools.cache
def vllm_classes() -> VllmClasses:
    """Import vLLM's cache modules (a supported release, else `UnsupportedVllm`)."""
    require_supported()
    from vllm.config import MultiModalConfig
    from vllm.multimodal.cache.base import MultiModalCacheMissError
    from vllm.multimodal.cache.lru import (
        LruKeyReplicatedReceiverCache,
        LruKeyReplicatedSenderCache,
    )
    from vllm.multimodal.inputs import (
        MultiModalBatchedField,
        MultiModalFeatureSpec,
        MultiModalFieldElem,
        MultiModalKwargsItem,
        MultiModalKwargsItems,
        PlaceholderRange,
    )
    from vllm.multimodal.processing.processor import BaseMultiModalProcessor

    return VllmClasses(LruKeyReplicatedSenderCache, LruKeyReplicatedReceiverCache,
                       MultiModalCacheMissError, MultiModalKwargsItem, MultiModalFieldElem,
                       MultiModalBatchedField, MultiModalFeatureSpec, PlaceholderRange,
                       MultiModalConfig, MultiModalKwargsItems, BaseMultiModalProcessor)


@dataclass(frozen=True)
class CacheConfig:
    """What vLLM's caches read of a `vllm.config.ModelConfig`: its multimodal config."""

    multimodal: Any

    def get_multimodal_config(self) -> Any:
        return self.multimodal


def cache_config(budget: int) -> CacheConfig:
    """A config whose `mm_processor_cache_gb` is `budget` bytes, in GiB."""
    return CacheConfig(vllm_classes().multimodal_config(mm_processor_cache_gb=budget / _GIB))


def kwargs_item(payload: api.Payload) -> Any:
    """Tensors by name as vLLM's `MultiModalKwargsItem` (one batched field per tensor)."""
    v = vllm_classes()
    return v.kwargs_item({name: v.field_elem(data=tensor, field=v.batched_field())
                          for name, tensor in payload.items()})


def payload_of(item: Any) -> dict[str, torch.Tensor]:
    """A `MultiModalKwargsItem`'s tensors by name."""
    data: dict[str, torch.Tensor] = item.get_data()
    return dict(data)


def receiver_value(value: Any) -> tuple[dict[str, torch.Tensor], int | None]:
    """A receiver entry's tensors and tag: the release stores the `MultiModalKwargsItem`
    itself (no tag), a tagging release a record of the item and its tag (`.item`, `.tag`)."""
    if hasattr(value, "tag"):
        return payload_of(value.item), value.tag
    return payload_of(value), None


def placeholders_of(updates: Sequence[Any]) -> tuple[int, int]:
    """The placeholders the glue's prompt updates (one `PlaceholderRange`) describe."""
    (position,) = updates
    return (int(position.offset), int(position.length))


def ordered_entries(cache: Any) -> Iterator[tuple[str, int, Any]]:
    """(identity, recorded size, value) of a vLLM cache's `LRUCache`, least recent first."""
    lru = cache._cache
    sizes = lru._Cache__size  # cachetools' record of each key's size, made at insert
    values = lru.cache
    for key in lru.order:
        yield key, int(sizes[key]), values[key]


def crash(error: BaseException) -> api.Fault:
    return api.Fault("crash", f"{type(error).__name__}: {error}")


def clear_cache(cache: Any) -> api.Fault | None:
    """Either side's clear: the cache's own `clear_cache()`; an exception from it is the
    side's crash."""
    try:
        cache.clear_cache()
    except Exception as error:
        return crash(error)
    return None


class MergeSelf:
    """The `self` the glue passes to `BaseMultiModalProcessor._merge_mm_kwargs`: the one
    method it calls on it keeps a cached prompt update as it is (the glue's prompt updates are
    placeholder ranges, which have no item index to renumber)."""

    @staticmethod
    def _recompute_cached_prompt_update(update: Any, item_idx: int) -> Any:
        del item_idx
        return update


@dataclass(frozen=True)
class Merged:
    """What the release's `_merge_mm_kwargs` returned for a request, per item in request
    order: the kwargs item (None: a reference), the prompt updates, the tag (None where the
    release sends none)."""

    kwargs: tuple[Any, ...]
    updates: tuple[Any, ...]
    tags: tuple[int | None, ...]


def merge(cache: Any, identities: Sequence[str],
          processed: Sequence[tuple[Any, tuple[Any, ...]] | None]) -> Merged:
    """A request's update through the release's own `_merge_mm_kwargs` (one modality), then
    `release_sender_touches`; the sender's exceptions propagate."""
    v = vllm_classes()
    missing = [p for p in processed if p is not None]
    try:
        merged = v.processor._merge_mm_kwargs(
            MergeSelf(), cache, mm_hashes={_MODALITY: list(identities)},
            mm_is_cached={_MODALITY: [p is None for p in processed]},
            mm_missing_kwargs=v.kwargs_items({_MODALITY: [k for k, _ in missing]}),
            mm_missing_prompt_updates={_MODALITY: [list(u) for _, u in missing]})
    finally:
        cache.release_sender_touches()
    kwargs, updates = merged[0], merged[1]
    tags = merged[2].get(_MODALITY) if len(merged) > 2 else None
    return Merged(tuple(kwargs.get(_MODALITY, ())), tuple(updates.get(_MODALITY, ())),
                  tuple(tags if tags is not None else [None] * len(identities)))


QUEUE = "renderers/base.py:BaseRenderer.queue_mm_cache_invalidations"
DRAIN = "renderers/base.py:BaseRenderer._drain_mm_cache_invalidations"
MISS = "v1/engine/core.py:EngineCoreProc._handle_mm_cache_miss"


def _quiet_logger() -> logging.Logger:
    """The engine core's logger, silenced: every drift miss would print a warning."""
    logger = logging.getLogger("paired_caches.vllm_engine_core")
    logger.addHandler(logging.NullHandler())
    logger.propagate = False
    return logger


def _namespace() -> dict[str, Any]:
    """The globals the compiled methods read: the names of their annotations, the engine
    core's logger, and records standing for the engine's output types."""
    return {"Sequence": Sequence, "EngineCoreRequest": object,
            "MultiModalCacheMissError": vllm_classes().miss_error, "logger": _quiet_logger(),
            "EngineCoreOutputs": types.SimpleNamespace,
            "EngineCoreOutput": types.SimpleNamespace,
            "FinishReason": types.SimpleNamespace(ERROR="error")}


@functools.cache
def release_method(key: str) -> Callable[..., None]:
    """A method of the installed release (`vllm_pins` key), compiled from its source into a
    function of its `self`."""
    text = vllm_pins.source(key, padded=True)
    if text is None:
        raise RuntimeError(f"{key} is not in the installed vLLM")
    namespace = _namespace()
    exec(compile(textwrap.dedent(text), f"<vllm {key}>", "exec"), namespace)
    function: Callable[..., None] = namespace[key.rpartition(".")[2]]
    return function


@dataclass
class EngineCoreOutputQueue:
    """The engine core state its miss handling reads and writes."""

    engine_index: int = 0
    output_queue: queue.SimpleQueue[Any] = field(default_factory=queue.SimpleQueue)


def miss_reply(error: Exception) -> tuple[str, ...]:
    """The identities the engine core's own `_handle_mm_cache_miss` puts in its reply to
    `error` (`EngineCoreOutput.mm_cache_miss_hashes`)."""
    core = EngineCoreOutputQueue()
    release_method(MISS)(core, types.SimpleNamespace(request_id="r", client_index=0), error)
    _, outputs = core.output_queue.get_nowait()
    return tuple(h for output in outputs.outputs for h in output.mm_cache_miss_hashes or ())


@dataclass
class RendererQueue:
    """The renderer state the release's invalidation queue and drain read and write."""

    mm_processor_cache: Any
    _mm_cache_invalidation_lock: Any = field(default_factory=threading.Lock)
    _pending_mm_cache_invalidations: set[str] = field(default_factory=set)

    def queue(self, identities: Sequence[str]) -> None:
        release_method(QUEUE)(self, identities)

    def drain(self) -> None:
        release_method(DRAIN)(self)


@dataclass(frozen=True)
class Probed:
    """A probed request: its items and, per item, the processed item and prompt updates
    (None for a shadow hit)."""

    items: tuple[api.ItemIn, ...]
    processed: tuple[tuple[Any, tuple[Any, ...]] | None, ...]


@dataclass
class SenderSide:
    """What every front end over a `LruKeyReplicatedSenderCache` shares: the probe, the
    update through the release's `_merge_mm_kwargs`, the reply handling, clear, restart and
    the shadow view.
    Request ids are ``epoch << 32 | n``, the epoch counting restarts."""

    setup: api.Setup
    index: int
    epoch: int = 0
    cache: Any = field(init=False)
    ids: Iterator[int] = field(init=False)
    updating: dict[int, tuple[Probed, list[api.WireItem]]] = field(init=False)

    def __post_init__(self) -> None:
        self._build()

    def _build(self) -> None:
        self.cache = vllm_classes().sender(cache_config(self.setup.budget))
        self.ids = itertools.count()
        self.updating = {}  # id(probed) -> (probed, its wire items so far)

    def _process(self, media: torch.Tensor) -> tuple[Any, tuple[Any, ...]]:
        payload, (offset, length) = self.setup.process(media)
        return kwargs_item(payload), (vllm_classes().placeholder(offset, length),)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        hits = self.cache.is_cached([item.identity for item in items])
        rejected = tuple(item.identity for item, hit in zip(items, hits, strict=True)
                         if not hit and item.media is None)
        if rejected:
            return api.ClientRejected(rejected)
        processed = tuple(None if hit or item.media is None else self._process(item.media)
                          for item, hit in zip(items, hits, strict=True))
        return Probed(items, processed)

    def next_id(self) -> int:
        """The id of the next message this life of the front end sends."""
        return self.epoch << _EPOCH_SHIFT | next(self.ids)

    def abandon(self, request_id: int) -> None:
        del request_id  # rejected after the update: the shadow keeps what it recorded (D2)

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id  # a reply to an earlier life invalidates the current shadow too
        for identity in missed:
            self.cache.invalidate(identity)

    def clear(self) -> api.Fault | None:
        return clear_cache(self.cache)

    def restart(self) -> api.Fault | None:
        self.epoch += 1
        self._build()
        return None

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        """The whole request through the release's `_merge_mm_kwargs` (`merge`)."""
        if not isinstance(probed, Probed):
            raise TypeError(f"got {type(probed).__name__}, expected this side's Probed")
        try:
            merged = merge(self.cache, [i.identity for i in probed.items], probed.processed)
        except AssertionError as error:
            return api.Fault("p0-assert", str(error))
        except Exception as error:
            return crash(error)
        return api.WireMessage(self.next_id(), tuple(
            api.WireItem(item.identity, None if kwargs is None else payload_of(kwargs),
                         placeholders_of(updates), tag)
            for item, kwargs, updates, tag in zip(probed.items, merged.kwargs, merged.updates,
                                                  merged.tags, strict=True)))

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        return tuple(api.ShadowEntry(key, size, placeholders_of(meta.prompt_updates),
                                     getattr(meta, "tag", None))
                     for key, size, meta in ordered_entries(self.cache))


@dataclass
class VllmFrontEnd(SenderSide):
    """`FrontEndSide` over vLLM's `LruKeyReplicatedSenderCache` and the glue above, with
    the item-at-a-time update (`adapter.ItemUpdates`) that D6 needs."""

    def update_item(self, probed: object) -> api.WireMessage | api.Fault | None:
        """One item of the update (`adapter.ItemUpdates`), as vLLM's input processor takes
        them: the first call touches every identity of the request, each call then updates
        the next item in request order (`get_and_update_item`), outside any lock, so other
        requests' items interleave (D6); the last call returns the message."""
        if not isinstance(probed, Probed):
            raise TypeError(f"got {type(probed).__name__}, expected this side's Probed")
        started = self.updating.get(id(probed))
        if started is None or started[0] is not probed:
            for item in probed.items:
                self.cache.touch_sender_cache_item(item.identity)
            started = self.updating[id(probed)] = (probed, [])
        wire = started[1]
        item, processed = probed.items[len(wire)], probed.processed[len(wire)]
        try:
            kwargs, updates = self.cache.get_and_update_item(processed, item.identity)
            payload = None if kwargs is None else payload_of(kwargs)
            wire.append(api.WireItem(item.identity, payload, placeholders_of(updates), None))
        except Exception as error:
            del self.updating[id(probed)]
            self.cache.release_sender_touches()
            if isinstance(error, AssertionError):
                return api.Fault("p0-assert", str(error))
            return crash(error)
        if len(wire) < len(probed.items):
            return None
        del self.updating[id(probed)]
        self.cache.release_sender_touches()
        return api.WireMessage(self.next_id(), tuple(wire))


class AsyncServer:
    """The async server's reply handling, for a `SenderSide`: the renderer's queue at the
    reply, its drain before each probe (as `_process_multimodal` drains before the lookup)."""

    cache: Any
    renderer: RendererQueue

    def _build(self) -> None:
        super()._build()  # type: ignore[misc]
        self.renderer = RendererQueue(self.cache)

    def probe(self, items: tuple[api.ItemIn, ...]) -> object | api.ClientRejected:
        self.renderer.drain()
        probed: object | api.ClientRejected = super().probe(items)  # type: ignore[misc]
        return probed

    def handle_reply(self, request_id: int, missed: tuple[str, ...]) -> None:
        del request_id
        self.renderer.queue(list(missed))

    def shadow(self) -> tuple[api.ShadowEntry, ...]:
        """The shadow as the next lookup sees it: the queued identities are dropped first."""
        entries: tuple[api.ShadowEntry, ...] = super().shadow()  # type: ignore[misc]
        pending = self.renderer._pending_mm_cache_invalidations
        return tuple(e for e in entries if e.identity not in pending)


@dataclass
class VllmAsyncFrontEnd(AsyncServer, VllmFrontEnd):
    """`VllmFrontEnd` with the async server's deferred invalidation."""


@dataclass
class VllmEngine:
    """`EngineSide` over vLLM's `LruKeyReplicatedReceiverCache`: each message goes through
    the receiver's own `get_and_update_features`, as the engine core calls it."""

    setup: api.Setup
    cache: Any = field(init=False)

    def __post_init__(self) -> None:
        self.cache = vllm_classes().receiver(cache_config(self.setup.budget))

    def _feature(self, item: api.WireItem) -> Any:
        v = vllm_classes()
        data = None if item.payload is None else kwargs_item(item.payload)
        tagged = {} if item.tag is None else {"mm_tag": item.tag}
        return v.feature(data=data, modality=_MODALITY, identifier=item.identity,
                         mm_position=v.placeholder(*item.placeholders), mm_hash=item.identity,
                         **tagged)

    def receive(self, message: api.WireMessage) -> api.Delivered:
        features = [self._feature(item) for item in message.items]
        try:
            served = self.cache.get_and_update_features(features)
        except vllm_classes().miss_error as error:
            return api.Missed(miss_reply(error))
        except Exception as error:
            return crash(error)
        return api.Served(tuple(
            api.ModelInput(f.mm_hash, payload_of(f.data),
                           (int(f.mm_position.offset), int(f.mm_position.length)))
            for f in served))

    def clear(self) -> api.Fault | None:
        return clear_cache(self.cache)

    def restart(self) -> api.Fault | None:
        self.__post_init__()
        return None

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        return tuple(api.ReceiverEntry(key, size, *receiver_value(value))
                     for key, size, value in ordered_entries(self.cache))

    def close(self) -> None:
        pass


@dataclass
class VllmAdapter:
    """`Adapter` for one supported vLLM release: the variant it implements, nothing else.
    `--emit-pytest` writes its files in vLLM's own calls (`pytest_calls`)."""

    version: str
    server: bool = False
    """The async server's reply handling (the renderer's queue), else the offline engine's."""
    name: str = field(init=False)
    pytest_calls: ClassVar[VllmCalls] = VLLM_CALLS

    def __post_init__(self) -> None:
        self.name = f"vllm {self.version}" + (" (async server)" if self.server else "")

    def supports(self, variant: str) -> bool:
        return variant == variant_of(self.version)

    def front_end(self, setup: api.Setup, index: int) -> VllmFrontEnd:
        return (VllmAsyncFrontEnd if self.server else VllmFrontEnd)(setup, index)

    def engine(self, setup: api.Setup) -> VllmEngine:
        return VllmEngine(setup)


def factory() -> VllmAdapter:
    """The installed vLLM release's caches, as the offline engine drives them
    (`UnsupportedVllm`, one line, for any other release)."""
    return VllmAdapter(require_supported())


def async_factory() -> VllmAdapter:
    """The installed release's caches, as the async server drives them."""
    return VllmAdapter(require_supported(), server=True)
