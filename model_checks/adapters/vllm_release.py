"""Which vLLM release is installed, whether the adapter supports it, and which spec variant
each of its paired-cache designs implements; answered from the installed distribution's
metadata, without importing vLLM.

`IMPLEMENTS` is the one table of supported releases, keyed by (release, cache type): vLLM
builds one of two paired-cache designs, chosen by `--mm-processor-cache-type` (`CACHE_TYPES`,
`DESIGNS`). A release is added only after `conform --adapter model_checks.adapters.vllm:factory`
ran on it (tests/vllm/), with the spec variant its LRU pair behaves as; a design the project
does not model maps to None, and `KNOWN` says what is known of it. Any other release is
refused with one line (`UnsupportedVllm`), so the adapter never judges code it was not
written against.
"""

from __future__ import annotations

import importlib.metadata

SETUP_SCRIPT = "scripts/setup-vllm"
"""What installs the supported release (requirements-vllm.txt)."""

CACHE_OPTION = "--mm-processor-cache-type"
CACHE_TYPES: tuple[str, ...] = ("lru", "shm")
"""The values of vLLM's `--mm-processor-cache-type` (its `MMCacheType`), the default first."""

DESIGNS: dict[str, tuple[str, str]] = {
    "lru": ("the key-replicated LRU pair", "LruKeyReplicatedSenderCache on P0, "
            "LruKeyReplicatedReceiverCache in the engine core"),
    "shm": ("vLLM's shared-memory object store", "ShmObjectStoreSenderCache on P0, "
            "ShmObjectStoreReceiverCache in each worker"),
}
"""Cache type -> (the design vLLM builds for it, its classes)."""

IMPLEMENTS: dict[tuple[str, str], str | None] = {("0.33.0", "lru"): "V2",
                                                 ("0.33.0", "shm"): "O1"}
"""(supported release, cache type) -> the variant of that cache type's design
(`DESIGN_OF`) the release implements, or None: not modelled. 0.33.0's LRU pair is V2 (a
typed miss error listing every missed identity, P0 invalidates them, the payload wins and
the old entry is dropped first, vllm#46747 and vllm#57833); its shared-memory object store
is the shm design's O1 (`spec/designs/shm/`)."""

DESIGN_OF: dict[str, str] = {"lru": "lru", "shm": "shm"}
"""Cache type -> the name of the design (`spec.designs`) vLLM builds for it."""

KNOWN: dict[str, str] = {}
"""Cache type of a design not modelled -> what is known of it (the release's source); every
cache type of the supported releases is modelled."""


class UnsupportedVllm(RuntimeError):
    """vLLM is missing, or installed at a release the adapter does not support: one line
    saying which, and what to run."""


def installed_version() -> str | None:
    """The installed vLLM release (its distribution's version), or None."""
    try:
        return importlib.metadata.version("vllm")
    except importlib.metadata.PackageNotFoundError:
        return None


def releases() -> tuple[str, ...]:
    """The supported releases, in `IMPLEMENTS`'s order."""
    return tuple(dict.fromkeys(release for release, _ in IMPLEMENTS))


def supported_text() -> str:
    return ", ".join(releases())


def require_supported(version: str | None = None) -> str:
    """The supported release installed (or `version`, when given), else `UnsupportedVllm`."""
    found = installed_version() if version is None else version
    if found is None:
        raise UnsupportedVllm(f"vLLM is not installed; run {SETUP_SCRIPT} (supported: "
                              f"vllm {supported_text()})")
    if found not in releases():
        raise UnsupportedVllm(f"got vllm {found}, expected vllm {supported_text()} (the "
                              f"releases this adapter was checked against; {SETUP_SCRIPT} "
                              "installs it)")
    return found


def require_cache_type(cache_type: str) -> str:
    """`cache_type` when vLLM accepts it, else `ValueError` naming the accepted values."""
    if cache_type not in CACHE_TYPES:
        raise ValueError(f"got {CACHE_OPTION} {cache_type!r}, expected "
                         f"{' or '.join(CACHE_TYPES)}")
    return cache_type


def implements(version: str, cache_type: str) -> str | None:
    """The spec variant `version`'s `cache_type` design implements, None when the project
    does not model that design (`UnsupportedVllm`, `ValueError`: one line)."""
    return IMPLEMENTS[require_supported(version), require_cache_type(cache_type)]


def variant_of(version: str) -> str:
    """The spec variant a supported release's LRU pair implements (the design the adapter
    drives; `UnsupportedVllm` otherwise)."""
    variant = implements(version, "lru")
    if variant is None:
        raise UnsupportedVllm(f"vllm {version}'s LRU pair is not modelled")
    return variant


def designs_text(version: str) -> str:
    """One sentence per cache type of `version`: its design and what it implements."""
    parts = []
    for cache_type in CACHE_TYPES:
        variant = implements(version, cache_type)
        name, classes = DESIGNS[cache_type]
        default = "; the default" if cache_type == CACHE_TYPES[0] else ""
        parts.append(f"`{CACHE_OPTION} {cache_type}` builds {name} ({classes}{default}), "
                     + (f"which implements **{variant}**" if variant else
                        "which the project does not model yet"))
    return "; ".join(parts)
