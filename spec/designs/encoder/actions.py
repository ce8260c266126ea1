"""The actions of the encoder-cache design. Each is a frozen value with `guard` and `apply`;
an action that represents a drift source names it in `requires` and exists only in an
environment that enables it.

- `Arrive`: a request reaches the engine's scheduler with its items (identity, the content
  its data and its placeholders come from, the content the client sent). Standing alone,
  the client's content is all three; composed behind a processor cache, the cache decides.
- `Schedule`: one scheduling step for the oldest waiting request (any waiting one under D1):
  its next chunk of items, each a hit, a duplicate or an allocation (evicting unreferenced
  entries), or the guard's rejection of the request; the workers run the encoder for the
  allocations and the model consumes the chunk's encoder outputs.
- `Complete`: the chunk's tokens are computed: the request drops its references to them
  (oldest running request first; any under D1), and is done or waits for its next chunk.
- `Reset` (R1): `reset_encoder_cache`, the manager's and the workers' caches emptied in one
  call, while requests run.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import ClassVar

from spec.designs.encoder import manager
from spec.designs.encoder.config import EncoderConfig
from spec.designs.encoder.state import (
    Consumed,
    EncoderState,
    EngineRequest,
    Item,
    Outcome,
    Stage,
)


@dataclass(frozen=True, slots=True)
class Arrive:
    items: tuple[Item, ...]
    requires: ClassVar[str | None] = None

    def guard(self, config: EncoderConfig, state: EncoderState) -> bool:
        return len(state.requests) < config.max_requests and len(self.items) > 0

    def apply(self, config: EncoderConfig, state: EncoderState) -> EncoderState:
        request = EngineRequest(len(state.requests), self.items)
        return state.evolve(requests=(*state.requests, request))


def _first(state: EncoderState, stage: Stage) -> int | None:
    return next((r.rid for r in state.requests if r.stage is stage), None)


def _in_turn(config: EncoderConfig, state: EncoderState, rid: int, stage: Stage) -> bool:
    if not 0 <= rid < len(state.requests) or state.requests[rid].stage is not stage:
        return False
    return config.enables("D1") or rid == _first(state, stage)


@dataclass(frozen=True, slots=True)
class Schedule:
    rid: int
    requires: ClassVar[str | None] = None

    def guard(self, config: EncoderConfig, state: EncoderState) -> bool:
        if not _in_turn(config, state, self.rid, Stage.WAITING):
            return False
        planned = manager.plan(config, state, self.rid)
        return planned.rejected is not None or bool(planned.chunk)

    def apply(self, config: EncoderConfig, state: EncoderState) -> EncoderState:
        planned = manager.plan(config, state, self.rid)
        request = state.requests[self.rid]
        if planned.rejected is not None:
            after = manager.release_all(config, state, self.rid)
            return after.with_request(EngineRequest(
                request.rid, request.items, request.scheduled, Stage.DONE, Outcome.REJECTED))
        after = planned.state
        for index in planned.allocate:
            after = manager.allocate(config, after, self.rid, index)
        consumed = []
        for index in planned.chunk:
            item = request.items[index]
            entry = after.entry(item.identity)
            assert entry is not None, "a scheduled item has an entry"
            have, want = config.size(entry.output), config.size(item.placeholders)
            if have != want:
                return after.evolve(fault=f"request {self.rid} item {index} "
                                    f"({item.identity!r}): Attempted to assign {have} "
                                    f"multimodal tokens to {want} placeholders")
            consumed.append(Consumed(self.rid, item.identity, entry.output,
                                     item.placeholders, item.sent))
        running = EngineRequest(request.rid, request.items, request.scheduled,
                                Stage.RUNNING, None, planned.chunk)
        return after.with_request(running).evolve(last_consumed=tuple(consumed))


@dataclass(frozen=True, slots=True)
class Complete:
    rid: int
    requires: ClassVar[str | None] = None

    def guard(self, config: EncoderConfig, state: EncoderState) -> bool:
        return _in_turn(config, state, self.rid, Stage.RUNNING)

    def apply(self, config: EncoderConfig, state: EncoderState) -> EncoderState:
        request = state.requests[self.rid]
        after = state
        if config.knobs.frees_computed_inputs:
            for index in request.chunk:
                after = manager.release(config, after, request.items[index].identity,
                                        self.rid)
        scheduled = request.scheduled + len(request.chunk)
        done = scheduled == len(request.items)
        return after.with_request(EngineRequest(
            request.rid, request.items, scheduled, Stage.DONE if done else Stage.WAITING,
            Outcome.SUCCESS if done else None))


@dataclass(frozen=True, slots=True)
class Reset:
    requires: ClassVar[str | None] = "R1"

    def guard(self, config: EncoderConfig, state: EncoderState) -> bool:
        return bool(state.entries)

    def apply(self, config: EncoderConfig, state: EncoderState) -> EncoderState:
        return state.evolve(entries=(), freeable=())


EncoderAction = Arrive | Schedule | Complete | Reset
ACTION_TYPES: tuple[type[EncoderAction], ...] = (Arrive, Schedule, Complete, Reset)


def client_items(config: EncoderConfig) -> list[tuple[Item, ...]]:
    """Every request a client may send with no processor cache in front: its contents, each
    item's data and placeholders processed from the content sent."""
    found: list[tuple[Item, ...]] = []
    for size in range(1, config.max_items + 1):
        found += [tuple(Item(c.identity, c, c, c) for c in contents)
                  for contents in product(config.contents(), repeat=size)]
    return found


def candidates(config: EncoderConfig, state: EncoderState, *, arrivals: bool = True
               ) -> list[EncoderAction]:
    """Every action of a type the environment enables, before guards, in a fixed order
    (`arrivals=False`: without the client's arrivals, which a composition drives)."""
    found: list[EncoderAction] = []
    if arrivals:
        found += [Arrive(items) for items in client_items(config)]
    found += [Schedule(r.rid) for r in state.requests if r.stage is Stage.WAITING]
    found += [Complete(r.rid) for r in state.requests if r.stage is Stage.RUNNING]
    if config.enables("R1"):
        found.append(Reset())
    return found
