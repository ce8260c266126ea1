"""The key-replicated LRU design (V0-V4: P0's metadata-only shadow mirrors P1's tensor
cache) as a `spec.designs.base.Design`, over the spec's own transition system. Its state
properties (S1-S4, H1) are the registry's; its trace properties (L1-L4) and its proofs are
judged by the checkers built for it (`simulate`, `prove`, `explore`, `conform`), which the
design-generic checkers do not replace.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spec.config import Config, Content, ItemSize
from spec.designs.base import (
    DEFAULT_DESIGN,
    DesignProperty,
    DriftSource,
    Scope,
    check_environment,
    check_variant,
)
from spec.drift import DRIFT_IDS, Drift, environment
from spec.fairness import is_quiescent
from spec.instances import Family, Grown, Items, Sized
from spec.lru import Entry, Ghost
from spec.machine import enabled, initial, step
from spec.properties.declare import Kind
from spec.properties.registry import registry
from spec.state import ClientItem, State
from spec.transitions import ACTION_TYPES, Action, InvalidAction
from spec.variants import VARIANT_NAMES, variant_named


def _property(prop: Any) -> DesignProperty:
    return DesignProperty(prop.id, prop.title, prop.statement, Scope.EVERY_STATE,
                          prop.check_state)


LRU_FAMILY = Family(
    identities=("a", "b"), budget=2, max_requests=2, max_in_flight=2, max_retries=1,
    max_items=2, items=Items.NEEDED, grown=(Grown("c", "extra_identity"),),
    sizes=(Sized(Content("a"), 1, 2, need="skewed_sizes"),
           Sized(Content("b"), 3, 3, need="oversized")),
)
"""The design's generic instance family (`spec.instances`): two identities (three under D8),
a budget of 2, two requests of the items the drift needs (at most 2), one retry; a of 1 byte
on P0 and 2 on P1 (D9), b of 3 bytes on both sides, over the budget (D11). Unlike the
matrix's, it resizes an identity that exists without the source (b under D11, a under D9), so
a superset's instance need not contain a subset's behaviours, as `Design.instance` states of
instances in general; the design's verdicts were computed on it as it is."""


LRU_NAME = DEFAULT_DESIGN
"""The LRU design's name: the registry's default design (`spec.designs.registry`)."""


@dataclass(frozen=True)
class LruDesign:
    """The key-replicated LRU design."""

    name: str = LRU_NAME
    title: str = "key-replicated LRU (P0's shadow mirrors P1's cache)"

    @property
    def variants(self) -> tuple[str, ...]:
        return VARIANT_NAMES

    @property
    def sources(self) -> tuple[DriftSource, ...]:
        return tuple(DriftSource(d, Drift(d).title, Drift(d).effect) for d in DRIFT_IDS)

    @property
    def refused(self) -> Mapping[str, str]:
        return {}

    @property
    def properties(self) -> tuple[DesignProperty, ...]:
        return tuple(_property(p) for p in registry() if p.state_check is not None
                     and p.kind in (Kind.SAFETY, Kind.DIAGNOSTIC, Kind.LIMIT))

    rungs: tuple[str, ...] = ("2 requests",)
    trace_tags: tuple[type, ...] = (Entry, Ghost)

    def instance(self, variant: str, environment_ids: frozenset[str], rung: int = 0
                 ) -> Config:
        """Two identities (three under D8), a budget of 2, two requests of one item (what
        `Drift.needs` asks for more), one retry; the sizes each configured source needs."""
        check_variant(self, variant)
        check_environment(self, environment_ids)
        if rung != 0:
            raise ValueError("the lru design's generic instance has one rung, 0")
        return LRU_FAMILY.config(variant_named(variant), environment(*environment_ids))

    def initial(self, config: Config) -> State:
        return initial(config)

    def enabled(self, config: Config, state: State) -> list[Action]:
        return enabled(config, state)

    def step(self, config: Config, state: State, action: Action) -> State:
        return step(config, state, action)

    def is_quiescent(self, config: Config, state: State) -> bool:
        return is_quiescent(config, state)

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment_ids: frozenset[str]) -> Config:
        sizes = tuple(ItemSize(Content(s["content"]["identity"], s["content"]["version"]),
                               s["shadow_bytes"], s["receiver_bytes"]) for s in data["sizes"])
        return Config(identities=tuple(data["identities"]), budget=data["budget"],
                      sizes=sizes, versions=data["versions"], variant=variant_named(variant),
                      environment=environment(*environment_ids),
                      max_retries=data["max_retries"], max_in_flight=data["max_in_flight"],
                      max_requests=data["max_requests"], max_items=data["max_items"],
                      front_ends=data["front_ends"], engines=data["engines"],
                      duplicates=data.get("duplicates", False))

    def action_to_json(self, action: Action) -> dict[str, Any]:
        values = {f.name: getattr(action, f.name) for f in dataclasses.fields(action)}
        if "items" in values:
            values["items"] = [dataclasses.asdict(i) for i in values["items"]]
        return {"action": action.label, **values}

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        by_label = {t.label: t for t in ACTION_TYPES}
        kind = by_label.get(str(data.get("action")))
        if kind is None:
            raise InvalidAction(f"no lru action {data.get('action')!r}; one of {list(by_label)}")
        values = {k: v for k, v in data.items() if k != "action"}
        if "items" in values:
            values["items"] = tuple(ClientItem(**i) for i in values["items"])
        return kind(**values)


LRU = LruDesign()
