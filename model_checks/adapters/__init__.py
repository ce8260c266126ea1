"""Conformance adapters shipped with the package, over implementations that are not ours.

`model_checks.adapters.vllm:factory` puts vLLM's own multimodal IPC caches under
`python -m model_checks conform` as the offline engine drives them, `vllm:async_factory` as
the async server does (docs/vllm.md); `model_checks.adapters.vllm_patched` does the same for
a copy of the release with `patches/vllm-0.33.0-tags.diff` applied. vLLM is optional: it is
installed by `scripts/setup-vllm`, never required by the package, and these modules import
it only when an adapter's factory or side is built.
"""
