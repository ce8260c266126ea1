"""A planted bad receiver for the tag patch's tests (``pytest -p livelock_mutant`` with
tests/vllm on the path, on the patched copy): `get_and_update_features` resolves every
reference before every payload, so a reference that follows its own payload in one request
(the same new item twice) is looked up before the payload is stored and misses on every
retry. The duplicate-item tests must fail under it; tests/vllm/test_vllm_fix.py checks so.
"""

from __future__ import annotations

from typing import Any


def _references_first(self: Any, mm_features: list[Any]) -> list[Any]:
    from vllm.multimodal.cache.base import MultiModalCacheMissError

    for feature in mm_features:
        self.touch_receiver_cache_item(feature.mm_hash or feature.identifier, feature.data)
    missing: list[str] = []
    for feature in sorted(mm_features, key=lambda f: f.data is not None):
        try:
            feature.data = self.get_and_update_tagged_item(
                feature.data, feature.mm_hash or feature.identifier, feature.mm_tag)
        except MultiModalCacheMissError as error:
            missing.extend(error.mm_hashes)
    if missing:
        raise MultiModalCacheMissError(missing)
    return mm_features


def pytest_configure(config: Any) -> None:
    del config
    from vllm.multimodal.cache.base import BaseMultiModalReceiverCache

    BaseMultiModalReceiverCache.get_and_update_features = _references_first
