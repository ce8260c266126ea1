"""Designs: the ways of building the paired caches, each a transition system with its own
state, actions, drift sources and properties (`spec.designs.base.Design`). `designs()`
lists them; `design_named` finds one; a test adds one with `register` (and `withdraw`)."""

from __future__ import annotations

from spec.designs.base import (
    Design,
    DesignProperty,
    DriftSource,
    RefusedDrift,
    Scope,
    UnknownDesign,
    check_environment,
    check_variant,
)
from spec.designs.registry import design_named, designs, register, withdraw

__all__ = [
    "Design",
    "DesignProperty",
    "DriftSource",
    "RefusedDrift",
    "Scope",
    "UnknownDesign",
    "check_environment",
    "check_variant",
    "design_named",
    "designs",
    "register",
    "withdraw",
]
