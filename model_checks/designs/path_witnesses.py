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
from spec.designs.compose import ComposedConfig, Local
from spec.designs.encoder.actions import Complete, Schedule
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


def explicit() -> list[Explicit]:
    """The engine's death, for the end-to-end property and the encoder cache's S3."""
    config, actions = engine_death_config(), engine_death_actions()
    return [Explicit(ENGINE_DEATH, prop, config, WORDS, actions) for prop in ("E2E", "E.S3")]
