"""Planted faults in the shared-memory adapter's release (`--adapter
tests.vllm.shm_mutants:<name>`), each one mechanism of the release undone, for the lockstep to
catch:

- `skip_id_check`: the workers' storage never compares the chunk header's id with the
  handle's (`_validate_monotonic_id` does nothing), so a handle to a reused address reads
  whatever chunk is there now;
- `count_client_handles`: P0 counts a client handle it accepts as one more issued handle (its
  writer flag), which no worker's read pays for;
- `atomic_read`: a worker's `get` runs whole at its check (the copy right after the id
  check, before P0 can write), as a lockstep that steps the two sides alternately would run
  it: the copy then returns what was read before P0's write.
"""

from __future__ import annotations

from typing import Any

from model_checks.adapters.vllm_shm import Message, VllmShmAdapter, VllmShmSide, decode
from model_checks.designs.shm_views import HandleRef, ServedItem
from spec.config import Content
from spec.designs.shm.config import ShmConfig


class SkipIdCheckSide(VllmShmSide):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        for receiver in self.receivers:
            receiver._shm_cache._validate_monotonic_id = lambda *_: None


class CountClientHandlesSide(VllmShmSide):
    def client_handle(self, handle: HandleRef, placeholders: Content
                      ) -> tuple[Message | None, str | None]:
        message, refused = super().client_handle(handle, placeholders)
        if message is not None:
            self.sender._shm_cache.increment_writer_flag(handle.id)
        return message, refused


class AtomicReadSide(VllmShmSide):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.read_early: dict[int, Any] = {}

    def check(self, worker: int, message: Message, index: int) -> str | None:
        fault = super().check(worker, message, index)
        held = self.held.pop(worker, None)
        if held is not None:
            self.read_early[worker] = held.finish()
        return fault

    def copy(self, worker: int, message: Message, index: int, sent: Content) -> ServedItem:
        key, _, placeholders = message[index]
        if worker not in self.read_early:
            return super().copy(worker, message, index, sent)
        return ServedItem(key, decode(self.config, self.read_early.pop(worker)), placeholders,
                          sent)


class MutantAdapter(VllmShmAdapter):
    def __init__(self, side: type[VllmShmSide], name: str) -> None:
        super().__init__("0.33.0")
        self.side, self.name = side, f"vllm 0.33.0 shm ({name})"

    def start(self, config: ShmConfig) -> VllmShmSide:
        from model_checks.adapters.vllm_shm import checked_map

        return self.side(config, checked_map(config))


def skip_id_check() -> MutantAdapter:
    return MutantAdapter(SkipIdCheckSide, "workers skip the id check")


def count_client_handles() -> MutantAdapter:
    return MutantAdapter(CountClientHandlesSide, "P0 counts client handles")


def atomic_read() -> MutantAdapter:
    return MutantAdapter(AtomicReadSide, "a worker's get runs whole at its check")
