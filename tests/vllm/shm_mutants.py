"""Planted faults in the shared-memory adapter's release (`--adapter
tests.vllm.shm_mutants:<name>`), each one mechanism of the release undone, for the lockstep to
catch:

- `skip_id_check`: the workers' storage never compares the chunk header's id with the
  handle's (`_validate_monotonic_id` does nothing), so a handle to a reused address reads
  whatever chunk is there now;
- `count_client_handles`: P0 counts a client handle it accepts as one more issued handle (its
  writer flag), which no worker's read pays for.
"""

from __future__ import annotations

from typing import Any

from model_checks.adapters.vllm_shm import Message, VllmShmAdapter, VllmShmSide
from model_checks.designs.shm_views import HandleRef
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
