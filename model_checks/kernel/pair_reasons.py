"""The hand-written reasoning of the expected matrix's pair cells (`pair_cells.PAIR_EXPECTED`).

A pair's expectation is the union of its two sources' (`pair_cells.union`: the environment's
behaviours only grow, so the pair breaks what either breaks alone) plus its interactions: the
properties that break with both sources and with neither alone, each with its mechanism in
protocol terms (`PAIR_REASONS`). `needs_c` says which single-source breaks the matrix's
instance of a pair with D11 cannot show. Both are stated per class of variants, by their
knobs (`untagged`, `Variant.reports_misses`), never per variant name, so a new
variant gets the reasoning its knobs call for. Witness step counts name
the hand-built traces in tests/test_matrix_pairs.py (`WITNESSES`, replayed on the matrix's
instance) and the checkers' shortest counterexamples. This module is data, with no import of
the matrix, so `pair_cells` can build the pair cells from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from spec import Variant

VariantClass = Callable[[Variant], bool]
"""A class of variants, by their knobs."""


def untagged(variant: Variant) -> bool:
    """The variants whose references carry no tag: P1 cannot tell two contents apart."""
    return not variant.tagged


@dataclass(frozen=True)
class PairReason:
    """What a pair adds to the union of its sources, and why in protocol terms. `breaks`:
    per class of variants, the properties (space-separated ids) broken only with both
    sources (interactions); a variant in several classes breaks the union of theirs. `why`
    must explain every entry."""

    why: str
    breaks: tuple[tuple[VariantClass, str], ...] = ()

    def breaks_in(self, variant: Variant) -> frozenset[str]:
        """The interactions of this pair in `variant`: those of every class it is in."""
        return frozenset(p for member, props in self.breaks if member(variant)
                         for p in props.split())


_CACHE_WINS = (
    "V0 and V1 (the cache wins: a payload for an identity P1 caches is ignored) break S1 as "
    "soon as P0 can forget an identity P1 still caches and the client then sends new content "
    "under it: P0 misses, sends the new payload with fresh placeholders, and P1 pairs its old "
    "tensor with them."
)
_PAYLOAD_WINS = (
    "V2 (the payload wins) keeps S1 as long as every payload P0 records reaches P1 in the "
    "order P0 recorded it: P1's entry for an identity is then the last payload sent for it, "
    "which is P0's entry whenever P0 has one. It breaks when a payload P0 recorded is "
    "overtaken or never sent, because a reference then carries the new placeholders to a P1 "
    "still holding the old tensor."
)
_IN_V2 = (
    "Interaction (S1 in V2; V0 and V1 break it under D7 alone, where a reused identity's "
    "larger content evicts on P0 what P1 keeps)"
)
_TAGGED = "V3 never pairs across contents: its reference carries the tag of the shadow entry, " \
    "and a tag mismatch is a miss."

PAIR_REASONS: dict[tuple[str, ...], PairReason] = {
    ("D1", "D7"): PairReason(
        breaks=((untagged, "S1"),),
        why=_IN_V2 + ": identity reuse makes a lost mirror visible as a stale "
        "pairing. " + _CACHE_WINS + " Here P0 forgets a while P1 keeps it in two ways: V1 "
        "drops a on the miss of a reference that overtook a's payload, after which P1 caches "
        "that payload (explorer: 10 steps; Z3: 9); V0, which never drops, evicts a on P0 "
        "(requests a, b, c, one item each) while P1, taking c before b, still holds a when "
        "a@1's payload arrives (Z3: 9 steps; witness: 13). " + _PAYLOAD_WINS
        + " Here (V2): after the overtaken reference's miss dropped a and P1 cached a@0, "
        "the client's retry sends a@1: P0 records it and sends its payload, then a "
        "reference to a, and P1 takes the reference first (3 requests and a retry; "
        "witness: 13 steps; Z3 finds none within its 10). "
        + _TAGGED,
    ),
    ("D2", "D7"): PairReason(
        breaks=((untagged, "S1"),),
        why=_IN_V2 + ". " + _CACHE_WINS + " Here a rejected request [b, c] "
        "makes P0 evict a that P1 still holds, and a@1's payload follows (Z3: 8 steps). "
        + _PAYLOAD_WINS + " Here (V2) the payload is never sent: after the rejected [b, c], "
        "a rejected [a@1] leaves P0 recording a@1 while P1 keeps a@0, and the next "
        "reference to a pairs them (Z3: 10 steps; witness: 11; the explorer's 2-identity "
        "instance cannot show it). "
        + _TAGGED,
    ),
    ("D6", "D7"): PairReason(
        breaks=((untagged, "S1"),),
        why=_IN_V2 + ": P0 sends in another order than it updates. Request Q "
        "records a@0 and has not sent it when request Y, updated after it, sends a reference "
        "to a: P1 misses, V1/V2 drop a from P0, and Q's payload then gives P1 a@0. "
        + _CACHE_WINS + " (V1: the client's a@1 payload.) " + _PAYLOAD_WINS + " Here (V2) "
        "request X records a@1 and request Z, updated after it, sends its reference to a "
        "first: P1 pairs a@0 with a@1's placeholders (4 requests; witness: 18 steps, also "
        "V1). V0, which never drops, gets there through the eviction order (Z3: 8 steps, as "
        "for V1). " + _TAGGED,
    ),
    ("D7", "D8"): PairReason(
        breaks=((untagged, "S1"),),
        why=_IN_V2 + ": a request over the budget that fails P0's assertion "
        "leaves on P0 the inserts it made and evicts there entries P1 keeps (it never reaches "
        "P1). " + _CACHE_WINS + " " + _PAYLOAD_WINS + " Here (V2): after [b, c, a] fails "
        "with a lost (P0 [b, c], P1 [a@0, b]), [a@1, b, c] records a@1, evicts b with it and "
        "fails on b in turn, so a@1 is recorded and never sent; the reference of the next "
        "request for a pairs a@0 with a@1's placeholders (witness: 11 steps, V0-V2). V3 never "
        "asserts "
        "(it reprocesses a lost hit) and is tagged: S1 holds.",
    ),
}


_NEEDS_C: dict[str, tuple[str, str]] = {
    "D1": ("", "L3"),
    "D5": ("S3 H1 L4", "H1 L3"),
    "D6": ("", "S3 L3 L4"),
    "D8": ("S3 H1 L4", "S3 H1 L1 L2 L3 L4"),
    "D9": ("", "L2 L4"),
}
"""Per drift source: (for a variant whose engine crashes on a miss, for one that reports
it) the properties whose break in the source's own instance may need c at its 1-byte size
(`needs_c`)."""


def needs_c(drift: str, variant: Variant) -> frozenset[str]:
    """The breaks of `drift` alone whose witness in the source's own instance needs c at its
    1-byte size (of those `variant` breaks under `drift` alone).

    With D11, c is over the budget on both sides, a and b fill the 2-byte budget exactly,
    and nothing is ever evicted for capacity (D9's skewed b aside), so the matrix's instance
    of a pair with D11 cannot show these: D1's L3 (a message delivered late evicts the
    retry's reference from P1), D5's H1 and L3 (one front end's payloads evict the other's
    entries from P1; a crashing engine's crash follows from H1), D6's S3 and L3 (another
    request's insert evicts a probed hit, or the retry's reference, on one side), D8's every
    break (the request must exceed the budget with items that fit), D9's L2 and L4 (another
    request re-records the one-sided c). Every other break of a single source needs no
    eviction for capacity: rejections (D2), clears (D3, D4), restarts (D10), reuse (D7),
    overtaking (D1's H1, L2), split sends (D6's H1, L1, L2)."""
    crashing, reporting = _NEEDS_C.get(drift, ("", ""))
    return frozenset((reporting if variant.reports_misses else crashing).split())
