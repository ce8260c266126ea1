"""The composed path's explicit witness (`spec.designs.paths`): the engine's death under D2
and D7 together, found on a larger instance than the ladder's (three identities, five
requests), replayed on the spec before it counts (`model_checks.designs.lattice.Explicit`).

The story, as a real server shows it: request 0 sends a's first image and is served; the
encoder caches a (1 embedding). Request 1 sends b (2 embeddings): the encoder cache of 2
evicts a. Requests 2 (c) and 3 (a's new, larger image) are rejected after P0 processed them
(D2): P0's shadow now holds c and a with the new image's placeholders, P1 still holds a's
old tensor. Request 4 names a again: P0's hit sends no data and the new placeholders (2),
P1 serves the old tensor, the encoder (which no longer holds a, so the guard has nothing to
compare) computes 1 embedding from it, and the model's merge raises "Attempted to assign 1
multimodal tokens to 2 placeholders": the engine dies.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from model_checks.designs.lattice import Explicit
from spec.config import Content, ItemSize
from spec.designs.compose import ComposedConfig, Local
from spec.designs.encoder.actions import Complete, Schedule
from spec.designs.encoder.config import EncoderConfig
from spec.designs.lru_design import LRU
from spec.designs.paths import PROCESSOR_THEN_ENCODER

ENGINE_DEATH = frozenset({"D2", "D7"})
WORDS = "3 identities, 5 requests (explicit witness)"


def _processor(label: str, **fields: Any) -> Local:
    return Local(0, label, LRU.action_from_json({"action": label, **fields}))


def _encoder(action: Schedule | Complete) -> Local:
    return Local(1, type(action).__name__, action)


def _submit(identity: str, version: int = 0) -> Local:
    return _processor("submit", items=[{"identity": identity, "version": version,
                                        "has_data": True}], front_end=0)


def _served(rid: int) -> tuple[Local, ...]:
    return (_processor("p0_handle", rid=rid, engine=0),
            _processor("p1_receive", index=0, engine=0), _processor("p0_receive_reply"))


def engine_death_config() -> ComposedConfig:
    """The witness's instance: the ladder's D2+D7 instance with a third identity and five
    requests."""
    base = PROCESSOR_THEN_ENCODER.instance("V2+EC", ENGINE_DEATH)
    lru, encoder = base.configs
    lru = dataclasses.replace(lru, identities=("a", "b", "c"), max_requests=5)
    encoder = dataclasses.replace(encoder, identities=("a", "b", "c"),
                                  max_requests=lru.max_requests * (1 + lru.max_retries))
    return ComposedConfig(PROCESSOR_THEN_ENCODER.name, (lru, encoder), ENGINE_DEATH)


def engine_death_actions() -> tuple[Local, ...]:
    return (_submit("a"), *_served(0), _encoder(Schedule(0)), _encoder(Complete(0)),
            _submit("b"), *_served(1), _encoder(Schedule(1)), _encoder(Complete(1)),
            _submit("c"), _processor("p0_handle_rejected", rid=2),
            _submit("a", 1), _processor("p0_handle_rejected", rid=3),
            _submit("a", 1), *_served(4)[:2], _encoder(Schedule(2)))


REUSE = frozenset({"D7"})
REUSE_WORDS = "3 identities, 4 requests of 2 items (explicit witness)"


def silent_reuse_config() -> ComposedConfig:
    """The processor cache's V2 D7 witness instance (identities g, h, z, a second content
    each, a budget of 3 bytes, four requests of two items, two retries), every content of 1
    embedding (a reused identity's new content of the same size: the guard passes)."""
    lru = dataclasses.replace(
        PROCESSOR_THEN_ENCODER.instance("V2+EC", REUSE).configs[0],
        identities=("g", "h", "z"), budget=3, max_retries=2, max_requests=4, max_items=2,
        sizes=tuple(ItemSize(Content(i, v), n, n) for i, v, n in (
            ("h", 0, 2), ("h", 1, 1), ("g", 0, 1), ("g", 1, 2), ("z", 0, 1), ("z", 1, 2))))
    encoder = EncoderConfig(identities=lru.identities, versions=2,
                            max_requests=lru.max_requests * (1 + lru.max_retries),
                            max_items=lru.max_items, environment=REUSE)
    return ComposedConfig(PROCESSOR_THEN_ENCODER.name, (lru, encoder), REUSE)


def _items(*pairs: tuple[str, int, bool]) -> Local:
    return _processor("submit", items=[{"identity": i, "version": v, "has_data": d}
                                       for i, v, d in pairs], front_end=0)


def silent_reuse_actions() -> tuple[Local, ...]:
    """Request 0 sends g and h's second contents, served and encoded. Requests 1 and 2 fail
    by P0's assertion after P0 processed their new items (a probed hit evicted by the
    request's own insert): P0's shadow holds h's first content's placeholders, P1 the
    second's tensor. Request 3 names h by its uuid alone: P0's hit, P1's old tensor, and the
    encoder cache's entry for h passes the guard (equal sizes): the model consumes h's
    second content's embeddings with the first's placeholders, and answers without error."""
    return (_items(("g", 1, True), ("h", 1, True)), *_served(0),
            _encoder(Schedule(0)), _encoder(Complete(0)),
            _items(("z", 1, True), ("g", 0, True)), _processor("p0_handle", rid=1, engine=0),
            _items(("h", 0, True), ("z", 0, True)), _processor("p0_handle", rid=2, engine=0),
            _items(("h", 0, False)), *_served(3)[:2], _encoder(Schedule(1)))


def explicit() -> list[Explicit]:
    """The engine's death under D2+D7 (the end-to-end property, the encoder cache's S3), and
    the silently wrong answer under D7 alone (the end-to-end property, both caches' S1)."""
    death = [Explicit(ENGINE_DEATH, prop, engine_death_config(), WORDS,
                      engine_death_actions()) for prop in ("E2E", "E.S3")]
    silent = [Explicit(REUSE, prop, silent_reuse_config(), REUSE_WORDS,
                       silent_reuse_actions()) for prop in ("E2E", "E.S1", "P.S1")]
    return [*silent, *death]
