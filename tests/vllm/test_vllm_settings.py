"""The doctor's reading of vLLM's settings (`Deployment.pairing`) against the release's own
cache factories (`vllm.multimodal.cache.factories`): which cache P0 and P1 build for an API
server count, a data-parallel size with internal or external load balancing, and a cache
size of 0. So "several API servers: no pairing (D5 avoided)" is the release's behaviour,
not a claim of ours. Likewise the rows for D3, D4 and D6, read from the release's
source (parsed, not imported)."""

from __future__ import annotations

import ast
import importlib.metadata
from dataclasses import dataclass
from pathlib import Path
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


def _release_tree(path: str) -> ast.Module:
    """A module of the installed release, parsed (not imported)."""
    located = importlib.metadata.distribution("vllm").locate_file(path)
    return ast.parse(Path(str(located)).read_text())


def _method(tree: ast.Module, owner: str, name: str) -> ast.AST:
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == owner)
    return next(n for n in cls.body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name)


def _called(node: ast.AST) -> list[str]:
    """The attribute names called inside `node`, in source order."""
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute)]
    return [c.func.attr for c in sorted(calls, key=lambda c: (c.lineno, c.col_offset))
            if isinstance(c.func, ast.Attribute)]


@pytest.mark.parametrize(("path", "owner", "method"), [
    ("vllm/v1/engine/async_llm.py", "AsyncLLM", "sleep"),
    ("vllm/v1/engine/async_llm.py", "AsyncLLM", "pause_generation"),
    ("vllm/v1/engine/async_llm.py", "AsyncLLM", "reset_mm_cache"),
    ("vllm/v1/engine/llm_engine.py", "LLMEngine", "sleep"),
    ("vllm/v1/engine/llm_engine.py", "LLMEngine", "reset_mm_cache"),
])
def test_vllm_its_own_clears_empty_the_front_end_first_so_sleep_is_d4_not_d3(
    path: str, owner: str, method: str,
) -> None:
    """The doctor's D3/D4 rows: the release's sleep, pause and reset clear the front end's
    cache (`clear_mm_cache*`) before they call the engine core, so they clear both sides
    (a clear racing in-flight requests, D4), not one (D3)."""
    called = _called(_method(_release_tree(path), owner, method))
    front = next(i for i, c in enumerate(called) if c.startswith("clear_mm_cache"))
    engine = next(i for i, c in enumerate(called)
                  if c.startswith(("sleep", "pause_generation", "reset_mm_cache")))
    assert front < engine, called


def test_vllm_every_multimodal_processing_runs_on_one_worker_thread() -> None:
    """The doctor's D6 row (off): the renderer's multimodal executor has one worker, and the
    processing and the clear run on it."""
    init = _method(_release_tree("vllm/renderers/base.py"), "BaseRenderer", "__init__")
    source = ast.unparse(init)
    assert "self._mm_executor = ThreadPoolExecutor(max_workers=1)" in source
    assert "make_async(self._process_multimodal, executor=self._mm_executor)" in source
    assert "make_async(self.clear_mm_cache, executor=self._mm_executor)" in source
