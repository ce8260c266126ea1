"""Protocol variants V0-V4 as values: each knob is one variation point of the transitions.

A variant is passed in the configuration; the transitions ask it small questions (see the
methods below) and never test a variant's name. A mutant is a variant with one knob changed
(`dataclasses.replace(V2, invalidates=False, name="...")`), so known-bad behaviours are
expressed in the same vocabulary as the real ones.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, replace

from spec.values import init_values


class LruFlaw(enum.Enum):
    """How an LRU may deviate from `spec.lru`'s semantics. `NONE` is the correct LRU."""

    NONE = "none"
    GHOST_TOUCH = "ghost-touch"
    """Touching an absent key records it in the order only; eviction then spins on it
    (vllm#43941)."""
    EVICT_MOST_RECENT = "evict-most-recent"
    """Eviction removes the most recent entry instead of the least recent."""
    IGNORE_NEW_SIZE = "ignore-new-size"
    """Eviction stops once the entries already held fit, ignoring the incoming item's size."""

    def __repr__(self) -> str:
        return f"LruFlaw.{self.name}"

    __hash__ = object.__hash__  # members are singletons: see `spec.state.Stage`


class MissHandling(enum.Enum):
    """What P1 does when a reference (data=None) finds nothing usable."""

    CRASH = "crash"
    """V0: an assertion kills the engine's input thread (vllm#31404)."""
    REPORT_ALL = "report-all"
    """V1+: one retryable error listing every missed identity (vllm#46747)."""
    REPORT_FIRST = "report-first"
    """Mutant: the error lists only the first missed identity."""

    def __repr__(self) -> str:
        return f"MissHandling.{self.name}"

    __hash__ = object.__hash__  # members are singletons: see `spec.state.Stage`


@dataclass(frozen=True, slots=True)
class Variant:
    """A protocol variant. Every field is one variation point; see each field's comment."""

    name: str
    # P1, reference missing: crash, or a retryable error listing the missed identities.
    miss_handling: MissHandling
    # P0, miss reply received: drop the reported identities from the shadow.
    invalidates: bool
    # P1, payload for an identity it caches: True = drop the old entry, cache the new one if it
    # fits and use the payload (vllm#57833); False = use the cached item, ignore the payload.
    payload_wins: bool
    # P1, payload wins: drop the old entry before trying to cache the new one, so an oversized
    # replacement cannot leave the old tensor in place. False is the pre-#57833 mutant.
    drop_before_replace: bool
    # Shadow entries and wire items carry a tag naming the processing; P1 treats a reference
    # whose tag differs from its entry's tag as a miss (V3).
    tagged: bool
    # Within a request, resolve references (probed hits) before inserting payloads, on both
    # sides, so a request's own inserts never evict what it still has to read (V3, D8).
    references_first: bool
    # P0, a probed hit gone at update time: True = run the processor now and send the payload
    # (V3); False = the P0-side assertion of the real system.
    late_miss_reprocess: bool
    # P0, a resend (the client's retry after a miss error): every item travels as a payload,
    # processed again and recorded afresh, whatever the shadow holds (V4). A resend then holds
    # no reference, so P1 cannot answer it with a miss, whatever drifted since.
    resends_bypass_shadow: bool = False
    # P0 and P1 touch every identity of the request before the per-item updates.
    touches_first: bool = True
    shadow_lru: LruFlaw = LruFlaw.NONE
    receiver_lru: LruFlaw = LruFlaw.NONE
    # With references first: a reference to an identity whose payload the same message also
    # carries (a request naming one identity twice: P0 recorded the first occurrence's payload,
    # then the second occurrence hit it) is resolved among the payloads, in request order,
    # after that payload, which is the order P0 updated them in. False is the mutant that
    # resolves every reference first: that reference then misses at every attempt.
    references_after_own_payload: bool = True

    def __reduce__(self) -> tuple[type[Variant], tuple[object, ...]]:
        """Pickled as its class called on its fields (`spec.values.init_values`)."""
        return type(self), init_values(self)

    def __repr__(self) -> str:
        return _REPR_BY_VALUE.get(self, _field_repr(self))

    @property
    def reports_misses(self) -> bool:
        return self.miss_handling is not MissHandling.CRASH

    def reported(self, missed: tuple[str, ...]) -> tuple[str, ...]:
        """The identities P1's miss error lists, given every identity that missed."""
        if self.miss_handling is MissHandling.REPORT_FIRST:
            return missed[:1]
        return missed

    def tag_for(self, processing: int) -> int | None:
        """The tag of an entry holding `processing`: the processing id itself, where tagged.

        Processing ids are unique over the whole system and its history, which is what a tag
        must be; the reference implementation uses a 64-bit (front-end nonce, counter) pair.
        """
        return processing if self.tagged else None


def _field_repr(variant: Variant) -> str:
    # dataclasses.fields, not __slots__: the same names in the same order, and a compiled
    # (mypyc) class has no __slots__ to read.
    shown = ", ".join(f"{f.name}={getattr(variant, f.name)!r}" for f in fields(variant))
    return f"Variant({shown})"


V0 = Variant(
    name="V0",
    miss_handling=MissHandling.CRASH,
    invalidates=False,
    payload_wins=False,
    drop_before_replace=False,
    tagged=False,
    references_first=False,
    late_miss_reprocess=False,
)
"""Legacy: P1 asserts on a miss; no invalidation; the cache wins over a payload."""

V1 = Variant(
    name="V1",
    miss_handling=MissHandling.REPORT_ALL,
    invalidates=True,
    payload_wins=False,
    drop_before_replace=False,
    tagged=False,
    references_first=False,
    late_miss_reprocess=False,
)
"""Recover (vllm#46747): typed miss error, P0 invalidates, client resends; the cache wins."""

V2 = Variant(
    name="V2",
    miss_handling=MissHandling.REPORT_ALL,
    invalidates=True,
    payload_wins=True,
    drop_before_replace=True,
    tagged=False,
    references_first=False,
    late_miss_reprocess=False,
)
"""Seed (V1 + vllm#57833): the payload wins; P1 drops the old entry first."""

V3 = Variant(
    name="V3",
    miss_handling=MissHandling.REPORT_ALL,
    invalidates=True,
    payload_wins=True,
    drop_before_replace=True,
    tagged=True,
    references_first=True,
    late_miss_reprocess=True,
)
"""Hardened (ours): V2 plus tags on every wire item, references resolved before payloads, and
a probed hit lost before the update is reprocessed instead of asserted. Wire cost: one 8-byte
tag per item, on references and payloads alike; no extra message and no extra round trip."""

V4 = replace(V3, name="V4", resends_bypass_shadow=True)
"""Live (ours): V3 plus resends that bypass the shadow: the client's retry after a miss error
sends every item as a payload. S1-S3 as V3; a miss now leads to a resend that cannot miss.
Cost: a retry's processor runs and payload bytes for its every item, not only the missed ones;
nothing when nothing misses."""

VARIANTS: tuple[Variant, ...] = (V0, V1, V2, V3, V4)
"""Every protocol variant, in order: the one list the checkers, docs and adapters read."""

VARIANT_NAMES: tuple[str, ...] = tuple(v.name for v in VARIANTS)
"""The variants' names, in `VARIANTS` order (what command lines and records spell)."""

_REPR_BY_VALUE: dict[Variant, str] = {v: v.name for v in VARIANTS}


def variant_named(name: str) -> Variant:
    """The variant called `name` (V0-V4); an unknown name is a clear error."""
    for variant in VARIANTS:
        if variant.name == name:
            return variant
    known = ", ".join(v.name for v in VARIANTS)
    raise ValueError(f"unknown variant {name!r}, expected one of {known}")
