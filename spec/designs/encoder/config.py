"""The configuration of one instance of the encoder-cache design.

Sizes are in embeddings, the unit of vLLM's encoder cache (`EncoderCacheManager`'s
`cache_size`, `compute_mm_encoder_budget`): `embeds` gives each content's number of encoder
embeddings (1 for a content not listed), the same number of placeholders its processing puts
in the prompt. `cache_embeds` is the cache's budget and `compute_embeds` the encoder's budget
per scheduling step; the release makes both at least the largest item's embeddings, and a
configuration where an item exceeds either is rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spec.config import Content, InvalidConfiguration

ENCODER_CACHE = "EC"
"""The design's one variant: the encoder cache as vLLM 0.33.0 ships it."""


@dataclass(frozen=True, slots=True)
class EncoderKnobs:
    """What a mutant of the design changes: each field is one mechanism of the release;
    `EncoderKnobs()` is the release."""

    guard_compares_counts: bool = True
    """The scheduler's guard (`_reject_on_encoder_cache_embed_mismatch`) rejects a request
    whose placeholders differ in number from the cached entry's embeddings (off: the cached
    entry is reused whatever its size)."""
    frees_computed_inputs: bool = True
    """Once a request's placeholders of an item are computed, its reference to the entry is
    dropped (`_free_encoder_inputs`; off: the reference stays, and the entry is never
    freeable)."""


@dataclass(frozen=True, slots=True)
class EncoderConfig:
    """A finite instance.

    identities: the identities (mm hashes: a client's uuid, else the content hash) clients
    may name; versions: contents of the first identity (more than 1 only under D7).
    embeds: (content, embeddings) pairs. cache_embeds, compute_embeds: the budgets.
    max_requests, max_items: bounds of the client (arrivals at the engine).
    """

    identities: tuple[str, ...] = ("a", "b")
    versions: int = 1
    embeds: tuple[tuple[Content, int], ...] = ()
    cache_embeds: int = 2
    compute_embeds: int = 2
    max_requests: int = 2
    max_items: int = 2
    variant: str = ENCODER_CACHE
    environment: frozenset[str] = frozenset()
    knobs: EncoderKnobs = EncoderKnobs()

    def __post_init__(self) -> None:
        _validate(self)

    @staticmethod
    def from_json(data: Mapping[str, Any], environment: frozenset[str]) -> EncoderConfig:
        """The configuration a witness file states (its constants as `describe` writes them,
        without environment or knobs), under `environment`."""
        embeds = tuple((Content(c["identity"], c["version"]), n) for c, n in data["embeds"])
        return EncoderConfig(identities=tuple(data["identities"]), versions=data["versions"],
                             embeds=embeds, cache_embeds=data["cache_embeds"],
                             compute_embeds=data["compute_embeds"],
                             max_requests=data["max_requests"], max_items=data["max_items"],
                             environment=environment)

    def enables(self, source: str) -> bool:
        return source in self.environment

    def contents(self) -> tuple[Content, ...]:
        """Every content a client may send: the first identity has `versions` contents (the
        reused one under D7), every other identity one."""
        first, *rest = self.identities
        return (*(Content(first, v) for v in range(self.versions)),
                *(Content(i) for i in rest))

    def size(self, content: Content) -> int:
        """The content's encoder embeddings (and its placeholders)."""
        return dict(self.embeds).get(content, 1)


def _validate(config: EncoderConfig) -> None:
    for name in ("cache_embeds", "compute_embeds", "max_requests", "max_items", "versions"):
        value = getattr(config, name)
        _require(type(value) is int and value >= 1, f"{name} must be an int >= 1, got {value!r}")
    _require(bool(config.identities) and len(set(config.identities)) == len(config.identities),
             f"identities {config.identities!r}: give at least one, each once")
    _require(config.versions == 1 or config.enables("D7"),
             f"versions={config.versions} reuses identities for new content; enable D7")
    _require(config.variant == ENCODER_CACHE,
             f"the encoder-cache design has one variant, {ENCODER_CACHE}; got "
             f"{config.variant!r}")
    known = set(config.contents())
    for content, size in config.embeds:
        _require(type(size) is int and size >= 1, f"embeds of {content!r} must be >= 1")
        _require(content in known, f"embeds names {content!r}, not a content of the instance")
    largest = max((config.size(c) for c in known), default=1)
    _require(largest <= min(config.cache_embeds, config.compute_embeds),
             f"an item of {largest} embeddings exceeds the cache ({config.cache_embeds}) or "
             f"the encoder's budget ({config.compute_embeds}); the release makes both at least "
             "the largest item's (compute_mm_encoder_budget)")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidConfiguration(message)
