"""What conformance judges on an implementation: its table keyed by property.

A property is judged on the implementation's own observations (lockstep restates it on the
implementation's state and replies), or on the spec's trace that the implementation matched
observation for observation (the spec's verdict on an agreed trace is the implementation's),
or not at all: a property with neither is listed as not judged, with the reason, and its
records say so instead of claiming it holds.
"""

from __future__ import annotations

from model_checks.kernel.judged import Judged, NotJudged, Table
from spec import registry

OWN_OBSERVATIONS = "restated on the implementation's own state and replies (lockstep)"
AGREED_TRACE = "the spec's verdict on the trace the implementation matched step for step"
NO_COUNTERPART = ("no implementation-side check: lockstep neither restates it on the "
                  "implementation nor judges it on the agreed trace")

_HOW: dict[str, str] = {
    "S1": OWN_OBSERVATIONS,
    "S2": OWN_OBSERVATIONS,
    "S3": OWN_OBSERVATIONS,
    "S4": AGREED_TRACE,
    "H1": AGREED_TRACE,
    "L1": OWN_OBSERVATIONS,
    "L2": OWN_OBSERVATIONS,
    "L3": OWN_OBSERVATIONS,
    "L4": OWN_OBSERVATIONS,
}
"""Per property, how lockstep judges it on the implementation: a table keyed by property
(a property's check on the implementation is code in lockstep, written for that property)."""


def judged() -> Table:
    """Conformance's answer for every property of the registry."""
    return {p.id: Judged(_HOW[p.id]) if p.id in _HOW else NotJudged(NO_COUNTERPART)
            for p in registry()}


def on_agreed_trace() -> tuple[str, ...]:
    """The properties judged on the agreed spec trace (lockstep's `SPEC_JUDGED`)."""
    return tuple(p.id for p in registry() if _HOW.get(p.id) == AGREED_TRACE)
