"""The executable specification of the paired caches: the single source of truth.

A configuration (`Config`) fixes the identities, budget, sizes, variant and environment; `step`
is the pure transition function and `enabled` lists what may happen next; `registry()` lists
the properties S1-S4, H1 and L1-L4 that checkers evaluate. `spec.instances` builds the
instances the checkers search (a checker's family of configurations, realised per
environment).
"""

from spec.config import Config, Content, InvalidConfiguration, ItemSize
from spec.drift import (
    ALL_DRIFT,
    DRIFT_IDS,
    ROUTER,
    BadEnvironment,
    Drift,
    Environment,
    Needs,
    drift_order,
    environment,
    needs_of,
)
from spec.fairness import drive_to_quiescence, is_quiescent
from spec.machine import enabled, initial, is_enabled, step
from spec.properties.declare import InvalidDefinition, Kind, Property, Violation
from spec.properties.registry import by_id, lemmas, property_ids, registry, safety_ids
from spec.state import ClientItem, Outcome, Stage, State
from spec.trace import Step, Trace, TraceError, run
from spec.transitions import ACTION_TYPES, Action, InvalidAction
from spec.variants import (
    V0,
    V1,
    V2,
    V3,
    V4,
    VARIANT_NAMES,
    VARIANTS,
    LruFlaw,
    MissHandling,
    Variant,
    variant_named,
)

__all__ = [
    "ACTION_TYPES",
    "ALL_DRIFT",
    "DRIFT_IDS",
    "ROUTER",
    "V0",
    "V1",
    "V2",
    "V3",
    "V4",
    "VARIANTS",
    "VARIANT_NAMES",
    "Action",
    "BadEnvironment",
    "ClientItem",
    "Config",
    "Content",
    "Drift",
    "Environment",
    "InvalidAction",
    "InvalidConfiguration",
    "InvalidDefinition",
    "ItemSize",
    "Kind",
    "LruFlaw",
    "MissHandling",
    "Needs",
    "Outcome",
    "Property",
    "Stage",
    "State",
    "Step",
    "Trace",
    "TraceError",
    "Variant",
    "Violation",
    "by_id",
    "drift_order",
    "drive_to_quiescence",
    "enabled",
    "environment",
    "initial",
    "is_enabled",
    "is_quiescent",
    "lemmas",
    "needs_of",
    "property_ids",
    "registry",
    "run",
    "safety_ids",
    "step",
    "variant_named",
]
