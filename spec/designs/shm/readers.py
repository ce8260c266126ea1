"""A worker of P1 reading one executed message, as vLLM 0.33.0's receiver cache does: first
every handle is checked (its signature under the store's current secret, then the chunk
header's id at its address), then every item is read; a read counts in the chunk's in-use
flag. A handle that fails a check raises inside the worker: the engine dies.
"""

from __future__ import annotations

from dataclasses import replace

from spec.config import Content
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.state import GARBAGE, Handle, Message, Read, ShmState, Slot


def handle_fault(config: ShmConfig, state: ShmState, handle: Handle) -> str | None:
    """Why the worker's check of `handle` raises, or None."""
    if handle.epoch != state.ring.epoch:
        return f"handle {handle.key}@{handle.address}#{handle.id}: invalid signature"
    slot = state.slot_at(handle.address % config.ring_bytes)
    if config.knobs.reader_checks_id and (slot is None or slot.id != handle.id):
        return f"handle {handle.key}@{handle.address}#{handle.id}: data modified or invalid"
    return None


def read(config: ShmConfig, state: ShmState, worker: int, message: Message) -> ShmState:
    """The state after `worker` read `message` (faulted if a check raised)."""
    for item in message.items:
        if isinstance(item, Handle):
            fault = handle_fault(config, state, item)
            if fault is not None:
                return state.evolve(fault=f"worker {worker}: {fault}")
    memory = state.memory
    reads = []
    for item, sent in zip(message.items, message.sent, strict=True):
        if isinstance(item, Handle):
            memory, tensor = _read_slot(memory, item.address % config.ring_bytes,
                                        config.knobs.reader_counts_reads)
            reads.append(Read(worker, message.rid, item.key, tensor, item.placeholders, sent))
        else:
            reads.append(Read(worker, message.rid, item.key, item.content, item.content, sent))
    return state.evolve(memory=memory, last_reads=tuple(reads))


def _read_slot(memory: tuple[Slot, ...], physical: int, counts: bool
               ) -> tuple[tuple[Slot, ...], Content]:
    """The memory after one read of the slot at `physical` (counted in its in-use flag
    unless `counts` is off, a mutant), and the object read."""
    for index, slot in enumerate(memory):
        if slot.physical == physical:
            tensor = slot.content if slot.intact else GARBAGE
            counted = replace(slot, reads=slot.reads + int(counts))
            return (*memory[:index], counted, *memory[index + 1:]), tensor
    return memory, GARBAGE
