"""The vLLM functions the adapters' glue stands for, pinned to their source in the supported
release, so that a release which changes one fails a test naming it (tests/vllm/).

Some of them the glue runs (`_merge_mm_kwargs`, `get_and_update_features`, the renderer's
queue and drain); the others cannot run here (the engine core and the engines import
modules that need packages the CPU set-up leaves out, or a model) and the glue does what they
do, as its docstrings say. Either way a change to one must be read before the release is
added to `vllm_release.IMPLEMENTS`. Sources are read from the installed files with `ast`,
without importing them; a pin is the first 16 hex digits of the SHA-256 of the function's
source text.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path

PINS: dict[str, str] = {
    "multimodal/processing/processor.py:BaseMultiModalProcessor._merge_mm_kwargs":
        "111eec7229f2b9e8",
    "multimodal/processing/processor.py:BaseMultiModalProcessor._cached_apply_hf_processor":
        "7fd6aa956c4a002c",
    "multimodal/cache/base.py:BaseMultiModalReceiverCache.get_and_update_features":
        "bee3d37782c98d2d",
    "renderers/base.py:BaseRenderer.queue_mm_cache_invalidations": "50a5f012e884ab5c",
    "renderers/base.py:BaseRenderer._drain_mm_cache_invalidations": "0aa55556d21754fc",
    "renderers/base.py:BaseRenderer._process_multimodal": "f31bc79d6b6f0ebe",
    "renderers/base.py:BaseRenderer.clear_mm_cache": "e4f2a150b1aa3282",
    "v1/engine/core.py:EngineCore.preprocess_add_request": "9e180d95dc2c5d65",
    "v1/engine/core.py:EngineCoreProc._handle_mm_cache_miss": "02980bda133a3668",
    "v1/engine/llm_engine.py:LLMEngine.step": "b8048ba7970a3516",
    "v1/engine/async_llm.py:AsyncLLM._run_output_handler": "d119e4439219eee9",
    "v1/engine/input_processor.py:InputProcessor.process_inputs": "ae9bf0bc889160b9",
}
"""`file:Class.method` (relative to the vllm package) -> its pin in the supported release."""


def package_dir() -> Path:
    """The installed vllm package's directory, found without importing it."""
    spec = importlib.util.find_spec("vllm")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("vllm is not installed")
    return Path(spec.origin).parent


def source(key: str, root: Path | None = None, *, padded: bool = False) -> str | None:
    """The source text of `key` (``file:Class.method``) in the package at `root` (the
    installed one by default), or None if the file, class or method is gone; `padded`: its
    first line indented as in the file."""
    relative, _, qualified = key.partition(":")
    path = (root or package_dir()) / relative
    if not path.is_file():
        return None
    text = path.read_text()
    node: ast.AST = ast.parse(text)
    for name in qualified.split("."):
        node = next((child for child in ast.iter_child_nodes(node)
                     if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                     and child.name == name), ast.Pass())
        if isinstance(node, ast.Pass):
            return None
    return ast.get_source_segment(text, node, padded=padded)


def pin(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def changed(root: Path | None = None, pins: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every function of `pins` (default `PINS`) whose source in the release at `root` (the
    installed one by default) differs from its pin: key -> what it is now (its pin, or
    "gone")."""
    pins = PINS if pins is None else pins
    found = {key: source(key, root) for key in pins}
    now = {key: "gone" if text is None else pin(text) for key, text in found.items()}
    return {key: value for key, value in now.items() if value != pins[key]}
