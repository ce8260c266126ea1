"""The encoder-cache design as a `spec.designs.base.Design`: its sources, refusals,
properties, instance builder and transition system."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from spec.config import Content
from spec.designs.base import DesignProperty, DriftSource, check_environment, check_variant
from spec.designs.encoder.actions import ACTION_TYPES, EncoderAction, candidates
from spec.designs.encoder.config import ENCODER_CACHE, EncoderConfig
from spec.designs.encoder.properties import PROPERTIES
from spec.designs.encoder.state import EncoderState, Item, Stage
from spec.transitions import InvalidAction

SOURCES: tuple[DriftSource, ...] = (
    DriftSource("D1", "reordered scheduling",
                "the scheduler schedules and completes requests in another order than they "
                "arrived (priorities, or a request that cannot be scheduled while a later one "
                "can): entries are referenced, freed and evicted in another order"),
    DriftSource("D7", "identity reused for new content",
                "a client names new content with an identity the encoder cache holds an "
                "output for: the entry is reused by identity alone, and only a different "
                "number of placeholders is caught (the guard rejects the request)"),
    DriftSource("R1", "encoder cache reset while requests run",
                "`reset_encoder_cache` empties the manager and the workers' outputs in one "
                "call while requests are waiting or running"),
)

REFUSED: dict[str, str] = {
    "D2": "a request rejected or aborted before the engine never reaches the scheduler; one "
    "aborted in it drops its references as a completed one does (`free`)",
    "D3": "no second side to drift from: the manager and the workers' outputs change in the "
    "same scheduling step (the freed identities travel with the scheduler output and the "
    "workers drop them before they run), and the one clear, `reset_encoder_cache`, empties "
    "both in one call (R1)",
    "D4": "the one clear empties both sides in one call between scheduling steps (R1)",
    "D5": "each engine has its own scheduler and workers: no two managers share one cache",
    "D6": "the scheduler runs one request's hits, checks and allocations in one synchronous "
    "pass",
    "D8": "a request whose items exceed the cache is scheduled in chunks, an item waiting "
    "for space (the design's Schedule does it): not drift",
    "D9": "one number sizes an entry, the request's placeholders, for the manager and the "
    "guard alike; an output of another size than its placeholders comes from a processor "
    "cache in front (the composed system)",
    "D10": "a restart of the engine loses the encoder cache with every request in it: "
    "nothing is left to drift from",
    "D11": "the release sizes both budgets at least the largest item's embeddings "
    "(`compute_mm_encoder_budget`): no item exceeds them",
}


@dataclass(frozen=True)
class EncoderDesign:
    """vLLM 0.33.0's encoder cache: the scheduler's `EncoderCacheManager` and the workers'
    encoder outputs, keyed by the item's identity."""

    name: str = "encoder"
    title: str = "engine's encoder cache (scheduler's manager and workers' outputs)"
    variants: tuple[str, ...] = (ENCODER_CACHE,)
    sources: tuple[DriftSource, ...] = SOURCES
    properties: tuple[DesignProperty, ...] = PROPERTIES

    @property
    def refused(self) -> Mapping[str, str]:
        return REFUSED

    rungs: tuple[str, ...] = ("2 requests", "3 requests")
    trace_tags: tuple[type, ...] = ()

    def instance(self, variant: str, environment: frozenset[str], rung: int = 0
                 ) -> EncoderConfig:
        """Two identities, a of 1 embedding and b of 2, a cache and an encoder budget of 2
        (the largest item: b evicts a), requests of up to two items: two requests at rung
        0, three at 1. D7 adds two contents of a: a.v1 of a's size (the guard passes) and
        a.v2 of 2 embeddings (the guard rejects), so an environment's instance has every
        behaviour of its subsets'."""
        check_variant(self, variant)
        check_environment(self, environment)
        if not 0 <= rung < len(self.rungs):
            raise ValueError(f"rung {rung}: the encoder design's rungs are "
                             f"0..{len(self.rungs) - 1}")
        embeds: tuple[tuple[Content, int], ...] = ((Content("b"), 2),)
        if "D7" in environment:
            embeds = (*embeds, (Content("a", 2), 2))
        return EncoderConfig(versions=3 if "D7" in environment else 1, embeds=embeds,
                             max_requests=2 + rung, environment=environment)

    def initial(self, config: EncoderConfig) -> EncoderState:
        return EncoderState()

    def enabled(self, config: EncoderConfig, state: EncoderState) -> list[EncoderAction]:
        if state.fault is not None:
            return []
        return [a for a in candidates(config, state) if a.guard(config, state)]

    def step(self, config: EncoderConfig, state: EncoderState, action: EncoderAction
             ) -> EncoderState:
        """The next state; raises InvalidAction (changing nothing) for an action not enabled."""
        if state.fault is not None or not _available(config, action) or not action.guard(
                config, state):
            raise InvalidAction(f"{action!r} is not enabled in this state")
        cleared = state.evolve(last_consumed=()) if state.last_consumed else state
        return action.apply(config, cleared)

    def is_quiescent(self, config: EncoderConfig, state: EncoderState) -> bool:
        return all(r.stage is Stage.DONE for r in state.requests)

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment: frozenset[str]) -> EncoderConfig:
        check_variant(self, variant)
        return EncoderConfig.from_json(data, environment)

    def action_to_json(self, action: EncoderAction) -> dict[str, Any]:
        return {"action": type(action).__name__, **_plain(asdict(action))}

    def action_from_json(self, data: Mapping[str, Any]) -> EncoderAction:
        by_name = {t.__name__: t for t in ACTION_TYPES}
        kind = by_name.get(str(data.get("action")))
        if kind is None:
            raise InvalidAction(f"no encoder action {data.get('action')!r}; one of "
                                f"{list(by_name)}")
        values = {f.name: _typed(f.name, data[f.name]) for f in fields(kind)}
        return kind(**values)


def _available(config: EncoderConfig, action: EncoderAction) -> bool:
    return action.requires is None or config.enables(action.requires)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def _content(data: Any) -> Content:
    return Content(str(data["identity"]), int(data["version"]))


def _typed(name: str, value: Any) -> Any:
    if name == "items":
        return tuple(Item(str(i["identity"]), _content(i["tensor"]),
                          _content(i["placeholders"]), _content(i["sent"])) for i in value)
    return value


ENCODER = EncoderDesign()

__all__ = ["ENCODER", "REFUSED", "SOURCES", "EncoderDesign"]
