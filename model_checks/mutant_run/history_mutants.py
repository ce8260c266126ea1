"""The classes of the reference implementation's history mutants, each a known bug of the
system's history.

Every class is a subclass of a reference class (reference/ is never edited), built through its
declared seams (public methods, and the hooks and functions of `reference.extension`). The
registry (`model_checks.mutation.registry`) names each mutant, the variant it mutates (its
spec is what the mutant must disagree with), its story and the part of the reference its
class replaces; `model_checks.mutant_run.reference_mutants` wires it into the reference
adapter, so the conformance run checks it exactly as it checks the reference.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, TypeVar, cast

from model_checks.conform.adapter import EvictionHang
from reference import (
    CacheError,
    FrontEnd,
    MultiModalCacheMissError,
    ReceiverCache,
    ReceiverCacheAssertionError,
    Reply,
    SenderCache,
    WireItem,
)
from reference.extension import count, lock_of, lru_of, order_of
from reference.lru import ByteLru
from reference.messages import Outgoing
from reference.variants import resolution_order

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_GHOST: Any = object()
_HANG_BOUND = 1000


class GhostTouchLru(ByteLru[K, V]):
    """vllm#43941: touching an absent key records it in the order only; eviction that reaches
    the ghost makes no progress (the real loop spun with the lock held; this one gives up after
    a bound and raises `EvictionHang`)."""

    def touch(self, key: K) -> bool:
        order = order_of(self)
        if key not in order:
            order[key] = _GHOST
            return False
        return super().touch(key)

    def __contains__(self, key: object) -> bool:
        value = order_of(self).get(key, None)  # type: ignore[arg-type]
        return value is not None and value is not _GHOST

    def get(self, key: K) -> V | None:
        if order_of(self).get(key) is _GHOST:
            count(self, "misses")
            return None
        return super().get(key)

    def items(self) -> list[tuple[K, V]]:
        return [(k, v) for k, v in order_of(self).items() if v is not _GHOST]

    def entries(self) -> list[tuple[K, int]]:
        return [(k, cast(int, self.size_of(k))) for k, v in order_of(self).items()
                if v is not _GHOST]

    def put(self, key: K, value: V, size: int) -> bool:
        order = order_of(self)
        if order.get(key) is _GHOST:
            del order[key]
        spins = 0
        while self.size_of(key) is None and size <= self.budget and (
            self.bytes_in_use + size > self.budget
        ):
            oldest = next(iter(order))
            if order[oldest] is _GHOST:
                spins += 1  # the flawed loop "evicts" a key it cannot find: no progress
                if spins > _HANG_BOUND:
                    raise EvictionHang(f"eviction made no progress after {spins} steps")
                continue
            self._evict_one()
        return super().put(key, value, size)


class MostRecentEvictingLru(ByteLru[K, V]):
    """Eviction from the wrong end: the most recent entry goes first."""

    def _evict_one(self) -> None:
        order = order_of(self)
        order.move_to_end(next(reversed(order)), last=False)  # the newest, where the oldest is
        super()._evict_one()


class AssertingReceiver(ReceiverCache):
    """Before vllm#46747: an assertion instead of the retryable miss error."""

    def miss_error(self, identities: Sequence[str], request_id: int | None = None) -> CacheError:
        return ReceiverCacheAssertionError(identities)


class FirstMissReceiver(ReceiverCache):
    """Only the first missed identity is reported: one retry per missed item."""

    def miss_error(self, identities: Sequence[str], request_id: int | None = None) -> CacheError:
        if not self.variant.recovers:
            return super().miss_error(identities, request_id)
        return MultiModalCacheMissError(identities[:1], request_id=request_id)


class StaleKeepingReceiver(ReceiverCache):
    """Before vllm#57833: a payload too large to cache leaves the old entry in place, so a
    later reference is served the stale tensor."""

    def _accept_payload(self, item: WireItem, payload: Any, size: int) -> Any:
        if self.variant.payload_wins and size > self.budget:
            return payload
        return super()._accept_payload(item, payload, size)


class SkewedSizeReceiver(ReceiverCache):
    """The receiver sizes items differently from the sender: it counts one byte of framing
    per payload on top of the tensors' nbytes."""

    def _validate(self, items: tuple[WireItem, ...]) -> list[int]:
        sizes = super()._validate(items)
        return [size + (item.payload is not None) for size, item in zip(sizes, items, strict=True)]


class NoTouchSender(SenderCache):
    """P0 updates a request's items without touching them all first: an early insert can
    evict a later hit of the same request."""

    def update(self, outgoing: Sequence[Outgoing], process: Any = None, *,
               resend: bool = False) -> tuple[WireItem, ...]:
        del resend  # a mutant of V2/V3, where a resend is a first attempt
        outgoing = tuple(outgoing)
        with lock_of(self):
            self._reject_unprocessable_late_misses(outgoing, process)
            lru = lru_of(self)
            order = resolution_order(self.variant, [o.identity in lru for o in outgoing])
            wire = {index: self._update_one(outgoing[index], process) for index in order}
        return tuple(wire[index] for index in range(len(outgoing)))


class NeverInvalidatingFrontEnd(FrontEnd):
    """No invalidation on a miss reply: P0 keeps sending the reference that missed."""

    def handle_reply(self, reply: Reply) -> None:
        super().handle_reply(Reply(reply.request_id, ()))
