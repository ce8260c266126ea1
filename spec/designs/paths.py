"""A request's path through the caches a multimodal identity keys, composed by the recipe of
`spec.designs.compose`: the processor cache (the key-replicated LRU pair, variant V2, as
vLLM 0.33.0 ships it), then the engine's encoder cache. The link: an item P1 hands to the
engine is an item arriving at the encoder cache, its data from the processing of the
tensor P1 served, its placeholders from the processing P0's placeholders came from.

The end-to-end property, E2E: the model consumes embeddings computed from the content whose
placeholders it sees, or the request fails with an error; no client request kills the
engine.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from spec.config import Content
from spec.designs.base import DesignProperty, Scope
from spec.designs.compose import ComposedConfig, ComposedDesign, ComposedState, Link, Stage
from spec.designs.encoder.actions import Arrive
from spec.designs.encoder.config import EncoderConfig
from spec.designs.encoder.design import ENCODER
from spec.designs.encoder.properties import consistent_pairing, no_crash
from spec.designs.encoder.state import Item
from spec.designs.lru_design import LRU
from spec.drift import environment
from spec.state import State


def _served(config: Any, before: Any, action: Any, after: State) -> tuple[Any, ...]:
    """A message P1 served whole reaches the engine's scheduler: one arrival of its items."""
    delivery = after.last_delivery
    if delivery is None or delivery.missed or not delivery.served:
        return ()
    contents = after.processings
    return (Arrive(tuple(Item(s.identity, contents[s.tensor].content,
                              contents[s.placeholders].content,
                              Content(s.identity, s.sent_version))
                         for s in delivery.served)),)


def _rebind_lru(config: Any, ids: frozenset[str]) -> Any:
    return dataclasses.replace(config, environment=environment(*ids))


def _build(env: frozenset[str], rung: int) -> tuple[Any, ...]:
    """The LRU design's generic instance for the processor cache (three requests at rung 1);
    the encoder cache with the same identities and contents, b and the reused content a.v1
    of 2 embeddings (a.v0 of 1: a reused identity's new content has another size), a cache
    and an encoder budget of 2 (the largest item: b evicts a), room for every request."""
    lru = LRU.instance("V2", env & {s.id for s in LRU.sources})
    if rung:
        lru = dataclasses.replace(lru, max_requests=lru.max_requests + rung)
    contents = {Content(i) for i in lru.identities} | {
        Content(lru.identities[0], v) for v in range(lru.versions)}
    embeds = tuple((c, 2) for c in (Content("b"), Content(lru.identities[0], 1))
                   if c in contents)
    encoder = EncoderConfig(identities=lru.identities, versions=lru.versions, embeds=embeds,
                            max_requests=lru.max_requests * (1 + lru.max_retries),
                            max_items=lru.max_items,
                            environment=env & {s.id for s in ENCODER.sources})
    return lru, encoder


def end_to_end(config: ComposedConfig, state: ComposedState) -> list[str]:
    """The model consumes embeddings computed from the content whose placeholders it sees,
    or the request fails with an error; no client request kills the engine (neither P1 nor
    the model's merge of encoder outputs raises, and no eviction hangs). P0's assertion
    fails its request with a server error and kills nothing: it is the processor cache's S3
    (`P.S3`), not this property's."""
    lru, encoder = state.states
    reasons = [f"processor cache: {lru.fault.kind.value}: {lru.fault.detail}"] \
        if lru.fault is not None else []
    reasons += [f"encoder cache: {r}" for r in no_crash(config.configs[1], encoder)]
    reasons += [f"encoder cache: {r}" for r in consistent_pairing(config.configs[1], encoder)]
    return reasons


E2E = DesignProperty("E2E", "end to end: consumed as seen, or a clear failure",
                     " ".join((end_to_end.__doc__ or "").split()), Scope.EVERY_STATE,
                     end_to_end)

PROCESSOR_THEN_ENCODER = ComposedDesign(
    name="lru+encoder",
    title="processor cache, then the engine's encoder cache (one request's path)",
    stages=(Stage(LRU, "V2", "P", _rebind_lru), Stage(ENCODER, "EC", "E")),
    links=(Link(_served, lambda action: isinstance(action, Arrive)),),
    build=_build,
    end_to_end=(E2E,),
    rungs=("2 requests", "3 requests"),
    carried=("P.S1", "P.S4", "E.S1", "E.S2", "E.S3", "E.S4", "E.U1"),
)
"""The processor cache's S2, S3 and H1 are not carried: they are its own, answered for V2 on
its own page, and nothing downstream changes them (links only hand work forward)."""
