"""The engine (P1): request-level wiring around the receiver cache.

``receive(message)`` resolves every item of the request and either hands the model one
``ModelInput`` per item, in request order, or raises ONE error listing every missed identity
(``MultiModalCacheMissError``; V0: ``ReceiverCacheAssertionError``). Items that did not miss
are still cached, so that the retry only has to carry the missed ones' data to hit the rest.
"""

from __future__ import annotations

from reference._validate import check_instance, check_request_id
from reference.lru import CacheStats
from reference.messages import Message, ModelInput
from reference.receiver import ReceiverCache
from reference.variants import DEFAULT_VARIANT, Variant

__all__ = ["Engine"]


class Engine:
    """P1: one receiver cache. Thread safety: that of ``ReceiverCache``."""

    def __init__(self, budget: int, *, variant: Variant = DEFAULT_VARIANT) -> None:
        self._receiver = ReceiverCache(budget, variant=variant)

    @property
    def receiver(self) -> ReceiverCache:
        return self._receiver

    @property
    def variant(self) -> Variant:
        return self._receiver.variant

    def receive(self, message: Message) -> tuple[ModelInput, ...]:
        """What the model gets for this request; raises if any item missed."""
        if type(message) is not Message:
            check_instance("message", message, Message)
        items = message.items
        if type(items) is not tuple:
            check_instance("message items", items, tuple)
        if type(message.request_id) is not int:
            check_request_id(message.request_id)
        resolution = self._receiver.resolve(items)
        if resolution.missed:
            raise self._receiver.miss_error(resolution.missed, request_id=message.request_id)
        return resolution.inputs

    def clear(self) -> None:
        """Drop every cached payload (sleep, reset). Unsafe unless P0 clears too (D3)."""
        self._receiver.clear()

    def stats(self) -> CacheStats:
        return self._receiver.stats()
