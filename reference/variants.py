"""Protocol variants: one frozen value, read by the caches, never flags scattered in code.

The names and meanings are those of the executable spec (`spec.variants`):

- V0 legacy: the receiver asserts on a miss; the payload is ignored when the identity is cached.
- V1 recover (vllm#46747): a typed, retryable miss error; P0 invalidates; "the cache wins".
- V2 seed, the code vLLM runs (vllm#57833): V1, but "the payload wins" (drop the old
  entry, cache if it fits).
- V3 hardened: V2 plus tags, references first, and late-miss reprocessing.
- V4 (the default): V3 plus resends that bypass the shadow: the client's retry after a miss
  error sends every item as a payload, so it holds no reference P1 could miss.

Each knob selects exactly one behaviour, implemented by one small method of
``SenderCache``/``ReceiverCache``; a mutant is a ``Variant`` with one knob changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reference.errors import BadInputTypeError, describe

__all__ = [
    "DEFAULT_VARIANT", "V0", "V1", "V2", "V3", "V4", "VARIANTS", "Variant", "resolution_order",
]


@dataclass(frozen=True, slots=True)
class Variant:
    """The knobs of the protocol.

    payload_wins: on a payload for an identity the receiver already caches, drop the old entry,
        cache the new one if it fits and use the payload (True); or use the cached item and
        ignore the payload (False, "the cache wins").
    tagged: every shadow entry records a 64-bit tag unique across front ends and time; payloads
        and references carry it (8 bytes per item on the wire); the receiver treats a cached
        entry whose tag differs from the reference's as a miss. P1 can then never pair a tensor
        with placeholders from another processing (S1), whatever the drift.
    references_first: within one request, after touching all its identities, resolve the
        references (hits, ``data=None``) before inserting the payloads (misses), on both sides,
        so that a request larger than the budget (D8) never evicts, by its own inserts, an
        entry it still has to read. False: items in request order.
    late_miss_reprocess: an identity that hit at probe time but is gone from the shadow at
        update time is processed then and sent as a payload (True), instead of raising the
        P0-side assertion (``SenderCacheAssertionError``, False).
    recovers: a receiver miss raises the retryable ``MultiModalCacheMissError`` (True), or the
        legacy assertion ``ReceiverCacheAssertionError`` (False, V0).
    resends_bypass_shadow: a *resend* (``Request.resend``: the client's retry after a miss
        error) reads nothing from the shadow: every item is processed, recorded afresh (a new
        tag) and sent as a payload, in request order (True, V4); or a resend is handled as a
        first attempt, references for what the shadow holds (False). True: a resend holds no
        reference, so P1 cannot answer it with a miss, whatever drifted since the miss.
        Cost: a resend's processor runs and payload bytes for its every item.
    """

    name: str
    payload_wins: bool
    tagged: bool
    references_first: bool
    late_miss_reprocess: bool
    recovers: bool = True
    resends_bypass_shadow: bool = False

    def __post_init__(self) -> None:
        if type(self.name) is not str or not self.name:
            raise BadInputTypeError(f"got variant name {describe(self.name)}, expected a str")
        for knob in ("payload_wins", "tagged", "references_first", "late_miss_reprocess",
                     "recovers", "resends_bypass_shadow"):
            value = getattr(self, knob)
            if type(value) is not bool:
                raise BadInputTypeError(f"got {knob} {describe(value)}, expected a bool")

    def __str__(self) -> str:
        return self.name


V0 = Variant("V0", payload_wins=False, tagged=False, references_first=False,
             late_miss_reprocess=False, recovers=False)
V1 = Variant("V1", payload_wins=False, tagged=False, references_first=False,
             late_miss_reprocess=False)
V2 = Variant("V2", payload_wins=True, tagged=False, references_first=False,
             late_miss_reprocess=False)
V3 = Variant("V3", payload_wins=True, tagged=True, references_first=True,
             late_miss_reprocess=True)
V4 = Variant("V4", payload_wins=True, tagged=True, references_first=True,
             late_miss_reprocess=True, resends_bypass_shadow=True)
VARIANTS: tuple[Variant, ...] = (V0, V1, V2, V3, V4)
"""Every variant the reference implements."""
DEFAULT_VARIANT = V4
"""What ``FrontEnd()``, ``Engine()`` and the caches run when no variant is given."""


def resolution_order(variant: Variant, is_reference: Sequence[bool]) -> list[int]:
    """The order in which a request's items are resolved, as indices into the request.

    With ``references_first`` the references come first, then the payloads, each group in
    request order (a stable partition); otherwise plain request order.
    """
    if not isinstance(variant, Variant):
        raise BadInputTypeError(f"got variant {describe(variant)}, expected a Variant")
    if isinstance(is_reference, (str, bytes)) or not isinstance(is_reference, Sequence) or any(
            type(flag) is not bool for flag in is_reference):
        raise BadInputTypeError(
            f"got is_reference {describe(is_reference)}, expected a sequence of bools"
        )
    return ordered(variant, tuple(is_reference))  # its flags, whatever its len() says


def ordered(variant: Variant, is_reference: Sequence[bool]) -> list[int]:
    """``resolution_order`` on arguments the caller guarantees (the caches' hot path)."""
    indices = range(len(is_reference))
    if not variant.references_first:
        return list(indices)
    return [i for i in indices if is_reference[i]] + [i for i in indices if not is_reference[i]]
