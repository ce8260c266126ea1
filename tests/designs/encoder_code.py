"""Where each action of the encoder-cache design (`spec.designs.encoder`) and of the
composed path's link (`spec.designs.paths`) is in vLLM 0.33.0: the function, its pin (the
first 16 hex digits of the SHA-256 of its source, `vllm_pins.pin`), and what the design takes
from it. A release that changes one fails a test naming it (`test_encoder_code`); it must be
read again before the design claims it.

`BLOCK_HASH_KEY` is the prefix cache's part: the extra keys of a KV block that holds
placeholders are built from the item's identity and offset, never from its content.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CodeRow:
    """One spec action (or mechanism) and the vLLM function it stands for."""

    action: str
    key: str
    pin: str
    taken: str


_MANAGER = "v1/core/encoder_cache_manager.py:"
_SCHEDULER = "v1/core/sched/scheduler.py:Scheduler."
_RUNNER = "v1/worker/gpu_model_runner.py:GPUModelRunner."

CODE: tuple[CodeRow, ...] = (
    CodeRow("Schedule (manager.plan)", _SCHEDULER + "_try_schedule_encoder_inputs",
            "742d3654a2e5e322", "per pending item in order: a same-pass duplicate, the guard, "
            "a hit, else space or the chunk ends"),
    CodeRow("Schedule (the guard)", _SCHEDULER + "_reject_on_encoder_cache_embed_mismatch",
            "fdea75c148e0ed1a", "another number of embeddings than cached: the request fails, "
            "the engine lives"),
    CodeRow("Schedule (manager.reference)", _MANAGER + "EncoderCacheManager."
            "check_and_update_cache", "4a8c58b9190bcffc",
            "a hit by identity alone; taken out of the freeable list"),
    CodeRow("Schedule (the guard's count)", _MANAGER + "EncoderCacheManager."
            "get_cached_num_encoder_embeds", "97507286a9a82067",
            "the cached entry's number of embeddings"),
    CodeRow("Schedule (manager.evict_for)", _MANAGER + "EncoderCacheManager.can_allocate",
            "341c5e4c2c4e1ae7", "evicts unreferenced entries oldest first, or refuses"),
    CodeRow("Schedule (manager.allocate)", _MANAGER + "EncoderCacheManager.allocate",
            "d17a7ec9772b428e", "the entry sized by the request's placeholders"),
    CodeRow("Schedule (workers drop the freed)", _RUNNER +
            "_process_encoder_cache_scheduler_output", "a63958f7ee488a55",
            "the evicted identities leave the workers' cache before the encoder runs"),
    CodeRow("Schedule (the model's merge)", "model_executor/models/utils.py:"
            "_merge_multimodal_embeddings", "5a20f85af2ba0543",
            "an output of another number than its placeholders raises: the engine dies"),
    CodeRow("Complete (manager.release)", _SCHEDULER + "_free_encoder_inputs",
            "90af05280c274bdd", "an item's reference dropped once its placeholders are "
            "computed"),
    CodeRow("Complete (manager.release)", _MANAGER + "EncoderCacheManager.free_encoder_input",
            "307dea4af729a343", "an entry nothing references becomes freeable, stays cached"),
    CodeRow("Schedule rejected (manager.release_all)", _MANAGER + "EncoderCacheManager.free",
            "e939bd1dfa0ef1c1", "every reference of a finished or failed request"),
    CodeRow("Reset (R1)", "v1/engine/core.py:EngineCore.reset_encoder_cache",
            "4b9b192f22a35f5d", "the scheduler's manager and the workers' cache, in one call"),
    CodeRow("Reset (R1)", _MANAGER + "EncoderCacheManager.reset", "3e5641f72c251890",
            "every entry and reference dropped"),
    CodeRow("Reset (R1)", _RUNNER + "reset_encoder_cache", "fbc710307a161adb",
            "the workers' outputs dropped"),
    CodeRow("the instance's budgets", _MANAGER + "compute_mm_encoder_budget",
            "cb45a6f013968e4a", "cache and encoder budgets at least the largest item"),
)

BLOCK_HASH_KEY = CodeRow(
    "prefix cache (not modelled: see docs/drift-combinations.md)",
    "v1/core/kv_cache_utils.py:_gen_mm_extra_hash_keys", "2c3ff227ae26f663",
    "a block's extra key is ('mm', identifier, offset): the identity, not the content")
