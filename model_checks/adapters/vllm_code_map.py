"""Which code of vLLM 0.33.0 performs each spec action, per design: the process it runs in,
the lock it holds, and the functions, each pinned to its source in the release (a pin is
`vllm_pins.pin` of `vllm_pins.source`: the first 16 hex digits of the SHA-256 of the
function's text). A spec step is meant to be as coarse as the release's critical section and
no coarser: where the release lets another process run between two parts of one step, the
spec splits it (the shm worker's check, then its copy).

Declared once here (`TABLES`), checked against the installed release by tests/vllm/ (every
action of each design has a row, every function exists and matches its pin), and rendered
on docs/vllm.md ("What runs each spec action").
"""

from __future__ import annotations

from dataclasses import dataclass

NO_LOCK = "none"
"""A row's lock where its code holds none that another side of the protocol takes."""


@dataclass(frozen=True)
class CodeRow:
    """One spec action and the release's code for it: `process` (where it runs), `lock`
    (what it holds), `functions` (``file:Class.method`` keys relative to the vllm package,
    with their pins), `does` (what the code does that the action stands for). No function:
    the release has no code for it (`does` says why the action exists)."""

    action: str
    process: str
    lock: str
    functions: tuple[str, ...]
    does: str


STORE = "distributed/device_communicators/shm_object_storage.py:"
TOKENS = "entrypoints/scale_out/token_in_token_out/serving.py:"
PROCESSOR = "multimodal/processing/processor.py:BaseMultiModalProcessor."

PINS: dict[str, str] = {
    "renderers/base.py:BaseRenderer._process_multimodal":
        "f31bc79d6b6f0ebe",
    PROCESSOR + "_cached_apply_hf_processor":
        "7fd6aa956c4a002c",
    "multimodal/processing/processor.py:BaseMultiModalProcessor._merge_mm_kwargs":
        "111eec7229f2b9e8",
    "v1/engine/input_processor.py:InputProcessor.process_inputs":
        "ae9bf0bc889160b9",
    "v1/engine/core.py:EngineCore.preprocess_add_request":
        "9e180d95dc2c5d65",
    "multimodal/cache/base.py:BaseMultiModalReceiverCache.get_and_update_features":
        "bee3d37782c98d2d",
    "v1/engine/async_llm.py:AsyncLLM._run_output_handler":
        "d119e4439219eee9",
    "renderers/base.py:BaseRenderer.queue_mm_cache_invalidations":
        "50a5f012e884ab5c",
    "renderers/base.py:BaseRenderer._drain_mm_cache_invalidations":
        "0aa55556d21754fc",
    "v1/engine/async_llm.py:AsyncLLM.reset_mm_cache":
        "80fc2f2f20f3b35b",
    "renderers/base.py:BaseRenderer.clear_mm_cache":
        "e4f2a150b1aa3282",
    "v1/engine/core.py:EngineCore.reset_mm_cache":
        "64e4efd4a3c26ca5",
    "multimodal/cache/shm.py:ShmObjectStoreSenderCache.get_and_update_item":
        "9a272a5d203cfa4d",
    STORE + "SingleWriterShmObjectStorage.put":
        "1ae66e0155bdcd03",
    STORE + "SingleWriterShmObjectStorage.free_unused":
        "d39e37040c17416e",
    STORE + "SingleWriterShmRingBuffer.allocate_buf":
        "a511ecd489a2f0b3",
    TOKENS + "ServingTokens._validate_mm_cache_handles":
        "e429f939116f394a",
    "multimodal/cache/shm.py:ShmObjectStoreSenderCache.validate_input_item":
        "a1a2af2f50f571f9",
    "v1/core/sched/scheduler.py:Scheduler.schedule":
        "28cd8116ef7e8c40",
    "v1/engine/async_llm.py:AsyncLLM.abort":
        "c49960919427de84",
    STORE + "SingleWriterShmObjectStorage.get":
        "b7f66dbb7c6ee4b7",
    STORE + "SingleWriterShmObjectStorage._validate_monotonic_id":
        "ebe3fbb45c1c888c",
    STORE + "SingleWriterShmObjectStorage.increment_reader_flag":
        "3e079ac5f95a438c",
    "multimodal/utils.py:strip_covered_mm_data":
        "1c884d5bdf56f0c7",
    "v1/worker/worker_base.py:WorkerWrapperBase._apply_mm_cache":
        "854aef29df894709",
    "multimodal/cache/shm.py:ShmObjectStoreSenderCache.clear_cache":
        "2bac78ef2662aee7",
    "v1/engine/async_llm.py:AsyncLLM.pause_generation":
        "938a71dcbfa444fa",
}
"""Every function a row names (``file:Class.method``, relative to the vllm package) -> its pin
in the supported release."""


P0 = "P0: the API server (front end), its one multimodal processing thread"
ENGINE = "P1: the engine core process, its input thread"
SCHEDULER = "the engine core process, its scheduler loop"
WORKER = "a worker process of the executor (one per tensor/pipeline rank)"
CLIENT = "the client"

LRU: tuple[CodeRow, ...] = (
    CodeRow("Submit", CLIENT, NO_LOCK, (), "the client's HTTP request; no vLLM code"),
    CodeRow("P0Handle", P0, NO_LOCK, (
        "renderers/base.py:BaseRenderer._process_multimodal",
        PROCESSOR + "_cached_apply_hf_processor",
        "multimodal/processing/processor.py:BaseMultiModalProcessor._merge_mm_kwargs",
        "v1/engine/input_processor.py:InputProcessor.process_inputs",
    ), "probe, processor, touch and update of the shadow, then the request is sent"),
    CodeRow("P0Process", P0, NO_LOCK, (), "not in the release: every multimodal processing "
            "runs on one thread, so no other request's update comes between a probe and its "
            "update (D6 stands for implementations that do)"),
    CodeRow("P0UpdateItem", P0, NO_LOCK, (), "not in the release (as P0Process)"),
    CodeRow("P0HandleRejected", P0, NO_LOCK, (
        "renderers/base.py:BaseRenderer._process_multimodal",
        "v1/engine/input_processor.py:InputProcessor.process_inputs",
    ), "the shadow is updated, then the request is rejected (prompt too long) before it is "
       "sent"),
    CodeRow("P0HandleRejectedUndo", P0, NO_LOCK, (), "not in the release: vLLM keeps the "
            "shadow's update on a rejection (the spec allows an implementation to undo it)"),
    CodeRow("P1Receive", ENGINE, NO_LOCK, (
        "v1/engine/core.py:EngineCore.preprocess_add_request",
        "multimodal/cache/base.py:BaseMultiModalReceiverCache.get_and_update_features",
    ), "the receiver cache touches, then serves or records each item before the request "
       "reaches the scheduler (a preempted request is never read again: the LRU design "
       "needs no re-send)"),
    CodeRow("P1ReceiveOwnPayload", ENGINE, NO_LOCK, (), "not in the release, which resolves "
            "untagged items and reports a reference it could not serve as a miss (the spec "
            "allows a tagged receiver, V3 and V4, to serve a reference it could not cache under "
            "D9 from its own message's payload; the tag-patched copy does)"),
    CodeRow("P0ReceiveReply", P0, NO_LOCK, (
        "v1/engine/async_llm.py:AsyncLLM._run_output_handler",
        "renderers/base.py:BaseRenderer.queue_mm_cache_invalidations",
        "renderers/base.py:BaseRenderer._drain_mm_cache_invalidations",
    ), "a miss error's identities are queued, and dropped from the shadow before the next "
       "processing"),
    CodeRow("Retry", CLIENT, NO_LOCK, (), "the client's resend with media; vLLM never "
            "retries"),
    CodeRow("ClearBoth", P0, NO_LOCK, (
        "v1/engine/async_llm.py:AsyncLLM.reset_mm_cache",
    ), "the shadow, then the engine's cache, with nothing in flight"),
    CodeRow("P0Clear", P0, NO_LOCK, (
        "renderers/base.py:BaseRenderer.clear_mm_cache",
    ), "the shadow cleared alone"),
    CodeRow("P1Clear", ENGINE, NO_LOCK, (
        "v1/engine/core.py:EngineCore.reset_mm_cache",
    ), "the engine's cache cleared alone (an engine-core client's reset)"),
    CodeRow("P0ClearForReset", P0, NO_LOCK, (
        "v1/engine/async_llm.py:AsyncLLM.reset_mm_cache",
    ), "the shadow cleared, the engine's reset sent behind requests in flight"),
    CodeRow("P1Reset", ENGINE, NO_LOCK, (
        "v1/engine/core.py:EngineCore.reset_mm_cache",
    ), "the reset reaches the engine and wipes its cache"),
    CodeRow("P0Restart", P0, NO_LOCK, (), "a process restart; no vLLM code"),
    CodeRow("P1Restart", ENGINE, NO_LOCK, (), "a process restart; no vLLM code"),
)
"""The key-replicated LRU pair (`--mm-processor-cache-type lru`), spec/transitions."""

SHM: tuple[CodeRow, ...] = (
    CodeRow("Submit", P0, NO_LOCK + " (the writer takes no lock)", (
        "multimodal/processing/processor.py:BaseMultiModalProcessor._merge_mm_kwargs",
        "multimodal/cache/shm.py:ShmObjectStoreSenderCache.get_and_update_item",
        STORE + "SingleWriterShmObjectStorage.put",
        STORE + "SingleWriterShmObjectStorage.free_unused",
        STORE + "SingleWriterShmRingBuffer.allocate_buf",
    ), "touches, then per item a hit (one more issued handle), a put (freeing FIFO when "
       "full, writing the chunk) or the item inline, then the touches released"),
    CodeRow("ClientHandle", P0, NO_LOCK, (
        TOKENS + "ServingTokens._validate_mm_cache_handles",
        "multimodal/cache/shm.py:ShmObjectStoreSenderCache.validate_input_item",
    ), "a client's handle checked as the key's current chunk and passed on, not counted "
       "(only with --enable-scale-out or --tokens-only)"),
    CodeRow("Execute", SCHEDULER, NO_LOCK, (
        "v1/core/sched/scheduler.py:Scheduler.schedule",
    ), "the request scheduled, its handles sent to every worker"),
    CodeRow("Reject", P0, NO_LOCK, (
        "v1/engine/input_processor.py:InputProcessor.process_inputs",
        "v1/engine/async_llm.py:AsyncLLM.abort",
    ), "rejected after processing (prompt too long) or aborted while it waits: its handles "
       "are never read"),
    CodeRow("Check", WORKER, NO_LOCK, (
        STORE + "SingleWriterShmObjectStorage.get",
        STORE + "SingleWriterShmObjectStorage._validate_monotonic_id",
    ), "get's signature check and id check of the chunk header; P0 may write after it"),
    CodeRow("Copy", WORKER, "the workers' shared lock, for the count only (P0 never takes it)",
            (STORE + "SingleWriterShmObjectStorage.get",
             STORE + "SingleWriterShmObjectStorage.increment_reader_flag"),
            "get's copy (deserialize) of the bytes at the handle's address, then the read "
            "counted in the chunk's in-use flag"),
    CodeRow("Preempt", SCHEDULER, NO_LOCK, (
        "v1/core/sched/scheduler.py:Scheduler.schedule",
        "multimodal/utils.py:strip_covered_mm_data",
        "v1/worker/worker_base.py:WorkerWrapperBase._apply_mm_cache",
    ), "with the V2 model runner a resumed request is sent as a new one; its handles are "
       "kept, and every worker reads them again"),
    CodeRow("ClearP0", P0, NO_LOCK, (
        "renderers/base.py:BaseRenderer.clear_mm_cache",
        "multimodal/cache/shm.py:ShmObjectStoreSenderCache.clear_cache",
        "v1/engine/async_llm.py:AsyncLLM.pause_generation",
    ), "the store's metadata dropped, ids kept increasing (reset_mm_cache, /sleep, and "
       "pause_generation's default clear, in every mode)"),
)
"""The shared-memory object store (`--mm-processor-cache-type shm`), spec/designs/shm."""

TABLES: dict[str, tuple[CodeRow, ...]] = {"lru": LRU, "shm": SHM}
"""Per design, its rows in the spec's action order."""
