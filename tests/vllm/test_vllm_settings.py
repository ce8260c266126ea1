"""The doctor's reading of vLLM's settings (`Deployment.pairing`) against the release's own
cache factories (`vllm.multimodal.cache.factories`): which cache P0 and P1 build for an API
server count, a data-parallel size with internal or external load balancing, and a cache
size of 0. So "several API servers: no pairing (D5 avoided)" is the release's behaviour,
not a claim of ours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from model_checks.doctor.facts import Deployment

pytestmark = pytest.mark.vllm


@dataclass
class ParallelConfig:
    _api_process_count: int
    data_parallel_size: int
    data_parallel_external_lb: bool


@dataclass
class ModelConfig:
    multimodal: Any
    supports_multimodal_inputs: bool = True

    def get_multimodal_config(self) -> Any:
        return self.multimodal


@dataclass
class VllmConfig:
    """What the factories read of `vllm.config.VllmConfig`."""

    model_config: ModelConfig
    parallel_config: ParallelConfig


def built(deployment: Deployment) -> tuple[str | None, str | None]:
    """The class names of the caches vLLM builds on P0 and on the engine core."""
    from vllm.config import MultiModalConfig
    from vllm.multimodal.cache import (
        engine_receiver_cache_from_config,
        processor_cache_from_config,
    )

    config = VllmConfig(
        ModelConfig(MultiModalConfig(mm_processor_cache_gb=deployment.cache_gb,
                                     mm_processor_cache_type="lru")),
        ParallelConfig(deployment.api_servers, deployment.data_parallel,
                       deployment.external_lb))
    p0, p1 = processor_cache_from_config(config), engine_receiver_cache_from_config(config)
    return (None if p0 is None else type(p0).__name__, None if p1 is None else type(p1).__name__)


PAIRED = ("LruKeyReplicatedSenderCache", "LruKeyReplicatedReceiverCache")
EXPECTED = {"lru": PAIRED, "processor_only": ("MultiModalProcessorOnlyCache", None),
            "none": (None, None)}


@pytest.mark.parametrize("deployment", [
    Deployment(cache_gb=1e-3), Deployment(api_servers=2, cache_gb=1e-3),
    Deployment(data_parallel=2, cache_gb=1e-3),
    Deployment(data_parallel=2, external_lb=True, cache_gb=1e-3), Deployment(cache_gb=0),
], ids=["one-server", "two-api-servers", "dp2-internal-lb", "dp2-external-lb", "cache-off"])
def test_vllm_the_doctors_pairing_is_the_caches_the_release_builds(
    deployment: Deployment,
) -> None:
    assert built(deployment) == EXPECTED[deployment.pairing()]
