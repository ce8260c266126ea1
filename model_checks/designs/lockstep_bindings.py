"""The lockstep's per-design part, declared once: per design, its `lockstep.Binding` (how an
implementation of it is driven and viewed in the design's terms), which the one lockstep
driver (`model_checks.conform.design_lockstep`) and the `conform --design NAME` command read. A
design with no entry has no lockstep of that driver's."""

from __future__ import annotations

from collections.abc import Callable

from model_checks.conform.design_lockstep import Binding


def _shm() -> Binding:
    from model_checks.designs.shm_lockstep import BINDING

    return BINDING


BINDINGS: dict[str, Callable[[], Binding]] = {"shm": _shm}
"""Per design name, its binding (imported when asked for)."""


def binding_of(design: str) -> Binding | None:
    """The lockstep binding of the design named `design`, or None if it has none."""
    found = BINDINGS.get(design)
    return None if found is None else found()
