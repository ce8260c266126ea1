"""State properties: S1-S4 and the diagnostic H1. Each returns the reasons a state violates it."""

from __future__ import annotations

from spec import lru
from spec.config import Config
from spec.properties.declare import Kind, state_property
from spec.state import Outcome, State


@state_property("S1", "consistent pairing", Kind.SAFETY, compares_contents=True, statement="""
    Every item P1 hands to the model pairs a tensor and placeholders that come from the
    processing of the same content: no stale tensor is ever paired with fresh placeholders.""")
def consistent_pairing(config: Config, state: State) -> list[str]:
    reasons = []
    for served in state.last_delivery.served if state.last_delivery else ():
        tensor = state.processings[served.tensor].content
        placeholders = state.processings[served.placeholders].content
        if tensor != placeholders:
            reasons.append(
                f"request {served.rid} item {served.identity!r}: tensor of version "
                f"{tensor.version} paired with placeholders of version {placeholders.version}"
            )
    return reasons


@state_property("S2", "budget", Kind.SAFETY, statement="""
    No engine's P1 caches more bytes than the budget, and no shadow records more.""")
def within_budget(config: Config, state: State) -> list[str]:
    reasons = []
    for engine, receiver in enumerate(state.receivers()):
        used = lru.bytes_used(receiver)
        if used > config.budget:
            where = "P1" if engine == 0 else f"P1 (engine {engine})"
            reasons.append(f"{where} holds {used} bytes, over the budget {config.budget}")
    for front_end, shadow in enumerate(state.shadows):
        used = lru.bytes_used(shadow)
        if used > config.budget:
            reasons.append(f"shadow {front_end} records {used} bytes, over the budget")
    return reasons


@state_property("S3", "no crash", Kind.SAFETY, statement="""
    No assertion fires, no error goes unhandled and eviction always terminates: neither
    side crashes or hangs, and P0's assertion (a probed hit gone at update time, no data to
    send) never fails a request.""")
def no_crash(config: Config, state: State) -> list[str]:
    reasons = [
        f"p0-assert: request {r.rid}: a probed hit was gone at P0's update and there was no "
        "data to send"
        for r in state.requests
        if r.outcome is Outcome.P0_ASSERT
    ]
    if state.fault is not None:
        reasons.append(f"{state.fault.kind.value}: {state.fault.detail}")
    return reasons


@state_property("S4", "freshness", Kind.LIMIT, compares_contents=True, statement="""
    The content served for an item equals the content the client sent for it in this
    request. Cannot hold under identity reuse (D7) unless identities are bound to content:
    a reference names an identity, and the identity no longer determines the content.""")
def freshness(config: Config, state: State) -> list[str]:
    reasons = []
    for served in state.last_delivery.served if state.last_delivery else ():
        for role, pid in (("tensor", served.tensor), ("placeholders", served.placeholders)):
            version = state.processings[pid].version
            if version != served.sent_version:
                reasons.append(
                    f"request {served.rid} item {served.identity!r}: client sent version "
                    f"{served.sent_version}, {role} are of version {version}"
                )
    return reasons


@state_property("H1", "hit coverage", Kind.DIAGNOSTIC, statement="""
    Every identity P0 sends as a reference (a shadow hit) is cached in P1, with the trusted
    tag where the variant has tags, when P1 handles that request. Expected to fail under
    drift: removing keys from P0 is always safe; adding keys P1 never sees, or removing keys
    from P1 alone, is not.""")
def hit_coverage(config: Config, state: State) -> list[str]:
    delivery = state.last_delivery
    if delivery is None or not delivery.missed:
        return []
    missed = ", ".join(repr(i) for i in delivery.missed)
    return [f"request {delivery.message.rid}: P1 has no usable entry for {missed}"]
