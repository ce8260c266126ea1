"""The vLLM tests (marked `vllm`) run vLLM's released code. They run where
scripts/setup-vllm installed a supported release and are skipped elsewhere, each with one
line naming the script (`UnsupportedVllm`'s message, shown with `pytest -rs`)."""

from __future__ import annotations

import pytest

from model_checks.adapters.vllm_release import UnsupportedVllm, require_supported


def _why_not() -> str | None:
    try:
        require_supported()
    except UnsupportedVllm as error:
        return str(error)
    return None


SKIP_REASON = _why_not()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    del config
    if SKIP_REASON is None:
        return
    skip = pytest.mark.skip(reason=SKIP_REASON)
    for item in items:
        if "vllm" in item.keywords:
            item.add_marker(skip)
