"""The actions of the shared-memory design. Each is a frozen value with `guard` and `apply`;
an action that represents a drift source names it in `requires` and exists only in an
environment that enables it.

- `Submit`: a client request, processed by P0 in one step (the touches, updates and release
  of one request run in one synchronous call).
- `ClientHandle` (C1): a request that carries a handle P0 issued earlier, which P0 accepts
  if it is still the key's current chunk, and passes on.
- `Execute`: the engine executes the oldest sent request (any one under D1).
- `Reject` (D2): a request P0 processed never reaches the workers (rejected before it is
  sent, or aborted while it waits).
- `Check`, `Copy`: one worker reads the next executed request item by item: it checks an
  item's handle (`Check`), then copies the item out of the shared memory and counts the read
  (`Copy`), with any other step in between (`readers`); workers are separate processes, so
  one may lag behind another by any number of requests.
- `Preempt` (R1): the engine preempts a request it scheduled and later schedules it again as
  a new request, with the handles it came with: every worker reads them again.
- `ClearP0` (D3): P0's clear (`reset_mm_cache`, `/sleep`, `pause_generation` with its
  default cache clear); a worker's clear does nothing to the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import ClassVar

from spec.config import Content
from spec.designs.shm import sender
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.readers import check_item, copy_item, next_item
from spec.designs.shm.state import Handle, Message, ShmState


@dataclass(frozen=True, slots=True)
class Submit:
    contents: tuple[Content, ...]
    requires: ClassVar[str | None] = None

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        return state.requests < config.max_requests

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        after, items = sender.process(config, state, self.contents)
        message = Message(state.requests, items, self.contents)
        return after.evolve(requests=state.requests + 1, queued=(*after.queued, message))


@dataclass(frozen=True, slots=True)
class ClientHandle:
    handle: Handle
    requires: ClassVar[str | None] = "C1"

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        return (state.requests < config.max_requests and self.handle in state.issued
                and sender.accepts(state.ring, self.handle))

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        ring = state.ring
        if config.knobs.client_handle_counts:
            ring = sender.count_client_handle(ring, self.handle)
        message = Message(state.requests, (self.handle,), (self.handle.placeholders,))
        return state.evolve(ring=ring, requests=state.requests + 1,
                            queued=(*state.queued, message))


@dataclass(frozen=True, slots=True)
class Execute:
    index: int
    requires: ClassVar[str | None] = None

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        in_order = self.index == 0 or config.enables("D1")
        return in_order and 0 <= self.index < len(state.queued)

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        message = state.queued[self.index]
        queued = state.queued[:self.index] + state.queued[self.index + 1:]
        scheduled = (*state.scheduled, message) if config.enables("R1") else state.scheduled
        return state.evolve(queued=queued, executed=(*state.executed, message),
                            scheduled=scheduled)


@dataclass(frozen=True, slots=True)
class Reject:
    index: int
    requires: ClassVar[str | None] = "D2"

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        return 0 <= self.index < len(state.queued)

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        return state.evolve(queued=state.queued[:self.index] + state.queued[self.index + 1:])


@dataclass(frozen=True, slots=True)
class Check:
    """Worker `worker` checks the handle of the item it is at (signature, then the header's
    id): enabled where that item is a handle not yet checked, and the read is split."""

    worker: int
    requires: ClassVar[str | None] = None

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        if not (config.knobs.split_read and 0 <= self.worker < config.readers):
            return False
        found = next_item(state, self.worker)
        return (found is not None and isinstance(found[1], Handle)
                and not state.progress[self.worker].checked)

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        return check_item(config, state, self.worker)


@dataclass(frozen=True, slots=True)
class Copy:
    """Worker `worker` copies the item it is at and counts the read: enabled where that item
    is inline, or a handle it checked (any handle when the read is not split)."""

    worker: int
    requires: ClassVar[str | None] = None

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        if not 0 <= self.worker < config.readers:
            return False
        found = next_item(state, self.worker)
        return found is not None and (not isinstance(found[1], Handle)
                                      or not config.knobs.split_read
                                      or state.progress[self.worker].checked)

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        return copy_item(config, state, self.worker)


@dataclass(frozen=True, slots=True)
class Preempt:
    """The engine preempts the request of `scheduled[index]` and schedules it again: with a
    multiprocess executor and the V2 model runner (vLLM's scheduler sends a resumed request
    to the workers as a new one, and `strip_covered_mm_data` keeps its handles), its message
    reaches every worker once more. Each request is preempted at most once here (a bound of
    the instance: a second preemption reads the same handles again)."""

    index: int
    requires: ClassVar[str | None] = "R1"

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        return 0 <= self.index < len(state.scheduled)

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        message = state.scheduled[self.index]
        scheduled = state.scheduled[:self.index] + state.scheduled[self.index + 1:]
        return state.evolve(executed=(*state.executed, message), scheduled=scheduled)


@dataclass(frozen=True, slots=True)
class ClearP0:
    requires: ClassVar[str | None] = "D3"

    def guard(self, config: ShmConfig, state: ShmState) -> bool:
        return bool(state.ring.chunks) or state.ring.data_end > 0

    def apply(self, config: ShmConfig, state: ShmState) -> ShmState:
        return state.evolve(ring=sender.clear(state.ring))


ShmAction = Submit | ClientHandle | Execute | Reject | Check | Copy | Preempt | ClearP0
ACTION_TYPES: tuple[type[ShmAction], ...] = (Submit, ClientHandle, Execute, Reject, Check,
                                               Copy, Preempt, ClearP0)


def candidates(config: ShmConfig, state: ShmState) -> list[ShmAction]:
    """Every action of a type the environment enables, before guards, in a fixed order."""
    found: list[ShmAction] = []
    for size in range(1, config.max_items + 1):
        found += [Submit(c) for c in product(config.contents(), repeat=size)]
    if config.enables("C1"):
        found += [ClientHandle(h) for h in sorted(state.issued, key=repr)]
    found += [Execute(i) for i in range(len(state.queued))]
    if config.enables("D2"):
        found += [Reject(i) for i in range(len(state.queued))]
    found += [Check(w) for w in range(config.readers)]
    found += [Copy(w) for w in range(config.readers)]
    if config.enables("R1"):
        found += [Preempt(i) for i in range(len(state.scheduled))]
    if config.enables("D3"):
        found.append(ClearP0())
    return found
