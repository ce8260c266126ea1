"""A pair whose receiver serves a reference that misses its cache from an earlier payload of
the same request with the same identity and tag (under size skew, D9, a payload the receiver
could not cache). The spec allows it (`P1ReceiveOwnPayload`): conformance must accept it and
say which choice it observed. (`factory` is the entry point:
``--adapter tests.conform.own_payload_pair:factory``.)"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from model_checks.conform.reference_adapter import ReferenceAdapter
from reference.engine import Engine
from reference.items import TensorTree
from reference.messages import WireItem
from reference.receiver import ReceiverCache, Resolution


class OwnPayloadReceiver(ReceiverCache):
    """The reference receiver, remembering the payloads of the request it resolves."""

    def __init__(self, budget: int, **kwargs: Any) -> None:
        super().__init__(budget, **kwargs)
        self._own: dict[tuple[str, int | None], TensorTree] = {}

    def resolve(self, items: Sequence[WireItem]) -> Resolution:
        self._own = {}
        try:
            return super().resolve(items)
        finally:
            self._own = {}

    def _resolve_one(self, item: WireItem, size: int,
                     kept: TensorTree | None) -> TensorTree | None:
        served = super()._resolve_one(item, size, kept)
        key = (item.identity, item.tag)
        if item.payload is not None and served is not None:
            self._own.setdefault(key, served)
        elif served is None:
            served = self._own.get(key)
        return served


class OwnPayloadEngine(Engine):
    """The reference engine over `OwnPayloadReceiver`."""

    def __init__(self, budget: int, **kwargs: Any) -> None:
        super().__init__(budget, **kwargs)
        self._receiver = OwnPayloadReceiver(budget, **kwargs)


@dataclass
class OwnPayloadAdapter(ReferenceAdapter):
    name: str = "reference, serving a reference from its own request's payload"
    engine_class: Any = OwnPayloadEngine


def factory() -> OwnPayloadAdapter:
    return OwnPayloadAdapter()
