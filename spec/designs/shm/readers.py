"""A worker of P1 reading one executed message, item by item, as vLLM 0.33.0's receiver cache
does: per handle item, `SingleWriterShmObjectStorage.get` checks the handle (its signature
under the store's current secret, then the chunk header's id at its address), then copies the
object out of the shared memory and counts the read in the chunk's in-use flag. The writer
takes no lock the worker holds, so P0 may write between the check and the copy: the two are
separate steps here (`check_item`, `copy_item`). A handle that fails its check raises inside
the worker: the engine dies. An inline item has nothing to check: its copy is its read.

What is folded: the receiver's touch phase (`touch_receiver_cache_item`, the same checks of
every handle before the first `get`) is the item's own check here. A check that fails at the
touch fails again at the item's `get` (ids only grow and a secret never comes back), and a
worker that raises anywhere in a message hands none of it to the model, so the touch changes
no outcome. The copy and the count are one step (the count lands in the slot copied).
"""

from __future__ import annotations

from dataclasses import replace

from spec.config import Content
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.state import (
    GARBAGE,
    Handle,
    Message,
    Progress,
    Read,
    ShmState,
    Slot,
    WireItem,
)


def handle_fault(config: ShmConfig, state: ShmState, handle: Handle) -> str | None:
    """Why the worker's check of `handle` raises, or None."""
    if handle.epoch != state.ring.epoch:
        return f"handle {handle.key}@{handle.address}#{handle.id}: invalid signature"
    slot = state.slot_at(handle.address % config.ring_bytes)
    if config.knobs.reader_checks_id and (slot is None or slot.id != handle.id):
        return f"handle {handle.key}@{handle.address}#{handle.id}: data modified or invalid"
    return None


def next_item(state: ShmState, worker: int) -> tuple[Message, WireItem] | None:
    """The message worker `worker` reads next and the item it is at, or None (nothing to read)."""
    if state.position[worker] >= len(state.executed):
        return None
    message = state.executed[state.position[worker]]
    return message, message.items[state.progress[worker].item]


def check_item(config: ShmConfig, state: ShmState, worker: int) -> ShmState:
    """The worker checks its next item's handle: faulted if the check raises, else the item
    is checked and its copy may follow."""
    found = next_item(state, worker)
    assert found is not None and isinstance(found[1], Handle)
    fault = handle_fault(config, state, found[1])
    if fault is not None:
        return state.evolve(fault=f"worker {worker}: {fault}")
    return _with_progress(state, worker, replace(state.progress[worker], checked=True))


def copy_item(config: ShmConfig, state: ShmState, worker: int) -> ShmState:
    """The worker copies its next item as the shared memory holds it now (and counts the
    read); after the message's last item, the message's reads are served (`last_reads`)
    and the worker moves to its next message. Under `split_read=False` (a mutant: the read
    as one atomic step) the handle's check runs in this same step."""
    found = next_item(state, worker)
    assert found is not None
    message, item = found
    progress = state.progress[worker]
    memory = state.memory
    sent = message.sent[progress.item]
    if isinstance(item, Handle):
        if not config.knobs.split_read:
            fault = handle_fault(config, state, item)
            if fault is not None:
                return state.evolve(fault=f"worker {worker}: {fault}")
        memory, tensor = read_slot(memory, item.address % config.ring_bytes,
                                    config.knobs.reader_counts_reads)
        read = Read(worker, message.rid, item.key, tensor, item.placeholders, sent)
    else:
        read = Read(worker, message.rid, item.key, item.content, item.content, sent)
    copied = (*progress.copied, read)
    after = state.evolve(memory=memory)
    if len(copied) < len(message.items):
        return _with_progress(after, worker, Progress(len(copied), False, copied))
    return _finish(_with_progress(after, worker, Progress()), worker, copied)


def _finish(state: ShmState, worker: int, served: tuple[Read, ...]) -> ShmState:
    """The worker read its message whole: it is served; a message every worker read retires."""
    position = list(state.position)
    position[worker] += 1
    executed = state.executed
    while executed and min(position) > 0:
        executed = executed[1:]
        position = [p - 1 for p in position]
    return state.evolve(executed=executed, position=tuple(position), last_reads=served)


def _with_progress(state: ShmState, worker: int, progress: Progress) -> ShmState:
    return state.evolve(progress=(*state.progress[:worker], progress,
                                  *state.progress[worker + 1:]))


def read_slot(memory: tuple[Slot, ...], physical: int, counts: bool
               ) -> tuple[tuple[Slot, ...], Content]:
    """The memory after one read of the slot at `physical` (counted in its in-use flag
    unless `counts` is off, a mutant), and the object read: the slot's content if intact,
    else overwritten bytes."""
    for index, slot in enumerate(memory):
        if slot.physical == physical:
            tensor = slot.content if slot.intact else GARBAGE
            counted = replace(slot, reads=slot.reads + int(counts))
            return (*memory[:index], counted, *memory[index + 1:]), tensor
    return memory, GARBAGE
