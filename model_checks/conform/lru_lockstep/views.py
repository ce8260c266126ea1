"""Comparing the spec and the implementation: both sides as plain tuples of the same shape.

Each observation (fault, processor calls, rejections, delivery, requests, channel, replies,
every shadow, the receiver) is read from the spec's state and from the implementation, in
the same shape, so that one `!=` decides agreement; `model_checks.conform.notation` prints
them. Contents are compared as the spec's `Content` values: the implementation's payloads
and placeholders are decoded (`codec`), and a value that decodes to nothing is shown as
("garbled", raw).

Tags: the spec's tags are processing ids, the implementation's are its own values; `Tags`
is the bijection learnt whenever both sides create a payload for the same item, and every
implementation tag is compared through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.lru_lockstep.implementation import Implementation
from spec import Config, Outcome, Stage, State
from spec import lru as spec_lru
from spec.state import Message, Request

Pair = tuple[str, object, object]
"""(observation label, the spec's side, the implementation's side)."""


class Tags:
    """The bijection between the spec's processing ids and the implementation's tags."""

    def __init__(self) -> None:
        self.tag_to_pid: dict[int, int] = {}
        self.pid_to_tag: dict[int, int] = {}

    def learn(self, pid: int, tag: int) -> tuple[str, str] | None:
        """Pair `pid` with `tag`; the conflict (spec side, implementation side) if either is
        already paired with another."""
        known_tag, known_pid = self.pid_to_tag.get(pid), self.tag_to_pid.get(tag)
        if known_tag is None and known_pid is None:
            self.pid_to_tag[pid], self.tag_to_pid[tag] = tag, pid
        elif known_tag != tag or known_pid != pid:
            return (f"processing {pid} (tag {self.pid_to_tag.get(pid)!r})",
                    f"tag {tag:#x} (processing {known_pid!r})")
        return None

    def learn_message(
        self, spec_message: Message | None, rid: int, message: api.WireMessage
    ) -> tuple[str, str] | None:
        """Pair the tags of the payloads both sides sent for request `rid`."""
        if spec_message is None or spec_message.rid != rid:
            return None
        for spec_item, item in zip(spec_message.items, message.items, strict=False):
            tags = (spec_item.tag, item.tag)
            if spec_item.data is not None and tags[0] is not None and tags[1] is not None:
                conflict = self.learn(tags[0], tags[1])
                if conflict is not None:
                    return conflict
        return None

    def learn_shadow(
        self, spec_shadow: spec_lru.Lru, impl_shadow: Sequence[api.ShadowEntry]
    ) -> None:
        """Pair the new shadow entries of both sides by identity (a request rejected after
        its update (D2) sends no message, but its entries are referenced later)."""
        impl = {e.identity: e.tag for e in impl_shadow}
        for entry in spec_lru.entries(spec_shadow):
            tag = impl.get(entry.identity)
            if entry.tag is None or tag is None:
                continue
            if entry.tag not in self.pid_to_tag and tag not in self.tag_to_pid:
                self.learn(entry.tag, tag)

    def of(self, tag: int | None) -> object:
        """The implementation's `tag` as the spec's processing id."""
        if tag is None:
            return None
        return self.tag_to_pid.get(tag, ("unmapped", tag))


@dataclass(frozen=True)
class CacheViews:
    """The implementation's caches, read once per step: the raw entries and their views."""

    shadows: Sequence[Sequence[api.ShadowEntry]]
    shadow_views: tuple[object, ...]
    receiver_entries: Sequence[api.ReceiverEntry]
    receiver_view: object


@dataclass(frozen=True)
class SpecStep:
    """The spec's side of the step being compared: the state after it, the state before it,
    the processings before it, and P1's delivery when a round trip's receive is not the last
    of its steps (None: the state's own last delivery)."""

    state: State
    before: State
    processings_before: int
    delivery: object | None


class Decoder:
    """The implementation's observations in the spec's terms (contents, processing ids)."""

    def __init__(self, config: Config, tags: Tags) -> None:
        self.config = config
        self.tags = tags

    def payload_content(self, payload: api.Payload) -> object:
        code = codec.payload_code(payload)
        content = None if code is None else codec.content_of(self.config, code)
        return ("garbled", tuple(sorted(payload))) if content is None else content

    def placeholders_content(self, placeholders: tuple[int, int]) -> object:
        content = codec.content_of(self.config, placeholders[0])
        if content is None or placeholders[1] != codec.placeholder_length(
            self.config.shadow_bytes(content)
        ):
            return ("garbled", placeholders)
        return content

    def read(self, impl: Implementation) -> CacheViews:
        """Every shadow, then the receiver, through the adapter."""
        shadows = [front_end.shadow() for front_end in impl.front_ends]
        shadow_views = tuple(self.shadow(shadow) for shadow in shadows)
        entries = impl.engine.receiver()
        return CacheViews(shadows, shadow_views, entries, self.receiver(entries))

    def shadow(self, shadow: Sequence[api.ShadowEntry]) -> object:
        return tuple(
            (e.identity, e.size, self.placeholders_content(e.placeholders), self.tags.of(e.tag))
            for e in shadow
        )

    def receiver(self, entries: Sequence[api.ReceiverEntry]) -> object:
        return tuple(
            (e.identity, e.size, self.payload_content(e.payload), self.tags.of(e.tag))
            for e in entries
        )

    def delivery(self, impl: Implementation) -> object:
        if impl.delivery is None:
            return None
        rid, result = impl.delivery
        if isinstance(result, api.Fault):
            return ("fault", result.kind)
        if isinstance(result, api.Missed):
            return (rid, "missed", result.identities)
        return (rid, "served", tuple(
            (i.identity, self.payload_content(i.payload), self.placeholders_content(
                i.placeholders))
            for i in result.inputs
        ))

    def channel(self, impl: Implementation) -> object:
        return tuple(
            (s.rid, s.front_end, tuple(
                (w.identity,
                 None if w.payload is None else self.payload_content(w.payload),
                 None if w.payload is None else codec.payload_nbytes(w.payload),
                 self.placeholders_content(w.placeholders), self.tags.of(w.tag))
                for w in s.message.items
            ))
            for s in impl.channel
        )


def _stage(stage: Stage) -> Stage:
    # UPDATING is shown as PROCESSED on both sides: an implementation whose update is atomic
    # never shows it, and where items are updated one by one the shadows show the progress.
    return Stage.PROCESSED if stage is Stage.UPDATING else stage


def spec_delivery(config: Config, state: State, impl_delivered: bool) -> object:
    """P1's delivery in the spec's last step (a fault, if the implementation delivered
    something where the spec's state stopped)."""
    delivery = state.last_delivery
    if delivery is None:
        if state.fault is not None and impl_delivered:
            return ("fault", state.fault.kind.value)
        return None
    rid = delivery.message.rid
    if delivery.missed:
        if not config.variant.reports_misses:
            return ("fault", "engine-crash")
        return (rid, "missed", config.variant.reported(delivery.missed))
    return (rid, "served", tuple(
        (s.identity, state.processings[s.tensor].content,
         state.processings[s.placeholders].content)
        for s in delivery.served
    ))


def _spec_channel(config: Config, state: State) -> object:
    return tuple(
        (m.rid, m.front_end, tuple(
            (w.identity, None if w.data is None else state.processings[w.data].content,
             None if w.data is None else config.shadow_bytes(
                 state.processings[w.data].content),
             state.processings[w.placeholders].content, w.tag)
            for w in m.items
        ))
        for m in state.to_engine
    )


def _spec_cache(state: State, cache: spec_lru.Lru) -> object:
    return tuple(
        (e.identity, e.size, state.processings[e.processing].content, e.tag)
        if isinstance(e, spec_lru.Entry) else ("ghost", e.identity)
        for e in cache
    )


def _rejections(spec: SpecStep, impl: Implementation) -> list[Pair]:
    """A request rejected as a client error in this step: the identities the spec rejects it
    for (`_rejected_for`), against the ones the implementation's rejection named, in request
    order."""
    pairs: list[Pair] = []
    for rid, request in enumerate(spec.state.requests):
        was = spec.before.requests[rid] if rid < len(spec.before.requests) else None
        attempt = impl.attempts[rid] if rid < len(impl.attempts) else None
        if (request.outcome is not Outcome.CLIENT_ERROR or attempt is None or was is None
                or was.outcome is Outcome.CLIENT_ERROR or attempt.rejected is None):
            continue
        spec_side = _rejected_for(spec, was)
        if spec_side is not None:
            pairs.append((f"rejection of request {rid}", spec_side, attempt.rejected))
    return pairs


def _rejected_for(spec: SpecStep, was: Request) -> tuple[str, ...] | None:
    """Why the spec rejects `was` (the request before the step): at the probe, its UUID-only
    identities the shadow did not hold; at the first item of its update (V3), its UUID-only
    probed hits the shadow lost since; at a later item (V3), that item's identity. None where
    the step started at the first item and failed at a later one (an atomic update took
    them all): which item failed is then not decided here."""
    shadow = spec.before.shadows[was.front_end]
    if was.work is None:
        return tuple(i.identity for i in was.items
                     if not i.has_data and not spec_lru.probe(shadow, i.identity))
    work = was.work
    if work.done == 0:
        lost = tuple(i.identity for i, pid in zip(was.items, work.processed, strict=True)
                     if pid is None and not i.has_data and not spec_lru.probe(shadow, i.identity))
        if lost:
            return lost
    if 0 < work.done < len(work.order):
        return (was.items[work.order[work.done]].identity,)
    return None


def tagless(config: Config, state: State, impl: Implementation, views: CacheViews) -> bool:
    """Whether the implementation has no tags at all where the spec's variant tags
    everything (then one sentence says so, not a tag-column diff)."""
    if not config.variant.tagged:
        return False
    spec_tags = [w.tag for m in state.to_engine for w in m.items]
    spec_tags += [e.tag for s in state.shadows for e in spec_lru.entries(s)]
    impl_tags = [w.tag for s in impl.channel for w in s.message.items]
    impl_tags += [e.tag for shadow in views.shadows for e in shadow]
    return any(t is not None for t in spec_tags) and bool(impl_tags) and all(
        t is None for t in impl_tags
    )


def early_pairs(
    config: Config, decoder: Decoder, spec: SpecStep, impl: Implementation
) -> list[Pair]:
    """The observations compared whatever happened: the fault; while neither side stopped,
    the processor calls and the rejections; P1's delivery."""
    state = spec.state
    running = state.fault is None and impl.fault is None
    pairs: list[Pair] = [
        ("fault", None if state.fault is None else state.fault.kind.value,
         None if impl.fault is None else impl.fault.kind),
    ]
    if running:
        made = len(state.processings) - spec.processings_before
        pairs.append(("processor calls", made, impl.processor_calls))
        pairs += _rejections(spec, impl)
    if running or impl.delivery is not None:
        delivered = spec.delivery if spec.delivery is not None else spec_delivery(
            config, state, impl.delivery is not None)
        pairs.append(("delivery", delivered, decoder.delivery(impl)))
    return pairs


def cache_pairs(
    config: Config, decoder: Decoder, state: State, impl: Implementation, views: CacheViews
) -> list[Pair]:
    """The observations compared while neither side stopped: requests, channel, replies,
    every shadow, the receiver."""
    return [
        ("requests",
         tuple((r.rid, _stage(r.stage), r.outcome, r.retries) for r in state.requests),
         tuple((rid, _stage(a.stage), a.outcome, a.retries)
               for rid, a in enumerate(impl.attempts))),
        ("channel", _spec_channel(config, state), decoder.channel(impl)),
        ("replies", tuple((r.rid, r.missed) for r in state.to_front_end),
         tuple((rid, missed) for rid, _, missed in impl.replies)),
        *(
            (f"shadow {fe}", _spec_cache(state, state.shadows[fe]), views.shadow_views[fe])
            for fe in range(config.front_ends)
        ),
        ("receiver", _spec_cache(state, state.receiver), views.receiver_view),
    ]
