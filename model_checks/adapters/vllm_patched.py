"""vLLM 0.33.0 with the tag patch (patches/vllm-0.33.0-tags.diff) under the conformance checks:
``--adapter model_checks.adapters.vllm_patched:factory``.

`scripts/setup-vllm-patched` builds the patched copy beside the installed wheel (never in
it): `build/vllm-0.33.0-patched/vllm`, links to the release's files except the ones the
patch changes. The factory puts that directory first on `sys.path` before vLLM is imported,
so the caches, `MultiModalFeatureSpec` and the base classes are the patched ones; a process
that imported vLLM already (from the wheel) is refused with one line, as is a machine where
the copy was not built.

The glue is `model_checks.adapters.vllm`'s, with the two calls the patch changes, after the
patched callers:

- P0's update: the patched `_merge_mm_kwargs` itself (as for the release: the glue gives
  it a `self` and releases the touches after it): it touches every identity, then makes one
  `get_and_update_tagged` call for the whole request (the sender resolves the entries it
  holds first, then inserts the others, and returns each item's tag in request order), and
  returns the tags with the kwargs and the prompt updates.
  There is no item-at-a-time update: D6 (two threads in one shadow) is not an environment
  a vLLM deployment has.
- P1 (`get_and_update_features`): each `MultiModalFeatureSpec` carries the wire item's tag
  as `mm_tag`; the receiver resolves references first (a reference that follows its own
  payload in the request, after it) and serves a reference only from an entry of its tag;
  the receiver view reads each entry's item and tag from the record it stores.

The patched release implements V3 (tags, references resolved first on both sides) in every
environment without D6; V3's third knob (a probed hit lost before the update is processed
again, not asserted) only acts under D6, where the patch keeps the release's assertion.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

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
    """`FrontEndSide` over the patched `LruKeyReplicatedSenderCache`: the patched
    `_merge_mm_kwargs` makes one `get_and_update_tagged` call per request and returns each
    item's tag, which the shared update puts on the wire items. No item-at-a-time update: D6
    is not a vLLM deployment's."""


@dataclass
class PatchedAsyncFrontEnd(glue.AsyncServer, PatchedFrontEnd):
    """`PatchedFrontEnd` with the async server's deferred invalidation (the renderer's
    queue and drain, unchanged by the patch)."""


@dataclass
class PatchedAdapter(glue.VllmAdapter):
    """`Adapter` for the patched release: V3, the patched front end, the shared engine glue
    (which passes each wire item's tag as `mm_tag`)."""

    def __post_init__(self) -> None:
        self.name = f"vllm {self.version} + {PATCH.name}" + (
            " (async server)" if self.server else "")

    def supports(self, variant: str) -> bool:
        return variant == VARIANT

    def front_end(self, setup: api.Setup, index: int) -> PatchedFrontEnd:  # type: ignore[override]
        return (PatchedAsyncFrontEnd if self.server else PatchedFrontEnd)(setup, index)


def factory() -> PatchedAdapter:
    """The patched copy of the installed release (`UnsupportedVllm`, one line, if it is not
    built, the release is another, or vLLM was imported from the wheel in this process)."""
    use_patched_copy()
    return PatchedAdapter(RELEASE)


def async_factory() -> PatchedAdapter:
    """The patched copy as the async server drives it (the renderer's queue and drain)."""
    use_patched_copy()
    return PatchedAdapter(RELEASE, server=True)


ADAPTER = "model_checks.adapters.vllm_patched:factory"
ASYNC_ADAPTER = "model_checks.adapters.vllm_patched:async_factory"
DEPLOYMENT = "D1+D2+D3+D4+D7+D8+D9+D10+D11"
"""Every drift source a vLLM deployment can have (the doctor's list: not D5, not D6). Under
D9 with a request naming one identity twice, the patched copy serves the second occurrence
from its own request's payload where P1 could not cache it: the other choice the spec allows
a tagged receiver (`spec.transitions.P1ReceiveOwnPayload`), which conformance reports as
observed."""
