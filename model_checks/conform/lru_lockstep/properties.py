"""S1-S3 restated on the implementation's own observations, after every lockstep step.

The spec's S1-S3 are predicates on its state; the implementation has no such state, so each
is restated on what it exposes: S1 on the tensors and placeholders P1 handed to the model,
S2 on the bytes the caches really hold and record, S3 on the sides' faults and on requests a
front end's assertion failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.lru_lockstep.implementation import Implementation
from model_checks.conform.lru_lockstep.notation import value_text
from model_checks.conform.lru_lockstep.views import CacheViews, Decoder
from spec import Config, Outcome


def state_properties(
    config: Config, decoder: Decoder, impl: Implementation, views: CacheViews | None
) -> list[tuple[str, str]]:
    """(property id, reason) for every S1-S3 violation the implementation shows now; no
    views (they could not be read) is a crash."""
    found: list[tuple[str, str]] = []
    if impl.fault is not None or views is None:
        fault = impl.fault or api.Fault("crash", "no cache views")
        found.append(("S3", f"{fault.kind}: {fault.detail}"))
        return found
    found += [("S3", a.failure) for a in impl.attempts if a.outcome is Outcome.P0_ASSERT]
    if impl.delivery is not None and isinstance(impl.delivery[1], api.Served):
        for model_input in impl.delivery[1].inputs:
            tensor = decoder.payload_content(model_input.payload)
            placeholders = decoder.placeholders_content(model_input.placeholders)
            if tensor != placeholders:
                found.append(("S1", f"{model_input.identity}: tensor of "
                                    f"{value_text(tensor)} paired with placeholders of "
                                    f"{value_text(placeholders)}"))
    entries = views.receiver_entries
    real = sum(codec.payload_nbytes(e.payload) for e in entries)
    recorded = sum(e.size for e in entries)
    if max(real, recorded) > config.budget:
        found.append(("S2", f"P1 holds {real} bytes of tensors ({recorded} recorded), "
                            f"budget {config.budget}"))
    shadows: Sequence[Sequence[api.ShadowEntry]] = views.shadows
    for index, shadow in enumerate(shadows):
        used = sum(e.size for e in shadow)
        if used > config.budget:
            found.append(("S2", f"shadow {index} records {used} bytes"))
    return found
