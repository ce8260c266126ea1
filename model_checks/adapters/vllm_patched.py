"""vLLM 0.33.0 with the tag patch (patches/vllm-0.33.0-tags.diff) under the conformance checks:
``--adapter model_checks.adapters.vllm_patched:factory``.

`scripts/setup-vllm-patched` builds the patched copy beside the installed wheel (never in
it): `build/vllm-0.33.0-patched/vllm`, links to the release's files except the five the
patch changes. The factory puts that directory first on `sys.path` before vLLM is imported,
so the caches, `MultiModalFeatureSpec` and the base classes are the patched ones; a process
that imported vLLM already (from the wheel) is refused with one line, as is a machine where
the copy was not built.

The glue is `model_checks.adapters.vllm`'s, with the two calls the patch changes, after the
patched callers:

- P0's update (the processor's `_merge_mm_kwargs`): `touch_sender_cache_item` for every
  identity, then one `get_and_update_tagged` for the whole request (the sender resolves the
  entries it holds first, then inserts the others, and returns each item's tag in request
  order), then `release_sender_touches`. There is no item-at-a-time update: D6 (two threads
  in one shadow) is not an environment a vLLM deployment has.
- P1 (`get_and_update_features`): each `MultiModalFeatureSpec` carries the wire item's tag
  as `mm_tag`; the receiver resolves references first and treats a tag that differs from its
  entry's as a miss.

The patched release implements V3 (tags, references resolved first on both sides) in every
environment without D6; V3's third knob (a probed hit lost before the update is processed
again, not asserted) only acts under D6, where the patch keeps the release's assertion.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_checks.adapters import vllm as glue
from model_checks.adapters.vllm_release import UnsupportedVllm, require_supported
from model_checks.conform import adapter as api

RELEASE = "0.33.0"
VARIANT = "V3"
"""The variant the patched release implements (in environments without D6)."""
PATCH = Path(__file__).resolve().parents[2] / "patches" / f"vllm-{RELEASE}-tags.diff"
SETUP_SCRIPT = "scripts/setup-vllm-patched"


def patched_dir() -> Path:
    """Where the set-up builds the patched copy (`PAIRED_CACHES_VLLM_PATCHED` overrides)."""
    default = Path(__file__).resolve().parents[2] / "build" / f"vllm-{RELEASE}-patched"
    return Path(os.environ.get("PAIRED_CACHES_VLLM_PATCHED", default))


def use_patched_copy() -> Path:
    """Put the patched copy first on `sys.path` (idempotent) and return it; `UnsupportedVllm`
    (one line) if the copy is missing or vLLM was imported from elsewhere already."""
    require_supported(RELEASE)
    root = patched_dir().resolve()
    if not (root / "vllm" / "multimodal" / "cache" / "lru.py").is_file():
        raise UnsupportedVllm(f"the patched vLLM copy is not built at {root}; run "
                              f"{SETUP_SCRIPT}")
    loaded = sys.modules.get("vllm")
    if loaded is not None and not str(getattr(loaded, "__file__", "")).startswith(str(root)):
        raise UnsupportedVllm(f"vllm is imported already from {loaded.__file__}; the patched "
                              "copy needs a process of its own")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return root


@dataclass
class PatchedFrontEnd(glue.SenderSide):
    """`FrontEndSide` over the patched `LruKeyReplicatedSenderCache`: the whole request's
    update in one `get_and_update_tagged`, each wire item with its tag."""

    def update(self, probed: object) -> api.WireMessage | api.ClientRejected | api.Fault:
        if not isinstance(probed, glue.Probed):
            raise TypeError(f"got {type(probed).__name__}, expected this side's Probed")
        for item in probed.items:
            self.cache.touch_sender_cache_item(item.identity)
        try:
            updated = self.cache.get_and_update_tagged(
                list(probed.processed), [item.identity for item in probed.items])
        except AssertionError as error:
            return api.Fault("p0-assert", str(error))
        except Exception as error:
            return glue.crash(error)
        finally:
            self.cache.release_sender_touches()
        return api.WireMessage(self.next_id(), tuple(
            _wire_item(item.identity, result)
            for item, result in zip(probed.items, updated, strict=True)))


def _wire_item(identity: str, result: tuple[Any, Any, int | None]) -> api.WireItem:
    """One item of the message from the sender's (kwargs or None, prompt updates, tag)."""
    kwargs, updates, tag = result
    payload = None if kwargs is None else glue.payload_of(kwargs)
    return api.WireItem(identity, payload, glue.placeholders_of(updates), tag)


@dataclass
class PatchedAdapter(glue.VllmAdapter):
    """`Adapter` for the patched release: V3, the patched front end, the shared engine glue
    (which passes each wire item's tag as `mm_tag`)."""

    def __post_init__(self) -> None:
        self.name = f"vllm {self.version} + {PATCH.name}"

    def supports(self, variant: str) -> bool:
        return variant == VARIANT

    def front_end(self, setup: api.Setup, index: int) -> PatchedFrontEnd:  # type: ignore[override]
        return PatchedFrontEnd(setup, index)


def factory() -> PatchedAdapter:
    """The patched copy of the installed release (`UnsupportedVllm`, one line, if it is not
    built, the release is another, or vLLM was imported from the wheel in this process)."""
    use_patched_copy()
    return PatchedAdapter(RELEASE)
