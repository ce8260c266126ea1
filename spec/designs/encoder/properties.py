"""The encoder-cache design's properties, stated over its own state. S1-S4 keep the
catalogue's meaning, said of what the model consumes; U1 is this design's own: an idle
engine holds no reference (every entry can be freed).
"""

from __future__ import annotations

from spec.config import Content
from spec.designs.base import DesignProperty, Scope
from spec.designs.encoder.config import EncoderConfig
from spec.designs.encoder.state import EncoderState


def consistent_pairing(config: EncoderConfig, state: EncoderState) -> list[str]:
    """Every encoder output the model consumes was computed from the content whose
    placeholders it fills."""
    return [f"request {c.rid} item {c.identity!r}: embeddings of {_name(c.embeddings)} "
            f"consumed with placeholders of {_name(c.placeholders)}"
            for c in state.last_consumed if c.embeddings != c.placeholders]


def within_budget(config: EncoderConfig, state: EncoderState) -> list[str]:
    """The manager's entries take at most the cache's embeddings."""
    held = sum(e.embeds for e in state.entries)
    return [] if held <= config.cache_embeds else [
        f"entries hold {held} embeddings, over the cache's {config.cache_embeds}"]


def no_crash(config: EncoderConfig, state: EncoderState) -> list[str]:
    """The engine is alive: no encoder output is assigned to placeholders of another number
    (the model's merge raises, which kills the engine)."""
    return [] if state.fault is None else [state.fault]


def served_is_sent(config: EncoderConfig, state: EncoderState) -> list[str]:
    """The encoder output the model consumes was computed from the content the client sent
    for that item."""
    return [f"request {c.rid} item {c.identity!r}: the client sent {_name(c.sent)}, the model "
            f"consumed embeddings of {_name(c.embeddings)}"
            for c in state.last_consumed if c.embeddings != c.sent]


def idle_frees(config: EncoderConfig, state: EncoderState) -> list[str]:
    """When no request is waiting or running, no entry is referenced: every cached output
    can be evicted when space is needed (a reference left behind pins its entry, and the
    cache takes less and less)."""
    if state.fault is not None:
        return []
    return [f"entry {e.identity!r} referenced by request(s) {sorted(e.refs)} with no request "
            "running" for e in state.entries if e.refs]


def _name(content: Content) -> str:
    return f"{content.identity}.v{content.version}"


def _property(prop_id: str, title: str, check: object, scope: Scope = Scope.EVERY_STATE
              ) -> DesignProperty:
    statement = (getattr(check, "__doc__", "") or "").strip()
    return DesignProperty(prop_id, title, " ".join(statement.split()), scope,
                          check)  # type: ignore[arg-type]


PROPERTIES: tuple[DesignProperty, ...] = (
    _property("S1", "consistent pairing", consistent_pairing),
    _property("S2", "within the budget", within_budget),
    _property("S3", "no crash", no_crash),
    _property("S4", "served is sent", served_is_sent),
    _property("U1", "an idle engine holds no reference", idle_frees, Scope.QUIESCENT),
)
