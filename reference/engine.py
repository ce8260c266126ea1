"""The engine (P1): request-level wiring around the receiver cache.

``receive(message)`` resolves every item of the request and either hands the model one
``ModelInput`` per item, in request order, or raises ONE error listing every missed identity
(``MultiModalCacheMissError``; V0: ``ReceiverCacheAssertionError``). Items that did not miss
are still cached, so that the retry only has to carry the missed ones' data to hit the rest.
"""

from __future__ import annotations

from reference._validate import check_exact, check_request_id
from reference.errors import NonceInUseError
from reference.lru import CacheStats
from reference.messages import Message, ModelInput
from reference.receiver import ReceiverCache
from reference.tags import TagSource
from reference.variants import DEFAULT_VARIANT, Variant

__all__ = ["Engine"]


class Engine:
    """P1: one receiver cache. Thread safety: that of ``ReceiverCache``."""

    def __init__(self, budget: int, *, variant: Variant = DEFAULT_VARIANT) -> None:
        self._receiver = ReceiverCache(budget, variant=variant)
        self._sources: dict[int, TagSource] = {}  # nonce -> the source that presented it

    def admit(self, tags: TagSource) -> None:
        """Record that ``tags`` (a front end's tag source) sends to this engine; reject, with
        ``NonceInUseError`` and nothing changed, a source presenting a nonce that another
        source presented before (tagged variants; untagged ones send no tags). A source keeps
        every nonce it presented for the engine's life: entries tagged with it may remain.
        ``reference.serve`` and ``reference.pipeline.deliver`` call it first."""
        if type(tags) is not TagSource:
            check_exact("tags", tags, TagSource)
        if not self._receiver.variant.tagged:
            return
        if self._sources.setdefault(tags.nonce, tags) is not tags:
            raise _nonce_in_use(tags)

    def check_admission(self, tags: TagSource) -> None:
        """Raise as ``admit`` would, recording nothing: what ``reference.serve`` checks
        before the front end changes anything (``deliver`` admits the source later, before
        the engine receives the message)."""
        if type(tags) is not TagSource:
            check_exact("tags", tags, TagSource)
        if self._receiver.variant.tagged and self._sources.get(tags.nonce, tags) is not tags:
            raise _nonce_in_use(tags)

    @property
    def receiver(self) -> ReceiverCache:
        return self._receiver

    @property
    def variant(self) -> Variant:
        return self._receiver.variant

    def receive(self, message: Message) -> tuple[ModelInput, ...]:
        """What the model gets for this request; raises if any item missed."""
        if type(message) is not Message:
            check_exact("message", message, Message)
        items = message.items
        if type(items) is not tuple:
            check_exact("message items", items, tuple)
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


def _nonce_in_use(tags: TagSource) -> NonceInUseError:
    return NonceInUseError(
        f"got a front end whose tag nonce {tags.nonce} another front end presented "
        "to this engine, expected a nonce of its own (TagSource(); a fixed nonce is "
        "for tests only)"
    )
