"""Which vLLM release is installed, whether the adapter supports it, and which spec variant it
implements; answered from the installed distribution's metadata, without importing vLLM.

`IMPLEMENTS` is the one table of supported releases: a release is added only after
`conform --adapter model_checks.adapters.vllm:factory` ran on it (tests/vllm/), with the
spec variant its caches behave as. Any other release is refused with one line
(`UnsupportedVllm`), so the adapter never judges code it was not written against.
"""

from __future__ import annotations

import importlib.metadata

SETUP_SCRIPT = "scripts/setup-vllm"
"""What installs the supported release (requirements-vllm.txt)."""

IMPLEMENTS: dict[str, str] = {"0.33.0": "V2"}
"""Supported vLLM release -> the spec variant its LRU sender/receiver pair implements (V2: a
typed miss error listing every missed identity, P0 invalidates them, the payload wins and the
old entry is dropped first, vllm#46747 and vllm#57833)."""


class UnsupportedVllm(RuntimeError):
    """vLLM is missing, or installed at a release the adapter does not support: one line
    saying which, and what to run."""


def installed_version() -> str | None:
    """The installed vLLM release (its distribution's version), or None."""
    try:
        return importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        return None


def supported_text() -> str:
    return ", ".join(IMPLEMENTS)


def require_supported(version: str | None = None) -> str:
    """The supported release installed (or `version`, when given), else `UnsupportedVllm`."""
    found = installed_version() if version is None else version
    if found is None:
        raise UnsupportedVllm(f"vLLM is not installed; run {SETUP_SCRIPT} (supported: "
                              f"vllm {supported_text()})")
    if found not in IMPLEMENTS:
        raise UnsupportedVllm(f"got vllm {found}, expected vllm {supported_text()} (the "
                              f"releases this adapter was checked against; {SETUP_SCRIPT} "
                              "installs it)")
    return found


def variant_of(version: str) -> str:
    """The spec variant a supported release implements (`UnsupportedVllm` otherwise)."""
    return IMPLEMENTS[require_supported(version)]
