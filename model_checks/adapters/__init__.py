"""Conformance adapters shipped with the package, over implementations that are not ours.

`model_checks.adapters.vllm:factory` puts vLLM's own multimodal IPC caches under
`python -m model_checks conform` (docs/vllm.md). vLLM is optional: it is installed by
`scripts/setup-vllm`, never required by the package, and these modules import it only when
an adapter's factory or side is built.
"""
