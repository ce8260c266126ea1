"""The obligations a safe implementation of the paired caches must meet: one registry.

Each obligation says what an implementation must do, where (P0, P1, the LRU of either), the
properties it protects, and the mutants that omit it, by their names in the mutant registry
(`model_checks/mutation/registry.py`): a spec mutant (a variant with one knob changed, exposed
by its witness scenario, Hypothesis and, for state properties, Z3) and an implementation
mutant (a history mutant of the reference, a subclass of a reference class, exposed by
conformance). `docs/requirements.md` is rendered from this
registry and from runs made when it is generated; `tests/test_docs_requirements.py` checks
that every named mutant exists and is caught where the registry says.

An obligation names at least one mutant: one that nothing can omit without a checker noticing
would be a claim without evidence (a check that cannot fail is a defect).
"""

from __future__ import annotations

from dataclasses import dataclass

from spec import property_ids


class InvalidObligation(ValueError):
    """An obligation without a mutant, or naming an unknown property; says what to fix."""


@dataclass(frozen=True)
class Obligation:
    """id: stable (`O1`...); side: P0, P1, both or an LRU; must: the requirement in one
    sentence; protects: property ids; why: what goes wrong without it (with vllm references);
    spec_mutant / impl_mutant: the mutants that omit it (names), at least one of them."""

    id: str
    title: str
    side: str
    must: str
    protects: tuple[str, ...]
    why: str
    spec_mutant: str | None = None
    impl_mutant: str | None = None

    def __post_init__(self) -> None:
        if self.spec_mutant is None and self.impl_mutant is None:
            raise InvalidObligation(
                f"{self.id} names no mutant; add one that omits it to the registry "
                "model_checks/mutation/registry.py, or drop the obligation")
        known = set(property_ids())
        if not set(self.protects) <= known or not self.protects:
            raise InvalidObligation(f"{self.id} protects {self.protects!r}; name property ids "
                                    "of spec.registry()")


OBLIGATIONS: tuple[Obligation, ...] = (
    Obligation(
        "O1", "tag every entry and reference", "both",
        "P0 records a tag naming the processing with every shadow entry and sends it with every "
        "wire item (payloads and references); P1 stores the payload's tag with its entry and "
        "serves a reference only when the tags are equal, treating a mismatch as a miss.",
        ("S1",),
        "Without tags, once an identity names two contents (client UUIDs reused, D7) and the "
        "shadow drifts from P1 (several front ends, D5; a restart, D10), P1 pairs a cached "
        "tensor of one content with placeholders of the other (vllm#55546, vllm#55547).",
        spec_mutant="untagged",
    ),
    Obligation(
        "O2", "drop the old entry before caching a payload", "P1",
        "A payload for an identity P1 already caches wins: P1 drops the old entry first, then "
        "caches the payload if it fits, and uses the payload.",
        ("S1",),
        "Keeping the old entry when the new payload is too large to cache leaves a stale "
        "tensor that the next reference pairs with the new placeholders (fixed by vllm#57833).",
        spec_mutant="keeps-stale-on-resend", impl_mutant="keeps-stale-on-resend",
    ),
    Obligation(
        "O3", "reprocess a lost probed hit", "P0",
        "A probed hit whose shadow entry is gone when P0 updates the shadow (evicted by another "
        "request's update, D6, or the request's own inserts, D8) is processed on the spot and "
        "sent as a payload (a UUID-only item becomes a client error), never asserted.",
        ("S3",),
        "The real front end asserts there: the request fails with an internal error (the "
        "P0-side assertion: the shadow lost an entry between probe and update).",
        spec_mutant="no-late-miss-reprocess",
    ),
    Obligation(
        "O4", "a miss is a retryable error, not an assertion", "P1",
        "A reference P1 cannot serve is answered with a retryable error; the engine goes on.",
        ("S3", "L4"),
        "An assertion kills the engine's input thread, and every later request fails until a "
        "restart (vllm#31404; recovery added by vllm#46747).",
        spec_mutant="engine-asserts", impl_mutant="engine-asserts",
    ),
    Obligation(
        "O5", "report every missed identity", "P1",
        "The miss error lists every identity of the request that missed, not the first one.",
        ("L3",),
        "P0 drops only what is reported; an unreported miss stays in the shadow and the retry "
        "misses again without any new drift.",
        spec_mutant="reports-first-miss", impl_mutant="reports-first-miss",
    ),
    Obligation(
        "O6", "invalidate every reported miss", "P0",
        "On a miss error, P0 drops exactly the reported identities from its shadow before it "
        "handles any later request.",
        ("L1", "L3", "L4"),
        "Without invalidation P0 keeps treating the identities as hits: every retry sends a "
        "reference again and misses again.",
        spec_mutant="never-invalidates", impl_mutant="never-invalidates",
    ),
    Obligation(
        "O7", "touching an absent key does nothing", "LRU (both)",
        "`touch` makes a present entry most recent and leaves the order alone for an absent "
        "key.",
        ("S3",),
        "Recording an absent key in the order only (a ghost key) makes eviction spin forever "
        "with the lock held while the health check stays green (vllm#43941, fixed by "
        "vllm#43595).",
        spec_mutant="ghost-touch", impl_mutant="ghost-touch",
    ),
    Obligation(
        "O8", "evict least recently used first", "LRU (both)",
        "Eviction removes the least recently used entry first, on both sides alike.",
        ("H1",),
        "The pairing rests on both LRUs evicting the same entries; a side that evicts other "
        "entries drops what the other side still trusts.",
        spec_mutant="evicts-most-recent", impl_mutant="evicts-most-recent",
    ),
    Obligation(
        "O9", "evict until the new item fits", "LRU (both)",
        "Inserting evicts until the cached bytes plus the new item's size are within the "
        "budget, then inserts; an item larger than the whole budget is not cached.",
        ("S2",),
        "Stopping once the entries already held fit, ignoring the incoming size, lets the cache "
        "exceed its byte budget.",
        spec_mutant="ignores-new-size",
    ),
    Obligation(
        "O10", "size an item the same on both sides", "both",
        "P0 and P1 account an item with the same number of bytes (the tensors' nbytes), so "
        "their evictions agree.",
        ("H1",),
        "A side that counts framing or metadata evicts where the other does not (D9): P0 keeps "
        "trusting an entry P1 dropped.",
        impl_mutant="receiver-sizes-differently",
    ),
    Obligation(
        "O11", "touch the request's items before updating them", "P0",
        "P0 touches every identity of the request before the per-item updates, so the "
        "request's own hits are most recent while its misses are inserted.",
        ("S3",),
        "Without the touch, a request's own insert can evict a hit it probed, which P0 then "
        "cannot send (the P0-side assertion, V0-V2).",
        impl_mutant="no-touch-before-update",
    ),
    Obligation(
        "O12", "a resend bypasses the shadow", "P0",
        "P0 processes every item of the client's resend after a miss error and sends each as a "
        "payload, recording it afresh, whatever its shadow holds (V4).",
        ("L1", "L2", "L3"),
        "Between the miss and the resend the caches drift apart again: a rejected or split "
        "request re-records a missed identity, or P1 evicts what P0 still holds after a key "
        "was lost on one side; a resend that trusts the shadow then references what P1 "
        "lacks and misses again, with or without a new drift event.",
        spec_mutant="resends-use-shadow",
    ),
)
"""Every obligation, in the order the page lists them."""
