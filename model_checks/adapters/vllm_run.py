"""The real vLLM run behind docs/vllm.md, as data the page and the run share: where its
snapshot lies (under docs/), the command that makes it, and the reproducer it executes and
the page shows. The run itself is `model_checks.vllm_snapshot`; the page is rendered by
`model_checks.docs.vllm_page`, which imports this module and never the run (the run drives
the command line)."""

from __future__ import annotations

from pathlib import Path

SNAPSHOT = Path("results") / "vllm.json"
"""The snapshot's file, relative to docs/."""

COMMAND = "python -m model_checks.vllm_snapshot"
"""The command that makes the snapshot (recorded in it, and shown on the page)."""

REPRODUCER = '''\
from vllm.config import MultiModalConfig
from vllm.multimodal.cache.lru import (
    LruKeyReplicatedReceiverCache, LruKeyReplicatedSenderCache)
from vllm.multimodal.inputs import (
    MultiModalBatchedField, MultiModalFieldElem, MultiModalKwargsItem, PlaceholderRange)
import torch

class ModelConfig:  # what the caches read of vllm.config.ModelConfig
    def get_multimodal_config(self):
        return MultiModalConfig(mm_processor_cache_gb=64 / 2**30)  # one 64-byte item

def image(n):  # the processor's output for image n: 16 float32 values, 16 tokens
    elem = MultiModalFieldElem(data=torch.full((16,), float(n)), field=MultiModalBatchedField())
    return MultiModalKwargsItem({"pixel_values": elem}), [PlaceholderRange(offset=n, length=16)]

p0 = LruKeyReplicatedSenderCache(ModelConfig())    # the API server's shadow
p1 = LruKeyReplicatedReceiverCache(ModelConfig())  # the engine core's tensors
p1.get_and_update_item(p0.get_and_update_item(image(0), "u")[0], "u")  # 1, 2: "u" is image 0
p0.get_and_update_item(image(7), "x")    # 3: evicts "u" from P0; the request is rejected
p0.get_and_update_item(image(1), "u")    # 4: uuid "u" reused for image 1; rejected too
data, updates = p0.get_and_update_item(None, "u")  # 5: a hit: no data, image 1's updates
served = p1.get_and_update_item(None, "u")         # 6: P1 returns what it holds
'''
"""Six `get_and_update_item` calls: D7 (uuid "u" reused, vllm#55547) with D2 (two requests
rejected after P0 updated, as in vllm#43941). Executed by `reproduce` as shown."""
