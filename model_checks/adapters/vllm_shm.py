"""vLLM's shared-memory object store under `conform --design shm`
(`model_checks.adapters.vllm_shm:factory`): one `ShmObjectStoreSenderCache` (P0, the writer)
and `config.readers` `ShmObjectStoreReceiverCache`s (the workers) over one shared-memory ring,
in this process, with a `multiprocessing.Lock` as the workers' shared lock.

The calls are the release's own:

- a submit is `is_cached` over the request's keys, then the release's
  `BaseMultiModalProcessor._merge_mm_kwargs` (touch every key, then `get_and_update_item` per
  item: a hit, a put, or the item back inline), then `release_sender_touches`, as
  `_cached_apply_hf_processor` does in its `finally`;
- a client handle is `validate_input_item` on an item rebuilt with the sender's own
  `address_as_item` from the (address, id, signature) P0 issued;
- a worker's read of an item is the receiver's `get_and_update_item`, run on a thread of its
  own and held (`PausedSerde`, the storage's deserializer wrapped) after `get`'s signature and
  id checks, before its copy: the model's `Check` runs it up to there, its `Copy` lets it
  copy and count, so P0's steps run between the two exactly as the spec's interleaving says.
  A `ValueError` from the check is the worker's fault (the engine dies). The receiver's touch
  phase (`get_and_update_features` checks every handle first) is not run: it repeats the
  checks `get` makes (`spec.designs.shm.readers`);
- P0's clear is `clear_cache`. Nothing else reaches into the store: every state a run
  reaches is one the release's own calls made (the design has no P0 restart: a second P0
  over a live segment is not something 0.33.0 does, `spec.designs.shm.design.REFUSED`).

The byte map (`ByteMap`): a model byte is `UNIT` (64) real bytes. An object of model size s
is a `MultiModalKwargsItem` holding one uint8 tensor (a marker, the identity's index, the
version, then zeros) whose length is chosen so that the store's buffer for it (4-byte in-use
flag + pickled metadata + msgpack data) is (s + 1) * UNIT - 8 bytes: its chunk, with the
ring's 8-byte header, is (s + 1) * UNIT, which is the model's s + header_bytes (1). The ring
is ring_bytes * UNIT (`mm_processor_cache_gb` = that / GiB, exact: a power of two divides
it). The object limit is (max_object_bytes + 1) * UNIT - 8 bytes, given as the float
`mm_shm_cache_max_object_size_mb` = that / MiB (vLLM types it int MiB, far too coarse; the
stand-in config carries the exact float, and the release multiplies it back exactly): an
object of model size s fits iff s <= max_object_bytes.

One thing the map cannot make exact: when the ring is full, P0 frees up to twice the object
limit, in real bytes 2 * ((m + 1) * UNIT - 8), which is not 2 * m model bytes. The free
stops at the same chunk on both sides when the target is at least the ring on both (2 * m >=
ring_bytes), or when at most one key can be stored (at most one live chunk); any other
configuration is refused (`Unmappable`), never run with a silently different free.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import multiprocessing
import os
import secrets
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from model_checks.adapters.vllm_release import require_supported
from model_checks.conform.design_lockstep import NotDriven, Unmappable
from model_checks.designs.shm_views import (
    ChunkView,
    HandleRef,
    RingView,
    SentItem,
    ServedItem,
    fault_kind,
)
from spec.config import Content
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.state import GARBAGE

UNIT = 64
"""Real bytes per model byte."""
RING_HEADER = 8
"""The ring's chunk header: a 4-byte id and a 4-byte size."""
MARKER = 0xA5
"""The first value of every object's tensor (anything else decodes as overwritten bytes)."""
_MODALITY = "image"
_NAMES = itertools.count()


@dataclass(frozen=True)
class VllmShmClasses:
    """The release's classes the adapter uses (imported once, on first use)."""

    sender: Any
    receiver: Any
    kwargs_item: Any
    field_elem: Any
    batched_field: Any
    feature: Any
    placeholder: Any
    processor: Any
    serde: Any
    gib: int
    mib: int


@functools.cache
def vllm_shm_classes() -> VllmShmClasses:
    """Import vLLM's shared-memory cache modules (a supported release, else `UnsupportedVllm`)."""
    require_supported()
    from vllm.distributed.device_communicators.shm_object_storage import MsgpackSerde
    from vllm.multimodal.cache.shm import (
        ShmObjectStoreReceiverCache,
        ShmObjectStoreSenderCache,
    )
    from vllm.multimodal.inputs import (
        MultiModalBatchedField,
        MultiModalFeatureSpec,
        MultiModalFieldElem,
        MultiModalKwargsItem,
        PlaceholderRange,
    )
    from vllm.multimodal.processing.processor import BaseMultiModalProcessor
    from vllm.utils.mem_constants import GiB_bytes, MiB_bytes

    return VllmShmClasses(ShmObjectStoreSenderCache, ShmObjectStoreReceiverCache,
                          MultiModalKwargsItem, MultiModalFieldElem, MultiModalBatchedField,
                          MultiModalFeatureSpec, PlaceholderRange, BaseMultiModalProcessor,
                          MsgpackSerde, int(GiB_bytes), int(MiB_bytes))


# -- the byte map ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ByteMap:
    """Model bytes -> the release's bytes for one configuration."""

    config: ShmConfig

    @property
    def ring(self) -> int:
        return self.config.ring_bytes * UNIT

    @property
    def max_object(self) -> int:
        return (self.config.max_object_bytes + self.config.header_bytes) * UNIT - RING_HEADER

    def buffer(self, size: int) -> int:
        """The store's buffer (flag + metadata + data) of an object of model size `size`."""
        return (size + self.config.header_bytes) * UNIT - RING_HEADER

    def to_model(self, real: int) -> int | float:
        """Real bytes in model bytes (a float where they are not a whole number of them)."""
        whole, rest = divmod(real, UNIT)
        return whole if rest == 0 else real / UNIT

    def lines(self) -> list[str]:
        sizes = sorted({1, *(s for _, s in self.config.object_bytes)})
        chunks = ", ".join(f"size {s} -> buffer {self.buffer(s)} B, chunk "
                           f"{self.buffer(s) + RING_HEADER} B" for s in sizes)
        return [f"byte map: 1 model byte = {UNIT} B; ring {self.config.ring_bytes} -> "
                f"{self.ring} B; header {self.config.header_bytes} -> {RING_HEADER} B ring "
                f"header + {UNIT * self.config.header_bytes - RING_HEADER} B of the object's "
                f"own buffer; max object {self.config.max_object_bytes} -> {self.max_object} B",
                f"  objects: {chunks}"]


def checked_map(config: ShmConfig) -> ByteMap:
    """The byte map of `config`; `Unmappable` where the free target differs (module doc)."""
    if config.header_bytes < 1:
        raise Unmappable("header_bytes must be >= 1 model byte to hold the ring's 8-byte "
                         "header and the in-use flag")
    storable = {c.identity for c in config.contents() if config.size(c) <= config.max_object_bytes}
    if 2 * config.max_object_bytes < config.ring_bytes and len(storable) > 1:
        raise Unmappable(f"P0 frees up to 2 x max_object_bytes = {2 * config.max_object_bytes} "
                         f"model bytes, less than the ring's {config.ring_bytes}, with "
                         f"{len(storable)} storable keys: the real target "
                         f"(2 x {ByteMap(config).max_object} B) is not that many units")
    return ByteMap(config)


# -- objects and placeholders ----------------------------------------------------------------


@dataclass(frozen=True)
class Placeholders:
    """The stand-in of a `ResolvedPromptUpdate`: the content it was made from; `item_idx` is
    the one attribute the release's `_recompute_cached_prompt_update` renumbers."""

    identity: str
    version: int
    item_idx: int = 0

    def content(self) -> Content:
        return Content(self.identity, self.version)


class MergeSelf:
    """The `self` the adapter passes to `BaseMultiModalProcessor._merge_mm_kwargs`: the
    release's own `_recompute_cached_prompt_update`."""

    def __init__(self, processor: Any) -> None:
        self._recompute_cached_prompt_update = functools.partial(
            processor._recompute_cached_prompt_update, self)


def item_of(tensor: torch.Tensor) -> Any:
    v = vllm_shm_classes()
    return v.kwargs_item({"pixel_values": v.field_elem(data=tensor, field=v.batched_field())})


def buffer_bytes(item: Any) -> int:
    """The store's buffer for `item`: 4-byte flag + pickled metadata + data (`put`'s sum)."""
    _, data_bytes, _, md_bytes = vllm_shm_classes().serde().serialize(item)
    return 4 + int(data_bytes) + int(md_bytes)


@functools.cache
def tensor_length(target: int) -> int:
    """The uint8 tensor length whose item's buffer is exactly `target` bytes."""
    for length in range(3, 4 * target):
        if buffer_bytes(item_of(torch.zeros(length, dtype=torch.uint8))) == target:
            return length
    raise Unmappable(f"no object's buffer takes exactly {target} bytes")


def encode(config: ShmConfig, content: Content, bytemap: ByteMap) -> Any:
    """The object of `content`: its identity and version in the tensor, padded to size."""
    tensor = torch.zeros(tensor_length(bytemap.buffer(config.size(content))), dtype=torch.uint8)
    tensor[:3] = torch.tensor([MARKER, config.identities.index(content.identity),
                               content.version])
    return item_of(tensor)


def decode(config: ShmConfig, item: Any) -> Content:
    """The content an object's tensor encodes (`GARBAGE` for bytes of no content)."""
    try:
        values = item["pixel_values"].data[:3].tolist()
        if values[0] == MARKER:
            return Content(config.identities[values[1]], values[2])
    except (KeyError, IndexError, AttributeError, TypeError):
        pass
    return GARBAGE


# -- the stand-in configuration --------------------------------------------------------------


@dataclass(frozen=True)
class MultimodalStandIn:
    mm_processor_cache_gb: float
    mm_shm_cache_max_object_size_mb: float


@dataclass(frozen=True)
class ModelStandIn:
    multimodal: MultimodalStandIn

    def get_multimodal_config(self) -> MultimodalStandIn:
        return self.multimodal


@dataclass(frozen=True)
class ParallelStandIn:
    world_size: int


@dataclass(frozen=True)
class VllmConfigStandIn:
    """The attributes of `VllmConfig` the two caches' constructors read."""

    parallel_config: ParallelStandIn
    model_config: ModelStandIn


def stand_in(config: ShmConfig, bytemap: ByteMap) -> VllmConfigStandIn:
    v = vllm_shm_classes()
    gb, mb = bytemap.ring / v.gib, bytemap.max_object / v.mib
    assert int(gb * v.gib) == bytemap.ring and mb * v.mib == bytemap.max_object
    return VllmConfigStandIn(ParallelStandIn(config.readers),
                             ModelStandIn(MultimodalStandIn(gb, mb)))


@contextlib.contextmanager
def buffer_name(name: str) -> Iterator[None]:
    """`VLLM_OBJECT_STORAGE_SHM_BUFFER_NAME` is `name` inside the block."""
    key = "VLLM_OBJECT_STORAGE_SHM_BUFFER_NAME"
    before = os.environ.get(key)
    os.environ[key] = name
    try:
        yield
    finally:
        if before is None:
            del os.environ[key]
        else:
            os.environ[key] = before


def fresh_name() -> str:
    return f"mc_shm_{os.getpid()}_{next(_NAMES)}_{secrets.token_hex(4)}"


# -- one instance under lockstep -------------------------------------------------------------

Message = tuple[tuple[str, Any, Content], ...]
"""What P0 sends for one request: per item its key, its kwargs item (a handle or the object)
and the content of its placeholders."""


class PausedSerde:
    """The storage's deserializer, held before each copy until `go` is set: `reached` is set
    once a `get` passed its checks and waits there."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.reached = threading.Event()
        self.go = threading.Event()

    def serialize(self, value: Any) -> Any:
        return self.inner.serialize(value)

    def deserialize(self, data: memoryview) -> Any:
        self.reached.set()
        self.go.wait()
        return self.inner.deserialize(data)


class ItemRead:
    """One worker's `get_and_update_item` of one item on a thread of its own, held between
    its checks and its copy (`PausedSerde`)."""

    def __init__(self, receiver: Any, item: Any, key: str) -> None:
        self.serde = PausedSerde(receiver._shm_cache.ser_de)
        self.receiver = receiver
        self.result: Any = None
        self.error: Exception | None = None
        self.done = threading.Event()
        receiver._shm_cache.ser_de = self.serde
        self.thread = threading.Thread(target=self._run, args=(item, key), daemon=True)
        self.thread.start()
        while not (self.serde.reached.wait(0.01) or self.done.is_set()):
            pass

    @property
    def held(self) -> bool:
        """The `get` passed its checks and waits before its copy."""
        return not self.done.is_set()

    def _run(self, item: Any, key: str) -> None:
        try:
            self.result = self.receiver.get_and_update_item(item, key)
        except Exception as error:  # reported by `finish`
            self.error = error
        finally:
            self.done.set()

    def finish(self) -> Any:
        """Let the copy run; the item read, or the error raised."""
        self.serde.go.set()
        self.thread.join()
        self.receiver._shm_cache.ser_de = self.serde.inner
        return self.result if self.error is None else self.error


class VllmShmSide:
    """P0 and the workers of one run (`model_checks.designs.shm_views.ShmSide`)."""

    def __init__(self, config: ShmConfig, bytemap: ByteMap) -> None:
        v = vllm_shm_classes()
        self.config, self.map = config, bytemap
        self.vllm_config = stand_in(config, bytemap)
        self.name = fresh_name()
        self.lock = multiprocessing.Lock()
        self.epoch = 0
        self.issued: dict[HandleRef, tuple[int, int, list[int]]] = {}
        self.held: dict[int, ItemRead] = {}
        with buffer_name(self.name):
            self.sender = v.sender(self.vllm_config)
            self.receivers = [v.receiver(self.vllm_config, self.lock)
                              for _ in range(config.readers)]
        opened = self.sender._shm_cache.ring_buffer.shared_memory.name.lstrip("/")
        if opened != self.name:
            self.close()
            raise RuntimeError(f"the store opened {opened!r}, not {self.name!r}: vLLM's "
                               f"environment variables are cached")

    def submit(self, contents: Sequence[Content]) -> tuple[Message, tuple[SentItem, ...]]:
        """`is_cached`, the release's `_merge_mm_kwargs`, then `release_sender_touches`."""
        v = vllm_shm_classes()
        keys = [c.identity for c in contents]
        cached = self.sender.is_cached(keys)
        missing = [(i, c) for i, (c, hit) in enumerate(zip(contents, cached, strict=True))
                   if not hit]
        try:
            kwargs, updates = v.processor._merge_mm_kwargs(
                MergeSelf(v.processor), self.sender, mm_hashes={_MODALITY: keys},
                mm_is_cached={_MODALITY: cached},
                mm_missing_kwargs={_MODALITY: [encode(self.config, c, self.map)
                                               for _, c in missing]},
                mm_missing_prompt_updates={_MODALITY: [[Placeholders(c.identity, c.version, i)]
                                                       for i, c in missing]})
        finally:
            self.sender.release_sender_touches()
        message = tuple((key, item, update[0].content()) for key, item, update in
                        zip(keys, kwargs[_MODALITY], updates[_MODALITY], strict=True))
        return message, tuple(self._sent(key, item, p) for key, item, p in message)

    def _sent(self, key: str, item: Any, placeholders: Content) -> SentItem:
        if "address" not in item:
            return SentItem(key, False, None, None, decode(self.config, item), placeholders)
        address, chunk_id = int(item["address"].data), int(item["monotonic_id"].data)
        model_address = self.map.to_model(address)
        if isinstance(model_address, int):
            ref = HandleRef(key, model_address, chunk_id, self.epoch)
            self.issued[ref] = (address, chunk_id, list(item["signature"].data))
        return SentItem(key, True, model_address, chunk_id, None, placeholders)

    def _rebuilt(self, ref: HandleRef) -> Any:
        """The handle's item as a client sends it back (the sender's own `address_as_item`)."""
        if ref not in self.issued:
            raise NotDriven(f"P0 never issued a handle {ref}")
        return self.sender.address_as_item(*self.issued[ref])

    def client_handle(self, handle: HandleRef, placeholders: Content
                      ) -> tuple[Message | None, str | None]:
        item = self._rebuilt(handle)
        try:
            self.sender.validate_input_item(item, handle.key)
        except ValueError as error:
            return None, f"validate_input_item raised ValueError: {error}"
        return ((handle.key, item, placeholders),), None

    def accepts(self, handle: HandleRef) -> bool:
        """`validate_input_item` of `handle` (False for one P0 never issued)."""
        try:
            self.sender.validate_input_item(self._rebuilt(handle), handle.key)
        except (ValueError, NotDriven):
            return False
        return True

    def check(self, worker: int, message: Message, index: int) -> str | None:
        """The worker's `get_and_update_item` of the item, run up to its copy; a ValueError
        from its checks is the worker's fault."""
        key, item, _ = message[index]
        held = ItemRead(self.receivers[worker], item, key)
        if held.held:
            self.held[worker] = held
            return None
        error = held.finish()
        if isinstance(error, ValueError):
            return fault_kind(str(error))
        return f"{type(error).__name__}: {error}" if isinstance(error, Exception) else None

    def copy(self, worker: int, message: Message, index: int, sent: Content) -> ServedItem:
        """The held `get` copies and counts (an inline item: `get_and_update_item` returns
        it as it came)."""
        key, item, placeholders = message[index]
        held = self.held.pop(worker, None)
        result = held.finish() if held is not None else (
            self.receivers[worker].get_and_update_item(item, key))
        if isinstance(result, Exception):
            raise result
        return ServedItem(key, decode(self.config, result), placeholders, sent)

    def clear(self) -> None:
        self.sender.clear_cache()

    def ring(self) -> RingView:
        """P0's ring: its metadata, and each live chunk's flag as `default_is_free_check`
        judges it."""
        storage = self.sender._shm_cache
        ring = storage.ring_buffer
        chunks = tuple(self._chunk(storage, chunk_id, ring.metadata[chunk_id])
                       for chunk_id in sorted(ring.metadata))
        return RingView(chunks, ring.monotonic_id_start, ring.monotonic_id_end,
                        self.map.to_model(ring.data_buffer_start),
                        self.map.to_model(ring.data_buffer_end))

    def _chunk(self, storage: Any, chunk_id: int, address: int) -> ChunkView:
        with storage.ring_buffer.access_buf(address) as (buf, (_, size)):
            reads = int.from_bytes(buf[:storage.flag_bytes], "little", signed=True)
            freeable = bool(storage.default_is_free_check(chunk_id, buf))
            content = decode(self.config, storage.ser_de.deserialize(buf[storage.flag_bytes:]))
        return ChunkView(chunk_id, self.map.to_model(address), storage.id_index[chunk_id],
                         content, self.map.to_model(size), storage.writer_flag[chunk_id],
                         reads, freeable)

    def close(self) -> None:
        """Let every held read finish, then close every mapping; the sender's close unlinks
        the segment."""
        for held in getattr(self, "held", {}).values():
            held.finish()
        for cache in (*getattr(self, "receivers", ()), getattr(self, "sender", None)):
            if cache is not None:
                with contextlib.suppress(BufferError):
                    cache._shm_cache.ring_buffer.close()


class VllmShmAdapter:
    """`model_checks.designs.shm_views.ShmAdapter` over the installed release."""

    def __init__(self, version: str) -> None:
        self.name = f"vllm {version} shm"

    def byte_map(self, config: ShmConfig) -> list[str]:
        return checked_map(config).lines()

    def start(self, config: ShmConfig) -> VllmShmSide:
        return VllmShmSide(config, checked_map(config))


def factory() -> VllmShmAdapter:
    """The adapter over the installed vLLM (a supported release, else `UnsupportedVllm`)."""
    from model_checks.adapters.vllm_release import installed_version

    vllm_shm_classes()
    return VllmShmAdapter(installed_version() or "?")
