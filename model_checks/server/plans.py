"""A witness of any design the driver translates, as HTTP requests: the LRU design's
(`plan.lru_plan`) and the shared-memory store's (`shm_plan.shm_plan`), chosen by the design
the witness names (none: the LRU design)."""

from __future__ import annotations

from typing import Any

from model_checks.kernel.itf import project
from model_checks.server.plan import Plan, lru_plan
from model_checks.server.shm_plan import shm_plan


def plan(trace: dict[str, Any], name: str) -> Plan:
    """The plan of the ITF witness `trace` (named `name` in messages): `NotAWitness` when it
    is no witness of a design it names, `NotDrivable` at the first step HTTP cannot drive."""
    if project(trace).get("design") == "shm":
        return shm_plan(trace, name)
    return lru_plan(trace, name)
