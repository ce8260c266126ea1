"""The LRU design's expected verdict matrix: for each variant and environment, what every
property must do. Per design by nature (its rows are reasoned from the LRU design's protocol);
the words of a matrix (`Cell`, `Expectation`) are every design's (`model_checks.kernel.cells`).

Expectations are data, reasoned out from the protocol (each cell's `why`), never copied from a
checker's output. A checker compares its results with the cells (`EXPECTED` here, every
selection in `model_checks.kernel.cell_sets`); a must-hold property that fails, or a must-break
property whose counterexample is not found within budget, is a mismatch. The rows are
written for the matrix's instance (`model_checks.kernel.instance.config_for`); the pair cells are
derived from them (`model_checks.kernel.pair_cells`).

L3 and L4 are judged at two instance sizes (2 and 3 unfinished requests, `Cell.wider`); a
cell says in its `why` where a verdict depends on the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from model_checks.kernel.cells import Cell as Cell
from model_checks.kernel.cells import Expectation as Expectation
from model_checks.kernel.pair_reasons import untagged
from spec import DRIFT_IDS, VARIANT_NAMES, VARIANTS, Drift, Variant, property_ids, variant_named
from spec.drift import ROUTER

# The environments of the matrix: nothing drifting, each drift source alone, the combinations
# docs/questions.md asks about, and everything at once.
CRITICAL_SECTION_REMAINDER: tuple[str, ...] = tuple(
    d for d in DRIFT_IDS if Drift(d) not in (Drift.D1, Drift.D2, Drift.D6)
)
"""Q2: what is left when P0 updates and sends in one critical section and nothing is rejected
after it (no interleaved updates D6, no rejection D2, send order = update order so no D1)."""

ENVIRONMENTS: tuple[tuple[str, ...], ...] = (
    (),
    *((d,) for d in DRIFT_IDS),
    ("D5", "D7"),
    ("D7", "D10"),
    ("D3", "D7", "D9", "D11"),
    CRITICAL_SECTION_REMAINDER,
    DRIFT_IDS,
)
"""The main matrix: the environments the main job (CI) runs with every checker."""


PROPERTIES: tuple[str, ...] = property_ids()
"""The properties the expectations are written for: the registry when this module loads."""
WIDER_PROPERTIES: tuple[str, ...] = ("L3", "L4")
"""The properties also judged at `instance.WIDER_IN_FLIGHT` unfinished requests."""

CRASH = "S3 H1 L4"
"""V0 wherever P1 can miss a reference: the assertion kills the engine (S3), the miss is the
H1 failure itself, and a crashed system never completes its requests (L4)."""

ALWAYS = (
    "Always, every variant: S2 holds (both LRUs reject an item over the budget and evict until "
    "the new one fits, on their own side's sizes). V0 reports no miss, so P0 never receives a "
    "miss reply and L1, L2 and L3 hold vacuously. P0's assertion (V0-V2 under D6, D8) fails "
    "only its request (S3; L4: an internal error is no clear client error); the items that "
    "request recorded stay in the shadow, never sent, and the system goes on. L2 breaks "
    "wherever P0 can re-record a missed identity before the retry (another request's payload, "
    "a rejection, a split or failed update) and P1 then lacks it when the retry's reference "
    "arrives. L4 is judged with R = 2 retries, the instance's; how many retries recovery "
    "needs for any R, and where no R is enough, is model_checks.kernel.retries' theorem "
    "(docs/questions.md, section 5)."
)

RESENDS_LIVE = (
    " V4 keeps L1-L4: its resend carries every item as data whatever P0's shadow says, so it "
    "holds no reference P1 could miss, whatever drifted since the miss (a rejection "
    "re-recording the identity, a clear, P1 evicting what P0 keeps), and the first resend "
    "succeeds."
)

# Per environment: the properties each variant must break (every other property of PROPERTIES
# must hold), and why. Reasoned from the protocol (docs/protocol.md, the spec's transitions)
# for the configuration `config_for` builds; never copied from a checker's output.
_BREAKS: tuple[tuple[tuple[str, ...], dict[str, str], str], ...] = (
    ((), dict(V0="", V1="", V2="", V3="", V4=""),
     "No drift: P0 updates and sends in one step, P1 takes messages in order, sizes agree, "
     "every request fits the budget. Both LRUs see the same operations in the same order "
     "(touch all, then get for a reference and put for a payload), so P1 lags P0 but mirrors "
     "it: every reference is served with the entry P0 recorded (H1, S1), nothing crashes, no "
     "miss ever happens (L1-L3 vacuous), every request succeeds or is a client error (L4)."),
    (("D1",), dict(V0=CRASH, V1="H1 L2 L3", V2="H1 L2 L3", V3="H1 L2 L3", V4="H1"),
     "Reordered delivery: a reference can overtake the payload it trusts, so P1 misses (H1; "
     "V0 crashes). Only one version exists (S1, S4 hold) and P0's handling is one step (no "
     "P0 assertion). L1 holds: without rejection or split updates P0 re-records a dropped "
     "identity only while sending its payload, which excuses the retry's reference. L2 breaks: "
     "after the miss on a, another request sends a's "
     "payload, the retry then references a, and P1 takes the retry before that payload. L3 "
     "breaks: the reordering "
     "happens before the miss, and a message P0 sent before the miss, delivered in order "
     "after it, evicts from P1 the entry the retry then references, while P0, which applied "
     "that message before the reordered one, keeps it. L4 is not judged: whether one request "
     "can miss three times within 4 requests is not settled by reasoning, and the ci search "
     "found no trace." + RESENDS_LIVE),
    (("D2",), dict(V0=CRASH, V1="H1 L1 L2 L4", V2="H1 L1 L2 L4", V3="H1 L1 L2 L4", V4="H1"),
     "Rejected after P0 updated: P0 records keys P1 never sees; the next reference misses "
     "(H1; V0 crashes). L1 breaks: after a miss dropped h, a rejected request re-records h "
     "without sending it, and the client's retry then sends h as a reference; P1 never saw h, "
     "so the retry is answered with a miss for h again (L2). L4 breaks: three rejections "
     "defeat two retries. L3 holds within the bounds only: a rejection before the miss is no "
     "event after it, and breaks it in a larger instance (below)." + RESENDS_LIVE),
    (("D3",), dict(V0=CRASH, V1="H1 L2 L4", V2="H1 L2 L4", V3="H1 L2 L4", V4="H1"),
     "One-sided clear: P1 cleared alone while P0 still says hit (H1; V0 crashes); clearing P0 "
     "alone is safe. L2 breaks: after the miss on a, another request re-records a with its "
     "payload, P1 is cleared again, and the retry's reference to a misses. L4 breaks: three "
     "P1 clears, each after another request re-recorded the identity, defeat two retries. L1 "
     "holds: clears only remove keys. L3 holds within the bounds only: a clear before the "
     "miss is no event after it, and breaks it in a larger instance (below)." + RESENDS_LIVE),
    (("D4",), dict(V0=CRASH, V1="H1 L2 L4", V2="H1 L2 L4", V3="H1 L2 L4", V4="H1"),
     "Clear racing in-flight requests: P0 clears, requests handled before P1's reset are "
     "cached by P1 and then wiped while P0 still records them (H1; V0 crashes). L4 breaks "
     "with two events per wipe: three clear/reset pairs defeat two retries (the machines "
     "allow 2(R+1) = 6 events per run); L2 breaks with a wipe between the re-recording "
     "payload and the retry, as for D3. L1 holds and L3 is judged as for D3." + RESENDS_LIVE),
    (("D5",), dict(V0=CRASH, V1="H1 L3", V2="H1 L3", V3="H1 L3", V4="H1"),
     "Two front ends share P1: one front end's payloads evict another's entries from P1 only "
     "(H1; V0 crashes). This drift is a configuration, not an event, so L3's premise holds "
     "throughout: after front end 0's miss on a, front end 1's request evicts front end 0's "
     "other item b from P1, and the retry's reference to b misses again (L3). L1 holds (the "
     "retry goes to the front end that dropped the key). L2 holds within 4 requests and "
     "depends on that bound: the retry references a only after front end 0 re-sent a's "
     "payload, and evicting it again from P1 before the retry takes a fifth request of "
     "front end 1. L4 (V1-V3) is not judged: that each retry sends what missed as data does "
     "not settle it, since other requests' retries re-record identities (the D9 trace), and "
     "the ci search found no trace. One version only: S1, S4 hold." + RESENDS_LIVE),
    (("D6",), dict(V0="S3 H1 L4", V1="S3 H1 L1 L2 L3 L4", V2="S3 H1 L1 L2 L3 L4",
                   V3="H1 L1 L2 L3", V4="H1"),
     "Interleaved P0 updates. A probed hit evicted by another request before the update: the "
     "real front end's assertion fails that request (S3, L4) in V0-V2, the others go on; V3 "
     "reprocesses it. Send order differs from update order: request 2 references a that "
     "request 1 recorded but has not sent yet, P1 misses (H1 in every variant; V0 crashes). L1"
     " breaks in V1-V3: after the miss dropped a, a third request records a and has not sent "
     "yet when the retry, handled in between, finds a and sends it as a reference, which P1 "
     "misses again (L2). L3 breaks in V1-V3 although every split update starts with a drift "
     "event (P0Process): a request processed before the miss and updated after it applies its "
     "LRU operations on P0 in another order than P1 does, so its insert evicts on P1 the entry"
     " the retry references while P0 keeps it, with no drift event after the miss (witness "
     "split-update-evicts-retry-reference, 2 unfinished requests; with 3 the re-recording "
     "variant of it, scenario three-unfinished-split-updates, 13 steps, also breaks L1 and "
     "L2). V3's L4 is not judged (see D5; each inverted send needs its own split request, and "
     "the retries send what missed as data). P0's assertion does not stop the system: the "
     "stale records it leaves add H1/L1/L2 paths the split updates already had." + RESENDS_LIVE),
    (("D7",), dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L4", V2="S3 S4 H1 L4", V3="S4", V4="S4"),
     "Identity reuse alone: a shadow hit on a for new content serves the old content, in "
     "every variant, V3 included (its tag names the old processing): S4 is the documented "
     "limit. The new content is larger (b@1 takes the whole budget): after [b@1], a request "
     "[a b] (it fits as sent: b names b@0's byte) finds b a hit of 2 bytes, and recording a "
     "evicts it before P0 reaches it, as under D8: P0's assertion in V0-V2 (S3, L4), and the "
     "items that request recorded stay in the shadow unsent, so a later reference misses "
     "(H1; V0's engine crashes). In the cache-wins variants (V0, V1) P1 can then keep an "
     "old tensor where P0 records the new content, and a hit pairs them (S1, 3 requests). "
     "V3 resolves references first and reprocesses a lost hit: only S4."),
    (("D8",), dict(V0=CRASH, V1="S3 H1 L1 L2 L3 L4", V2="S3 H1 L1 L2 L3 L4", V3="", V4=""),
     "A request larger than the budget: in request order its own inserts evict a probed hit "
     "before P0 reaches it, with no data to send: the P0 assertion (S3, L4) in V0-V2. Since "
     "the assertion fails only its request: the items it recorded before the lost hit "
     "stay in P0's shadow and never reach P1, as under D2, so the next reference to them "
     "misses (H1; V0's engine crashes). After that miss dropped b, another "
     "asserting request re-records b unsent, the retry sends b as a reference (L1) and is "
     "answered with a miss for b again (L2), with no drift event since the miss (L3: D8 is "
     "standing drift). V3 resolves references first on both sides and reprocesses a lost "
     "hit: nothing breaks."),
    (("D9",), dict(V0=CRASH, V1="H1 L2 L3 L4", V2="H1 L2 L3 L4", V3="H1 L2 L3 L4", V4="H1"),
     "Size skew (P1 sizes b at 2 bytes, P0 at 1; P1 sizes c at 3, over the budget, P0 at 1): "
     "caching b evicts a from P1 only, and c is cached by P0 and skipped by P1 (H1; V0 "
     "crashes). A configuration, not an event, so L3 breaks: V1/V2's retry [a data, b ref] "
     "puts a before resolving b and evicts b on P1; in V3 (references first) another request "
     "between the miss and the retry evicts b from P1 only. L2 breaks: another request "
     "re-records c with its payload, which P1 skips, and the retry's reference to c misses. "
     "L4 breaks: in V1/V2 two requests' retries keep re-recording each other's identities; "
     "in every variant (c being one-sided) two other requests re-record c before each "
     "retry, so the request misses c three times with no drift event at all." + RESENDS_LIVE),
    (("D10",), dict(V0=CRASH, V1="H1 L2 L4", V2="H1 L2 L4", V3="H1 L2 L4", V4="H1"),
     "Process restart: P1's restart loses its cache while P0 says hit (H1; V0 crashes); P0's "
     "restart is safe. L4 and L2 break as for D3 (P1 restarts); L1 holds and L3 is judged "
     "as for D3." + RESENDS_LIVE),
    (("D11",), dict(V0="", V1="", V2="", V3="", V4=""),
     "Items over the budget are cached by neither side (the receiver's pre-#57833 path and "
     "put both skip them, and no old entry exists since neither side ever cached one), so "
     "the LRUs mirror; a later UUID-only request for such an item is a client error at P0, "
     "which L4 accepts. Nothing breaks."),
    (("D5", "D7"), dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L3 L4", V2="S1 S3 S4 H1 L3 L4",
                        V3="S4 H1 L3", V4="S4 H1"),
     "Two front ends and identity reuse: front end 1 sends a's new content while front end 0 "
     "still records the old; front end 0's reference then pairs P1's new tensor with old "
     "placeholders (V2, vllm#55546), or the cache-wins variants pair the old tensor with the "
     "new placeholders (S1). V3's tag mismatch turns it into a miss (H1, not S1). S4 as for "
     "D7, and S3, L4 (V1, V2) as for D7; H1, L2, L3 as for D5; V3's L4 not judged as for D5 "
     "(every D5 trace is a D5+D7 trace, so it cannot be expected to hold here)." + RESENDS_LIVE),
    (("D7", "D10"), dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L2 L4", V2="S3 S4 H1 L2 L4",
                         V3="S4 H1 L2 L4", V4="S4 H1"),
     "P0 restarts and forgets a; the client sends a with new content; P0 sends the payload. "
     "V0/V1 (the cache wins) use P1's old tensor with the new placeholders (S1). V2/V3: the "
     "payload wins and with one front end and FIFO delivery P1's entry for an identity is "
     "always the last payload P0 sent for it, so every reference pairs consistently. S3 "
     "(V1, V2) and S4 as for D7; H1, L2, L4 as for D10." + RESENDS_LIVE),
    (("D3", "D7", "D9", "D11"), dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L2 L3 L4",
                                     V2="S3 S4 H1 L2 L3 L4", V3="S4 H1 L2 L3 L4", V4="S4 H1"),
     "The stale-resend setting of vllm#57833: P0 forgets a (clear), the client sends a's new "
     "content: the cache-wins variants pair P1's old tensor with the new placeholders (S1); "
     "V2/V3 drop the old entry first. H1, L2, L4 as for D3; L3 as for D9 (c is over the "
     "budget on both sides here, D11); S3 (V1, V2) and S4 as for D7." + RESENDS_LIVE),
    (CRITICAL_SECTION_REMAINDER, dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L1 L2 L3 L4",
                                      V2="S1 S3 S4 H1 L1 L2 L3 L4", V3="S4 H1 L2 L3 L4",
                                      V4="S4 H1"),
     "Q2: P0 updates and sends in one critical section and rejects nothing after it (no D1, "
     "D2, D6). Not sufficient for H1: one-sided clears, clears racing requests, shared "
     "engines, size skew and restarts still make P1 miss. S1 as for D5+D7, S3 (V1/V2) as "
     "for D8, L3 as for D5/D9, L2 and L4 as for D3. L1 breaks in V1/V2 (P0's "
     "assertion under D8 leaves recorded, unsent items, as a rejection would); it holds "
     "in V3, which never asserts." + RESENDS_LIVE),
    (DRIFT_IDS,
     dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L1 L2 L3 L4", V2="S1 S3 S4 H1 L1 L2 L3 L4",
          V3="S4 H1 L1 L2 L3 L4", V4="S4 H1"),
     "Everything at once: the union of the above. V3 keeps S1, S2, S3 under every drift; S4 "
     "is its documented limit; H1 and L1-L4 are what drift costs it." + RESENDS_LIVE),
)


REPORTING: tuple[str, ...] = tuple(
    v.name for v in VARIANTS if v.reports_misses and not v.resends_bypass_shadow
)
"""The variants that answer a miss with the retryable error and whose resend may hold a
reference (V1-V3; V0 crashes instead; V4's resend holds none, so its liveness is settled)."""

_NOT_JUDGED: dict[tuple[str, tuple[str, ...]], set[str]] = {
    **{(v, ("D1",)): {"L4"} for v in REPORTING},
    **{(v, ("D5",)): {"L4"} for v in REPORTING},
    ("V3", ("D5", "D7")): {"L4"},
    ("V3", ("D6",)): {"L4"},
}
"""Cells whose L4 verdict within the bounds is not settled. The D9 trace the checker found
(two requests' retries re-recording each other's identities) defeats the argument these
cells relied on ("each retry sends what missed as data"); D1 and D5 allow the same pattern
through reordering or the other front end (D5+D7 contains every D5 trace: V3's L4 there;
V1/V2 break it there as under D7), V3 under D6 through split updates. The ci search found
no trace, so no verdict is claimed."""

BEYOND_WHY = ("S1 is not judged here for a variant without tags (V2): it breaks with D7 "
              "alone four requests deep on a budget of 3 with a size per content (11 steps, "
              "docs/results/parametric-witnesses/V2_D7_S1.json), past Hypothesis's instance and "
              "Z3's search depth, so no check of the main job can confirm it.")
L3_WHY = ("L3 is not judged here for V1 and V2: with D7 alone, three requests of two items "
          "in V1 (the lattice's four-request run, docs/results/lattice/V1_D7_L3.json.gz, 13 "
          "steps) and five in V2 (docs/results/parametric-witnesses/V2_D7_L3.json, 19 steps) leave "
          "a retry after a miss missing again with no drift event in between, a run the main "
          "job's checkers did not reach, so neither a hold nor a break is claimed.")


def _reports_untagged(variant: Variant) -> bool:
    """V1 and V2: P0 asserts under D7 (no late-miss reprocessing) and misses are reported."""
    return untagged(variant) and variant.reports_misses


def _reports(variant: Variant) -> bool:
    """Misses reported, and a resend that may reference (V1-V3): its retry can miss again."""
    return variant.reports_misses and not variant.resends_bypass_shadow


REUSE_WHY = ("L1 and L2 are not judged here for V1 and V2: with D7 alone, five requests on a "
             "budget of 3 with a size per content "
             "(docs/results/parametric-witnesses/V2_D7_L1.json, 18 steps; _L2, 20 steps) make "
             "P0's assertion re-record an identity it owes after a miss, so the retry "
             "references it (L1) and misses it again (L2), a run the main "
             "job's checkers did not reach.")
REJECTED_WHY = ("L3 is not judged here for V1-V3: with D2 alone, five requests of two items "
                "(docs/results/parametric-witnesses/V2_D2_L3.json, 20 steps) leave a retry missing "
                "again with no drift event after the miss, a run the main job's checkers did "
                "not reach.")
ONE_SIDED_WHY = ("L3 is not judged here for V1-V3: once P1 alone has lost a key (D3, D4 or "
                 "D10, before the miss), six requests of two items with three unfinished "
                 "(docs/results/parametric-witnesses/V2_D3_L3.json, 28 steps) make P1 fuller than "
                 "P0 after the miss reply, so P1 evicts what the retry references while P0 "
                 "keeps it, with no drift event after the miss: a run the main job's "
                 "checkers did not reach.")
TWO_FRONT_ENDS_WHY = ("L2 is not judged here for V1-V3: with two front ends (D5) alone, six "
                      "one-item requests on a budget of 3 with sizes 2, 2 and 3 "
                      "(docs/results/parametric-witnesses/V2_D5_L2.json, 27 steps) let the other "
                      "front end's traffic evict at P1 what a request of the retry's front "
                      "end re-recorded, so the retry references it and misses it again, a "
                      "run the main job's checkers did not reach.")

_BEYOND_THE_BOUNDS: tuple[tuple[str, Callable[[Variant], bool], set[str], str], ...] = (
    ("D7", untagged, {"S1"}, BEYOND_WHY), ("D7", _reports_untagged, {"L3"}, L3_WHY),
    ("D7", _reports_untagged, {"L1", "L2"}, REUSE_WHY), ("D2", _reports, {"L3"}, REJECTED_WHY),
    ("D5", _reports, {"L2"}, TWO_FRONT_ENDS_WHY),
    *((source, _reports, {"L3"}, ONE_SIDED_WHY) for source in ("D3", "D4", "D10")))
"""Per drift source and class of variants (by knobs, as `pair_reasons` reasons), the
properties that break under every environment with that source past the main job's bounds
(the all-instance witnesses of `tests/smt/parametric_witness_liveness.py` for L1-L3), where no row
already expects them to break: V2's S1 (V0 and V1 break it within the bounds) breaks under D7
alone four requests deep on a budget of 3 with a size per content (11 steps, two requests
failed by P0's assertion leaving the shadow updated for requests P1 never sees:
`docs/results/parametric-witnesses/V2_D7_S1.json`, replayed on the spec by
`tests/explore/test_every_instance_witness.py`). Hypothesis's instance (a budget of 2) does
not contain that run; Z3's does (every step is one of its relation and the last breaks S1
there: `tests/smt/test_smt_witness_in_encoding.py`), but its search stops at depth 10, and
the explorer's smaller instance holds it, so the matrix claims neither that
these cells hold nor a break its checkers could not confirm: not judged, the reason in the
cell's `why` (`beyond_the_bounds`)."""


def beyond_the_bounds(variant: str, env: tuple[str, ...], broken: set[str]) -> set[str]:
    """The properties of `variant` under `env` not judged because they break past the main
    job's bounds (`_BEYOND_THE_BOUNDS`), those the row expects to break left out."""
    found = variant_named(variant)
    return {p for source, member, props, _ in _BEYOND_THE_BOUNDS
            if source in env and member(found) for p in props} - broken


def beyond_why(variant: str, env: tuple[str, ...], broken: set[str]) -> str:
    """Why the properties `beyond_the_bounds` names are not judged, one sentence each."""
    found = variant_named(variant)
    return " ".join(dict.fromkeys(why for source, member, props, why in _BEYOND_THE_BOUNDS
                                  if source in env and member(found) and props - broken))

_WIDER: dict[tuple[str, tuple[str, ...]], dict[str, Expectation]] = {}
"""Where L3/L4 at `WIDER_IN_FLIGHT` unfinished requests differ from the cell's verdict at
`IN_FLIGHT`: the verdict depends on the bound (the cell's `why` says so). None: D6's L3 breaks
at 2 unfinished requests already."""


# D5's other half: one front end, two engines behind a router. A separate block (environment
# name `ROUTER`, declared with the command-line parser in `environment_arg`: D5 enabled, one
# front end, one shadow, two engines, two receivers; the front end's sending step chooses the
# engine), so that environments added above merge without conflicts.
ROUTER_ENVIRONMENTS: tuple[tuple[str, ...], ...] = ((ROUTER,),)


_ROUTER_BREAKS: tuple[tuple[tuple[str, ...], dict[str, str], str], ...] = (
    ((ROUTER,), dict(V0=CRASH, V1="H1 L2 L3 L4", V2="H1 L2 L3 L4", V3="H1 L2 L3 L4",
                     V4="H1"),
     "One front end, two engines behind a router (data-parallel engines; vLLM turns the IPC "
     "cache off here unless an external load balancer gives each engine its own front end). "
     "The one shadow records what was sent to either engine, so a request for a routed to "
     "the other engine references a there and misses (H1; V0 crashes). One version only: "
     "S1, S4 hold; no split or over-budget updates: S3 holds in V1-V3. L1 holds: one front "
     "end whose handling is one step re-records a dropped identity only by sending its "
     "payload, which excuses the retry's reference. The routing choice is standing drift, "
     "not an event, so recovery can fail with no drift event at all: after the miss on a at "
     "engine 1, another request sends a's payload to engine 0, P0 records a again, and the "
     "retry, routed to engine 1, references a and misses again (L2, L3; 3 requests, scenario "
     "router-retry-to-the-other-engine). L4 breaks within 4 requests: a fourth request "
     "re-sends a's payload to engine 0 before the second retry, which engine 1 misses again, "
     "the third miss with R = 2. The same traces exist with 3 unfinished requests (wider "
     "L3/L4 break too)." + RESENDS_LIVE),
)


def _row_entry(breaks: Mapping[str, str], variant: str, env: tuple[str, ...]) -> str:
    """A row's expectation for `variant`; a row that does not name it is an error naming the
    row (every row states every variant of `VARIANTS`, and no other)."""
    unknown = sorted(set(breaks) - set(VARIANT_NAMES))
    if unknown:
        raise ValueError(f"the matrix row of {'+'.join(env) or 'no drift'} names "
                         f"{', '.join(unknown)}, which are not variants of spec.VARIANTS")
    if variant not in breaks:
        raise ValueError(f"the matrix row of {'+'.join(env) or 'no drift'} has no expectation "
                         f"for {variant}: add what {variant} breaks there, and why")
    return breaks[variant]


def _cells() -> tuple[Cell, ...]:
    cells = []
    for env, breaks, why in (*_BREAKS, *_ROUTER_BREAKS):
        for variant in VARIANT_NAMES:
            broken = set(_row_entry(breaks, variant, env).split())
            beyond = beyond_the_bounds(variant, env, broken)
            unjudged = _NOT_JUDGED.get((variant, env), set()) | beyond
            expectations = {
                p: Expectation.NOT_JUDGED if p in unjudged
                else Expectation.BREAKS if p in broken
                else Expectation.HOLDS
                for p in PROPERTIES
            }
            wider = {p: expectations[p] for p in WIDER_PROPERTIES}
            wider.update(_WIDER.get((variant, env), {}))
            said = f"{why} {beyond_why(variant, env, broken)}" if beyond else why
            cells.append(Cell(variant, env, expectations, f"{said} {ALWAYS}", wider))
    return tuple(cells)


EXPECTED: tuple[Cell, ...] = _cells()
"""The main matrix's cells (ENVIRONMENTS and ROUTER_ENVIRONMENTS x every variant): what the main job
runs."""


def single(variant: str, drift: str) -> Cell:
    """The main matrix's cell for `variant` under `drift` alone; a KeyError names the fix."""
    for cell in EXPECTED:
        if cell.variant == variant and cell.environment == (drift,):
            return cell
    raise KeyError(f"no expected cell for {variant} under {drift} alone: add the drift "
                   "source's row to _BREAKS (what each variant breaks under it, and why)")
