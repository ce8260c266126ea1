"""The state of the shared-memory design: the writer's ring metadata, the shared memory's
chunks, the messages on their way to the workers, and what each worker has read.

The writer's view (`Ring`) and the shared memory (`Slot`) are kept apart because they can
disagree: a clear drops the writer's metadata while the bytes stay in memory
until a new chunk overwrites them, and a handle issued before stays in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from spec.config import Content

GARBAGE = Content("<overwritten>", -1)
"""What a reader gets from a chunk whose data a later chunk overwrote: bytes of no content."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """The writer's record of one live chunk: P0's key index and its in-use flag.
    `address` is the ring's logical address (the physical one is `address % ring_bytes`);
    `writers` counts the handles P0 issued for it (vLLM's writer flag)."""

    id: int
    address: int
    key: str
    content: Content
    nbytes: int
    writers: int


@dataclass(frozen=True, slots=True)
class Slot:
    """A chunk as the shared memory holds it: its header (id, size) at `physical`, its object,
    and the readers' reads of it (the in-use flag, stored in the chunk). `intact` is False
    once a later chunk overwrote part of its data but not its header."""

    physical: int
    id: int
    nbytes: int
    content: Content
    reads: int = 0
    intact: bool = True


@dataclass(frozen=True, slots=True)
class Handle:
    """A wire item that names a chunk: key, logical address, id, and the secret epoch its
    signature was made with; `placeholders` is the content P0's placeholders come from."""

    key: str
    address: int
    id: int
    epoch: int
    placeholders: Content


@dataclass(frozen=True, slots=True)
class Inline:
    """A wire item that carries its object (the ring could not or would not take it)."""

    key: str
    content: Content


WireItem = Handle | Inline


@dataclass(frozen=True, slots=True)
class Message:
    """One request as P0 sent it; `sent` is what the client asked for, item by item."""

    rid: int
    items: tuple[WireItem, ...]
    sent: tuple[Content, ...]


@dataclass(frozen=True, slots=True)
class Read:
    """One item one worker handed to the model: the object it read and the placeholders."""

    worker: int
    rid: int
    key: str
    tensor: Content
    placeholders: Content
    sent: Content


@dataclass(frozen=True, slots=True)
class Progress:
    """How far one worker is inside its next executed message: `item` items copied (the
    reads they served in `copied`), and whether the next item's handle passed its check, so
    that its copy may follow (the release's `get`: the id check, then the copy, with no lock
    the writer takes in between)."""

    item: int = 0
    checked: bool = False
    copied: tuple[Read, ...] = ()


@dataclass(frozen=True, slots=True)
class Ring:
    """The writer's ring: live chunks in id order, the id range and the data range (logical
    addresses; `data_start <= data_end`), and the signing secret's epoch."""

    chunks: tuple[Chunk, ...] = ()
    id_start: int = 0
    id_end: int = 0
    data_start: int = 0
    data_end: int = 0
    epoch: int = 0

    def chunk_of(self, key: str) -> Chunk | None:
        return next((c for c in self.chunks if c.key == key), None)


@dataclass(frozen=True, slots=True)
class ShmState:
    """The whole system. `queued`: sent, not yet executed by the engine; `executed`: executed,
    in order, until every worker has read them; `position[w]`: how many of `executed` worker
    `w` has read; `progress[w]`: how far it is inside the next one. `scheduled`: the
    executed messages whose request the engine may still preempt (kept under R1 only).
    `issued`: every handle P0 ever issued (a client may send one back). `fault`: why the
    engine died, if it did."""

    ring: Ring = Ring()
    memory: tuple[Slot, ...] = ()
    queued: tuple[Message, ...] = ()
    executed: tuple[Message, ...] = ()
    position: tuple[int, ...] = ()
    progress: tuple[Progress, ...] = ()
    scheduled: tuple[Message, ...] = ()
    requests: int = 0
    issued: frozenset[Handle] = frozenset()
    fault: str | None = None
    last_reads: tuple[Read, ...] = field(default=(), compare=False)
    """What the last step's reads served: read by the properties on arrival, and not part of
    the state's identity (nothing that follows depends on it), so two paths that differ only
    in what they last served meet in one state; a checker judges every transition's target,
    visited or not."""

    def evolve(self, **changes: object) -> ShmState:
        return replace(self, **changes)  # type: ignore[arg-type]

    def slot_at(self, physical: int) -> Slot | None:
        return next((s for s in self.memory if s.physical == physical), None)


def initial_state(readers: int) -> ShmState:
    return ShmState(position=(0,) * readers, progress=(Progress(),) * readers)
