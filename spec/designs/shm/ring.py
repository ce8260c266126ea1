"""The ring's arithmetic, as vLLM 0.33.0's single-writer ring buffer does it: allocation at
the data end (wrapping to the next lap when the rest of this lap is too short), FIFO freeing
from the id start that stops at the first chunk still in use, and writes that overwrite
whatever the shared memory held there.

Addresses are logical: the physical offset is `address % ring_bytes`; the data range is
shifted down by one lap when its start passes the end of the buffer, while the addresses
recorded for chunks (and signed into handles) are not.
"""

from __future__ import annotations

from dataclasses import replace

from spec.designs.shm.state import Chunk, Ring, Slot


def allocate(ring: Ring, nbytes: int, ring_bytes: int, *, wraps: bool = True
             ) -> tuple[Ring, int, int] | None:
    """(the ring after, address, id) of a new chunk of `nbytes`, or None where the ring has no
    contiguous room for it (vLLM raises MemoryError). The chunk itself is not recorded.
    `wraps=False` (a mutant) places it at the data end even where the lap is too short."""
    lap_offset = ring.data_end % ring_bytes
    if wraps and lap_offset + nbytes > ring_bytes:
        start = (ring.data_end // ring_bytes + 1) * ring_bytes
    else:
        start = ring.data_end
    if start + nbytes - ring.data_start > ring_bytes:
        return None
    after = replace(ring, data_end=start + nbytes, id_end=ring.id_end + 1)
    return after, start, ring.id_end


def free(ring: Ring, reads: dict[int, int], readers: int, protected: frozenset[int],
         nbytes: int, ring_bytes: int, *, frees_pinned: bool = False) -> Ring:
    """Free chunks from the id start, oldest first, until `nbytes` are freed or a chunk is in
    use: protected (touched by the request P0 is processing), or read fewer times than
    `writers * readers` (`reads[id]`: the reads its slot records). `frees_pinned` (a mutant)
    ignores the reads: only a protected chunk stops it."""
    freed = 0
    chunks = ring.chunks
    start, id_start, end = ring.data_start, ring.id_start, ring.data_end
    while chunks and chunks[0].id == id_start and freed < nbytes:
        oldest = chunks[0]
        pinned = reads.get(oldest.id, 0) < oldest.writers * readers and not frees_pinned
        if oldest.id in protected or pinned:
            break
        chunks = chunks[1:]
        id_start += 1
        if chunks and chunks[0].id == id_start:
            start += (chunks[0].address - start) % ring_bytes
        else:
            start = end = 0
        freed += oldest.nbytes
    if start >= ring_bytes:
        start -= ring_bytes
        end -= ring_bytes
    return replace(ring, chunks=chunks, data_start=start, data_end=end, id_start=id_start)


def write(memory: tuple[Slot, ...], slot: Slot) -> tuple[Slot, ...]:
    """The shared memory after `slot` is written: a header inside the new chunk is gone (its
    bytes are the new chunk's), a chunk whose data the new one overlaps keeps its header but
    not its object."""
    low, high = slot.physical, slot.physical + slot.nbytes
    kept = []
    for old in memory:
        if low <= old.physical < high:
            continue
        if old.physical < low < old.physical + old.nbytes:
            old = replace(old, intact=False)
        kept.append(old)
    return tuple(sorted([*kept, slot], key=lambda s: s.physical))


def reads_of(memory: tuple[Slot, ...], chunks: tuple[Chunk, ...], ring_bytes: int
             ) -> dict[int, int]:
    """The reads each live chunk's slot records (0 where its header is gone)."""
    by_physical = {s.physical: s for s in memory}
    found = {}
    for chunk in chunks:
        slot = by_physical.get(chunk.address % ring_bytes)
        found[chunk.id] = slot.reads if slot is not None and slot.id == chunk.id else 0
    return found
