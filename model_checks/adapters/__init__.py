"""Conformance adapters shipped with the package, over implementations that are not ours.

`model_checks.adapters.vllm:factory` puts vLLM's own multimodal IPC caches under
`python -m model_checks conform` as the offline engine drives them, `vllm:async_factory` as
the async server does (docs/vllm.md); `model_checks.adapters.vllm_patched` does the same for
a copy of the release with `patches/vllm-0.33.0-tags.diff` applied. Beside them: `vllm_release`
(which release is installed and which variant each of its cache designs implements, read
without importing vLLM; the doctor reads it too), `vllm_pins` (the vLLM functions the glue
stands for, pinned to their source) and `vllm_emit` (`--emit-pytest` files in vLLM's own
calls). vLLM is optional: it is installed by `scripts/setup-vllm`, never required by the
package, and these modules import it only when an adapter's factory or side is built.
"""
