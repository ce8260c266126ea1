"""L4 as a theorem about retries: how many retries recovery needs, as a function of what
happens during a request's life.

Counting drift events is not enough: with no drift event between a miss and its retry, a
retry can still miss in V1-V3, because other requests' ordinary work changes the caches in
between (a rejected request earlier is enough: `tests/smt/parametric_witness_liveness.py`,
"rejected-l3").
What a retry needs is that nothing but its own request touch the caches while it recovers.

`THEOREM` (an undisturbed attempt is followed by success). One engine; variants V1, V2
and V4 under any environment within `ENVIRONMENT` (D1, D2, D3, D4, D6, D10, D11), V3 within
the same without D6 (`SPLIT_FREE`). An attempt of request r is undisturbed when, from the
step that sends it to the delivery of r's next attempt, no drift event happens and no step
but r's own (P1 taking r's messages, P0 taking r's reply and handling r's retry, the
client's retry) changes a shadow or a receiver (`disturbed`). If an undisturbed attempt
misses, the next attempt does not.

Proved for every instance by `model_checks.smt.prove.retry_window` (a symbolic run of the
window over uninterpreted identities and processings, with the one LRU fact it assumes
tested on `spec.lru`). In outline, with A the missed attempt and B the next: (1) each item
of A that P0's shadow holds once A is sent is in P1's cache once A is delivered, with the
same tag, unless it is among the missed ones; that needs A to carry, for each such item, the
tag of P0's entry at the send, which P0's handling in one step gives and a split update
(D6) does not: between A's update of an item and A's send, other requests can replace the
entry (a clear and a rejection, or other split updates), and V3's P1 then holds A's tag
while P0 holds the new one (`tests/retry_witnesses.py`: two such runs of V3,
12 and 20 steps, replayed on the spec). Untagged variants (V1, V2) compare no tags, so D6
does not break them. (2) Nothing else changes either cache until B's delivery
(undisturbed), and P0 taking A's reply drops exactly the missed identities. (3) So each item
P0 sends by reference in B is in P1's cache with B's tag, and every missed identity is sent
with its data; P1 touches B's items first and B's payloads evict older entries first, so no
reference of B misses. D5 is left out because a router may send B to the other engine; D7,
D8, D9 because a size can differ between the sides or between contents (the sanity pair
below breaks it under D9).

`COROLLARY` (retries needed). In the same variants and environments, a request with at most
k disturbed attempts ends in success within k + 1 retries, so R >= k + 1 suffices; unless P0's
assertion fails it first (V1, V2 under D6), which no retry cures. (If attempts 0..m all
miss, attempts 0..m-1 each have a successor that missed, so each is disturbed: m <= k.)

`STANDING_DRIFT` (no R is enough). Under size skew alone (D9: an item P0 records at a size
within the budget, P1's over it, so P1 never caches it), with no drift event at all, for
every R a request ends as a miss after R retries in every variant that reports misses:
before each of its attempts another request re-sends the item's payload, P0 re-records it,
and the attempt references what P1 never held (`standing_drift_run` in the tests, replayed for
R = 1..6).

`FIRST_RESEND` (one retry is enough). A variant whose resends bypass the shadow (V4), every
source D1-D11: with R >= 1, every request ends final for the client (success, client error
or rejected). Argument, for every instance (its two premises are machine-checked proofs,
the step from them to L4 is not a solver's): an attempt ends in success, a client error, a
rejection (D2), a miss, or P0's assertion; V4 reprocesses a late miss instead of asserting
and never faults (S3 for every instance under every source, `parametric_goals`), so only a
miss is not final, and it is retried (R >= 1). The retry's attempt is a resend: every item
processed, carrying data and sent as a payload, so it holds no reference and P1 cannot
answer it with a miss (L2 for every instance under every source:
`parametric_liveness.RESEND_CERTIFICATE`, "P1 has missed no resend's reference"); under fair
delivery it is taken and ends in success or a rejection. This holds whatever the drift,
standing (D9: `STANDING_DRIFT` is about the variants that read the shadow on a resend) or
not.

The claims as monitors over the spec's runs (the theorem's, the first resend's, the
standing-drift run) are the tests' (`tests/retry_monitor.py`): they run them within
`ENVIRONMENT` (exhaustively on a small instance, sampled on larger ones) and show they fail
under D9.
"""

from __future__ import annotations

from dataclasses import dataclass

from spec import DRIFT_IDS, VARIANTS

REPORTING: tuple[str, ...] = tuple(v.name for v in VARIANTS if v.reports_misses)
"""The variants the claims are about: those that report a miss (V0's engine crashes)."""

SHADOW_READING: tuple[str, ...] = tuple(
    v.name for v in VARIANTS if v.reports_misses and not v.resends_bypass_shadow)
"""The variants that report a miss and whose resend reads the shadow (V1-V3)."""

BYPASSING: tuple[str, ...] = tuple(v.name for v in VARIANTS if v.resends_bypass_shadow)
"""The variants whose resend bypasses the shadow, every item a payload (V4)."""

EVERY_SOURCE: tuple[str, ...] = DRIFT_IDS

ENVIRONMENT: tuple[str, ...] = ("D1", "D2", "D3", "D4", "D6", "D10", "D11")
"""The sources the theorem allows (any subset) in V1, V2 and V4: none of them changes a size
or adds an engine."""

SPLIT_FREE: tuple[str, ...] = tuple(d for d in ENVIRONMENT if d != "D6")
"""The sources the theorem allows in V3: without split updates, whose tag can differ from
P0's entry at the send (`tests/retry_witnesses.py`)."""


@dataclass(frozen=True)
class Claim:
    """A statement about retries, where it holds, and what backs it."""

    name: str
    statement: str
    variants: tuple[str, ...]
    environment: tuple[str, ...]
    evidence: str
    narrower: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Variants for which the claim holds only under a smaller environment: (variant, its
    environment)."""


THEOREM = Claim(
    "undisturbed attempt", "an undisturbed attempt that misses is followed by one that does "
    "not miss", REPORTING, ENVIRONMENT,
    "proved for every instance (`model_checks.smt.prove.retry_window`, run by `prove "
    "--parametric`; its LRU fact tested on `spec.lru`, tests/smt/test_smt_retry_window.py); "
    "checked in every run of small instances under combined environments ("
    "tests/test_retries.py::test_the_theorem_holds_in_every_run_of_a_small_instance) and on "
    "sampled runs of five requests (tests/retry_monitor.py); false for V3 under D6 "
    "(tests/retry_witnesses.py)",
    narrower=(("V3", SPLIT_FREE),))
COROLLARY = Claim(
    "retries needed", "with at most k disturbed attempts a request succeeds within k + 1 "
    "retries (R >= k + 1), unless P0's assertion fails it (V1, V2 under D6)",
    REPORTING, ENVIRONMENT, "follows from the theorem (docstring)",
    narrower=(("V3", SPLIT_FREE),))
STANDING_DRIFT = Claim(
    "standing drift", "under D9 alone, for every R, a request ends as a miss after R retries, "
    "with no drift event", SHADOW_READING, ("D9",),
    "a run of R + 1 misses replayed for R = 1..6 "
    "(tests/test_retries.py::test_no_number_of_retries_is_enough_under_size_skew)")
FIRST_RESEND = Claim(
    "one retry is enough", "with R >= 1 every request ends final for the client (success, "
    "client error or rejected): the first resend holds no reference, so it cannot miss",
    BYPASSING, EVERY_SOURCE,
    "argued for every instance from L2 and S3 of V4, each proved for every instance under "
    "every source (`parametric_liveness.RESEND_CERTIFICATE`, `parametric_goals`; the step to "
    "L4 under fair delivery is this module's docstring's argument, no solver's); no resend "
    "misses in every run of a small instance per source ("
    "tests/test_retries.py::test_no_resend_misses_in_every_run_of_a_small_instance), and the "
    "standing-drift family ends in success at the first resend")
