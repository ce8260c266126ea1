"""P1, the engine: one message at a time, in arrival order (any order under D1).

Under D5's router configuration (`Config.engines` = 2) each engine has its own receiver and
takes the messages routed to it, in their order (any of them under D1); the engines run
concurrently, so messages routed to different engines are handled in any relative order.

Per message (P1's three steps, docs/protocol.md): touch every identity; resolve each item (payload:
per the variant's payload rule; reference: the cached entry, if present and, where tagged, with
the reference's tag); if anything missed, the request is not scheduled and one reply lists the
missed identities (or, in V0, the engine crashes); otherwise every item is handed to the model.
Items that did not miss stay cached either way. A request may name one identity twice (a
configuration with `duplicates`): each occurrence is resolved on its own, and the miss reply
lists a missed identity once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from spec import lru
from spec.config import Config
from spec.drift import Drift
from spec.state import Delivery, Fault, FaultKind, Message, Reply, Served, State, WireItem
from spec.transitions.base import Action, describe


def resolution_order(config: Config, message: Message) -> tuple[int, ...]:
    """Request order, or (references_first) references before payloads, each stable. A
    reference to an identity the same message also carries a payload for (a request naming one
    identity twice) goes with the payloads, in request order (`references_after_own_payload`):
    P0 recorded that payload, then hit it, and P1 resolves them in the order P0 updated
    them, so the reference finds the entry the payload just cached."""
    items = message.items
    indices = tuple(range(len(items)))
    if not config.variant.references_first:
        return indices
    carried = (
        {w.identity for w in items if w.data is not None}
        if config.variant.references_after_own_payload else set()
    )
    return tuple(sorted(
        indices, key=lambda i: items[i].data is not None or items[i].identity in carried))


def resolve_reference(
    config: Config, receiver: lru.Lru, item: WireItem
) -> tuple[lru.Lru, int | None]:
    """An item sent as a reference; returns (receiver, pid of the cached tensor or None)."""
    cached, receiver = lru.get(receiver, item.identity)
    if cached is None:
        return receiver, None
    if config.variant.tagged and cached.tag != item.tag:
        return receiver, None
    return receiver, cached.processing


def own_payload_pairs(config: Config, message: Message) -> tuple[tuple[int, int], ...]:
    """(payload index, reference index) for each reference of `message` that an earlier
    payload of the same message (in resolution order) carries: the same identity and, where
    tagged, the same tag. A request naming one identity twice has such a pair: P0 recorded the
    first occurrence's payload and sent the second as a reference to it."""
    order = resolution_order(config, message)
    items = message.items
    pairs: list[tuple[int, int]] = []
    for position, index in enumerate(order):
        ref = items[index]
        if ref.data is not None:
            continue
        for earlier in order[:position]:
            payload = items[earlier]
            if (payload.data is not None and payload.identity == ref.identity
                    and (not config.variant.tagged or payload.tag == ref.tag)):
                pairs.append((earlier, index))
                break
    return tuple(pairs)


def deliver(config: Config, state: State, message: Message, own_payloads: bool = False
            ) -> State:
    """The handling of one message by the engine it was routed to, with that engine's
    receiver. With `own_payloads` (`P1ReceiveOwnPayload`) in a tagged variant, a reference
    that misses the cache is served the tensor handed over for an earlier payload of the same
    message (`own_payload_pairs`) where there is one."""
    own = dict((ref, payload) for payload, ref in own_payload_pairs(config, message)) \
        if own_payloads and config.variant.tagged else {}
    receiver = state.receiver_of(message.engine)
    if config.variant.touches_first:
        for item in message.items:
            receiver = lru.touch(receiver, item.identity, config.variant.receiver_lru)
    tensors: dict[int, int] = {}
    for index in resolution_order(config, message):
        item = message.items[index]
        if item.data is not None:
            receiver, tensors[index] = resolve_payload(config, state, receiver, item)
        else:
            receiver, tensor = resolve_reference(config, receiver, item)
            if tensor is None and index in own:
                tensor = message.items[own[index]].data  # what that payload was served
            if tensor is not None:
                tensors[index] = tensor
    state = state.with_receiver(message.engine, receiver)
    missed = tuple(dict.fromkeys(
        w.identity for i, w in enumerate(message.items) if i not in tensors))
    if missed:
        return _report_miss(config, state, message, missed)
    sent = state.requests[message.rid].items  # the wire items are in request order
    served = tuple(
        Served(message.rid, w.identity, tensors[i], w.placeholders, sent[i].version)
        for i, w in enumerate(message.items)
    )
    reply = Reply(message.rid, message.front_end, ())
    return state.evolve(
        to_front_end=(*state.to_front_end, reply),
        last_delivery=Delivery(message, served, ()),
    )


def resolve_payload(
    config: Config, state: State, receiver: lru.Lru, item: WireItem
) -> tuple[lru.Lru, int]:
    """An item that carries data; returns (receiver, pid of the tensor handed to the model)."""
    assert item.data is not None
    content = state.processings[item.data].content
    variant = config.variant
    if not variant.payload_wins:
        cached, receiver = lru.get(receiver, item.identity)
        if cached is not None:
            return receiver, cached.processing  # "the cache wins": the payload is ignored
    entry = lru.Entry(item.identity, config.receiver_bytes(content), item.data, item.tag)
    if not variant.drop_before_replace and entry.size > config.budget:
        return receiver, item.data  # pre-#57833: a too-large replacement leaves the old entry
    receiver, _ = lru.put(receiver, entry, config.budget, variant.receiver_lru)
    return receiver, item.data


def _report_miss(config: Config, state: State, message: Message, missed: tuple[str, ...]) -> State:
    delivery = Delivery(message, (), missed)
    state = state.evolve(last_delivery=delivery)
    if not config.variant.reports_misses:
        detail = f"P1: no data and no cached item for {', '.join(map(repr, missed))}"
        return state.evolve(fault=Fault(FaultKind.ENGINE_CRASH, detail))
    reply = Reply(message.rid, message.front_end, config.variant.reported(missed))
    return state.evolve(to_front_end=(*state.to_front_end, reply))


@dataclass(frozen=True, slots=True)
class P1Receive(Action):
    """Engine `engine` takes the in-flight message at `index` of its own queue (the messages
    routed to it, oldest first; with one engine, every message) and handles it. Index 0 (the
    oldest) is the protocol's FIFO delivery; any other index is reordering (D1). Engines
    other than 0 exist only in D5's router configuration."""

    index: int = 0
    engine: int = 0

    def guard(self, config: Config, state: State) -> bool:
        if not 0 <= self.engine < config.engines:
            return False
        if not 0 <= self.index < len(state.queue_of(self.engine)):
            return False
        return self.index == 0 or config.enables(Drift.D1)

    def apply(self, config: Config, state: State) -> State:
        at = state.queue_of(self.engine)[self.index]
        message = state.to_engine[at]
        rest = state.to_engine[:at] + state.to_engine[at + 1 :]
        state = state.evolve(to_engine=rest)
        try:
            return deliver(config, state, message, self.own_payloads())
        except lru.EvictionHang as hang:
            where = "P1" if config.engines == 1 else f"P1 (engine {self.engine})"
            return state.evolve(fault=Fault(FaultKind.HANG, f"{where}: {hang}"))

    def drift_event(self) -> Drift | None:
        return Drift.D1 if self.index > 0 else None

    def own_payloads(self) -> bool:
        """Whether a reference that misses is served from an earlier payload of the same
        message (`P1ReceiveOwnPayload`'s choice)."""
        return False

    @classmethod
    def candidates(cls, config: Config, state: State) -> Iterator[Action]:
        for engine in range(config.engines):
            yield from (cls(i, engine) for i in range(len(state.queue_of(engine))))

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        if config.enables(Drift.D1):
            return cls.candidates(config, state)
        # In order: each engine takes only the oldest message of its queue.
        return (cls(0, e) for e in range(config.engines) if state.queue_of(e))


describe(P1Receive, "p1_receive", exercises=(Drift.D1,))


@dataclass(frozen=True, slots=True)
class P1ReceiveOwnPayload(P1Receive):
    """D9, the other choice a correct receiver may make: as `P1Receive`, but a reference that
    misses the cache is served from an earlier payload of the same message for its identity
    and tag (`own_payload_pairs`). Under size skew P1 may be unable to cache a payload P0
    recorded, so the request's second occurrence of that identity, sent as a reference to
    that record, misses; serving it the tensor its own message carries pairs it with the
    same content, so no stale pairing. Only a tagged receiver (V3, V4) can tell that the
    reference names the record the payload made (equal tags), so only there is this a
    choice: in V0-V2 the step is `P1Receive`'s. Enabled where the message it takes has such
    a pair; both choices are in the spec, so every property is decided over both, and
    conformance accepts a receiver making either (and says which it observed)."""

    def own_payloads(self) -> bool:
        return True

    def guard(self, config: Config, state: State) -> bool:
        if not P1Receive.guard(self, config, state):
            return False
        message = state.to_engine[state.queue_of(self.engine)[self.index]]
        return bool(own_payload_pairs(config, message))

    @classmethod
    def enabled_instances(cls, config: Config, state: State) -> Iterator[Action]:
        within = super(P1ReceiveOwnPayload, cls).enabled_instances(config, state)
        return (action for action in within if action.guard(config, state))


describe(P1ReceiveOwnPayload, "p1_receive_own_payload", requires=Drift.D9,
         exercises=(Drift.D1,))
