"""Conformance adapters shipped with the package, over implementations that are not ours.

- `vllm`: vLLM's own multimodal IPC caches (the key-replicated LRU pair) under
  `python -m model_checks conform`, as the offline engine drives them (`vllm:factory`) and as
  the async server does (`vllm:async_factory`; docs/vllm.md);
- `vllm_patched`: the same for a copy of the release with `patches/vllm-0.33.0-tags.diff`
  applied (built beside the wheel by `scripts/setup-vllm-patched`);
- `vllm_shm`: vLLM's shared-memory object store under `conform --design shm`, its sender and
  its workers' receivers over one ring, in model bytes through a byte map;
- `vllm_encoder`: vLLM's encoder cache (`EncoderCacheManager` and the workers' outputs) under
  the encoder design and the composed path's witnesses (`python -m
  model_checks.adapters.vllm_encoder --replay FILE`; the design's action-to-code table,
  pinned to the release's source, is `tests/designs/encoder_code.py`);
- beside them: `vllm_release` (which release is installed and which variant each of its cache
  designs implements, read without importing vLLM; the doctor reads it too), `vllm_pins` (the
  vLLM functions the glue stands for, pinned to their source), `vllm_code_map` (per design,
  the release's code that performs each spec action: process, lock, pinned functions) and
  `vllm_emit`
  (`--emit-pytest` files in vLLM's own calls);
- `vllm_run`: what the real vLLM run behind docs/vllm.md (`model_checks.vllm_snapshot`) and
  the page share: the snapshot's file, its command, the reproducer (no vLLM import).

vLLM is optional: it is installed by `scripts/setup-vllm`, never required by the package, and
these modules import it only when an adapter's factory or side is built.
"""
