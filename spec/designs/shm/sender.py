"""P0, the store's single writer, processing one request as vLLM 0.33.0's sender cache does:
touch every key the request names (a touched chunk is not freed while the request is
processed), then per item either a hit (the key's chunk: one more issued handle), a put (a
new chunk, freeing old ones FIFO if the ring is full), or the item inline (over the object
size limit, or no room even after freeing); then release the touches.
"""

from __future__ import annotations

from dataclasses import replace

from spec.config import Content
from spec.designs.shm import ring as ring_ops
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.state import Chunk, Handle, Inline, Ring, ShmState, Slot, WireItem


def process(config: ShmConfig, state: ShmState, contents: tuple[Content, ...]
            ) -> tuple[ShmState, tuple[WireItem, ...]]:
    """The state after P0 processed a request of `contents`, and the items it sends."""
    touched = frozenset(c.id for c in state.ring.chunks
                        if c.key in {content.identity for content in contents})
    items: list[WireItem] = []
    for content in contents:
        state, item = _update(config, state, content, touched)
        touched -= {item.id} if isinstance(item, Handle) else set()
        items.append(item)
    if not config.enables("C1"):  # only a client that sends handles back needs them kept
        return state, tuple(items)
    issued = state.issued | {i for i in items if isinstance(i, Handle)}
    return state.evolve(issued=issued), tuple(items)


def _update(config: ShmConfig, state: ShmState, content: Content, touched: frozenset[int]
            ) -> tuple[ShmState, WireItem]:
    chunk = state.ring.chunk_of(content.identity)
    if chunk is not None:
        return _hit(state, chunk)
    return _put(config, state, content, touched)


def _hit(state: ShmState, chunk: Chunk) -> tuple[ShmState, WireItem]:
    """A cached key: its chunk gets one more issued handle; the placeholders are P0's own,
    from when the chunk was put (so they pair with the chunk's object, whatever the client
    sent now)."""
    counted = replace(chunk, writers=chunk.writers + 1)
    ring = replace(state.ring, chunks=_replace_chunk(state.ring.chunks, counted))
    handle = Handle(chunk.key, chunk.address, chunk.id, ring.epoch, chunk.content)
    return state.evolve(ring=ring), handle


def _put(config: ShmConfig, state: ShmState, content: Content, touched: frozenset[int]
         ) -> tuple[ShmState, WireItem]:
    if config.size(content) > config.max_object_bytes:
        return state, Inline(content.identity, content)
    nbytes = config.chunk_bytes(content)
    ring = state.ring
    wraps = config.knobs.wraps_short_lap
    placed = ring_ops.allocate(ring, nbytes, config.ring_bytes, wraps=wraps)
    if placed is None:
        reads = ring_ops.reads_of(state.memory, ring.chunks, config.ring_bytes)
        ring = ring_ops.free(ring, reads, config.readers, touched,
                             2 * config.max_object_bytes, config.ring_bytes,
                             frees_pinned=config.knobs.frees_pinned)
        placed = ring_ops.allocate(ring, nbytes, config.ring_bytes, wraps=wraps)
    if placed is None:
        # the freeing stands even though the put failed: the freed keys are gone from P0
        return state.evolve(ring=ring), Inline(content.identity, content)
    ring, address, chunk_id = placed
    chunk = Chunk(chunk_id, address, content.identity, content, nbytes, writers=1)
    ring = replace(ring, chunks=(*ring.chunks, chunk))
    slot = Slot(address % config.ring_bytes, chunk_id, nbytes, content)
    memory = ring_ops.write(state.memory, slot)
    return state.evolve(ring=ring, memory=memory), Handle(
        content.identity, address, chunk_id, ring.epoch, content)


def accepts(ring: Ring, handle: Handle) -> bool:
    """P0's check of a handle a client sends back: it is the key's current chunk and signed
    with the current secret (vLLM's `validate_input_item`)."""
    chunk = ring.chunk_of(handle.key)
    return (chunk is not None and (chunk.address, chunk.id) == (handle.address, handle.id)
            and handle.epoch == ring.epoch)


def count_client_handle(ring: Ring, handle: Handle) -> Ring:
    """The ring after an accepted client handle counts as issued (a mutant's behaviour)."""
    chunk = ring.chunk_of(handle.key)
    assert chunk is not None
    counted = replace(chunk, writers=chunk.writers + 1)
    return replace(ring, chunks=_replace_chunk(ring.chunks, counted))


def clear(ring: Ring) -> Ring:
    """P0's clear: no live chunk, the data range empty, ids kept increasing (a handle issued
    before fails the id check once its address is reused)."""
    return replace(ring, chunks=(), id_start=ring.id_end, data_start=0, data_end=0)


def _replace_chunk(chunks: tuple[Chunk, ...], new: Chunk) -> tuple[Chunk, ...]:
    return tuple(new if c.id == new.id else c for c in chunks)
