"""The shared-memory design's own spec as an implementation side (`--adapter
tests.conform.shm_model_side:<name>`), to test the design's lockstep without vLLM: `factory`
is the release's mechanisms (`ShmKnobs()`), and each other factory undoes one of them, for
the lockstep to catch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from model_checks.conform.design_lockstep import NotDriven
from model_checks.designs.shm_views import (
    HandleRef,
    RingView,
    SentItem,
    ServedItem,
    fault_kind,
    spec_ring,
)
from spec.config import Content
from spec.designs.shm import SHM, sender
from spec.designs.shm.config import ShmConfig, ShmKnobs
from spec.designs.shm.readers import handle_fault, read_slot
from spec.designs.shm.state import Handle, Message, ShmState


class ModelSide:
    """P0 and the workers as the spec has them, under `config.knobs`."""

    def __init__(self, config: ShmConfig) -> None:
        self.config = config
        self.state: ShmState = SHM.initial(config)

    def submit(self, contents: Sequence[Content]) -> tuple[Message, tuple[SentItem, ...]]:
        self.state, items = sender.process(self.config, self.state, tuple(contents))
        sent = tuple(SentItem(i.key, True, i.address, i.id, None, i.placeholders)
                     if isinstance(i, Handle) else
                     SentItem(i.key, False, None, None, i.content, i.content) for i in items)
        return Message(0, items, tuple(contents)), sent

    def _handle(self, ref: HandleRef, placeholders: Content) -> Handle:
        return Handle(ref.key, ref.address, ref.id, ref.epoch, placeholders)

    def client_handle(self, handle: HandleRef, placeholders: Content
                      ) -> tuple[Message | None, str | None]:
        value = self._handle(handle, placeholders)
        if not sender.accepts(self.state.ring, value):
            return None, "refused"
        if self.config.knobs.client_handle_counts:
            self.state = self.state.evolve(ring=sender.count_client_handle(self.state.ring,
                                                                           value))
        return Message(0, (value,), (placeholders,)), None

    def accepts(self, handle: HandleRef) -> bool:
        return sender.accepts(self.state.ring, self._handle(handle, Content("?")))

    def check(self, worker: int, message: Message, index: int) -> str | None:
        item = message.items[index]
        if not isinstance(item, Handle):
            return None
        fault = handle_fault(self.config, self.state, item)
        return None if fault is None else fault_kind(fault)

    def copy(self, worker: int, message: Message, index: int, sent: Content) -> ServedItem:
        item = message.items[index]
        if not isinstance(item, Handle):
            return ServedItem(item.key, item.content, item.content, sent)
        memory, tensor = read_slot(self.state.memory, item.address % self.config.ring_bytes,
                                   self.config.knobs.reader_counts_reads)
        self.state = self.state.evolve(memory=memory)
        return ServedItem(item.key, tensor, item.placeholders, sent)

    def clear(self) -> None:
        self.state = self.state.evolve(ring=sender.clear(self.state.ring))

    def ring(self) -> RingView:
        return spec_ring(self.config, self.state)

    def close(self) -> None:
        pass


class ModelAdapter:
    def __init__(self, knobs: ShmKnobs, name: str) -> None:
        self.knobs, self.name = knobs, name

    def byte_map(self, config: ShmConfig) -> list[str]:
        return ["byte map: the model's own bytes"]

    def start(self, config: ShmConfig) -> ModelSide:
        return ModelSide(replace(config, knobs=self.knobs))


def factory() -> ModelAdapter:
    return ModelAdapter(ShmKnobs(), "the design's spec")


def no_id_check() -> ModelAdapter:
    return ModelAdapter(ShmKnobs(reader_checks_id=False), "workers skip the id check")


def counts_client_handles() -> ModelAdapter:
    return ModelAdapter(ShmKnobs(client_handle_counts=True), "P0 counts client handles")


class ForgetfulSide(ModelSide):
    """Keeps no record of the handles it issued: a client's handle cannot be driven."""

    def client_handle(self, handle: HandleRef, placeholders: Content
                      ) -> tuple[Message | None, str | None]:
        raise NotDriven(f"no record of {handle}")


class ForgetfulAdapter(ModelAdapter):
    def start(self, config: ShmConfig) -> ModelSide:
        return ForgetfulSide(replace(config, knobs=self.knobs))


def forgetful() -> ModelAdapter:
    return ForgetfulAdapter(ShmKnobs(), "a side without a record of its handles")
