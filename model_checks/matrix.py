"""The expected verdict matrix: for each variant and environment, what every property must do.

Expectations are data, reasoned out from the protocol (each cell's `why`), never copied from a
checker's output. A checker compares its results with `EXPECTED`; a must-hold property that
fails, or a must-break property whose counterexample is not found within budget, is a mismatch.

(The cells are filled in by the Hypothesis issue; this module fixes their types.)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from spec import ALL_DRIFT, Config, Content, ItemSize, Variant, environment


class Expectation(enum.Enum):
    HOLDS = "holds"  # no checker may find a violation
    BREAKS = "breaks"  # a counterexample must be found
    NOT_JUDGED = "not judged"  # not meaningful here (say why in the cell)

    def __repr__(self) -> str:
        return f"Expectation.{self.name}"


@dataclass(frozen=True)
class Cell:
    """One row of the matrix: a variant, an environment (drift ids), and per property id the
    expectation, with the reasoning in `why`."""

    variant: str
    environment: tuple[str, ...]
    expectations: Mapping[str, Expectation]
    why: str


# The environments of the matrix: nothing drifting, each drift source alone, the combinations
# BRIEF section 8 asks about, and everything at once.
CRITICAL_SECTION_REMAINDER: tuple[str, ...] = ("D3", "D4", "D5", "D7", "D8", "D9", "D10", "D11")
"""Q2: what is left when P0 updates and sends in one critical section and nothing is rejected
after it (no interleaved updates D6, no rejection D2, send order = update order so no D1)."""

ENVIRONMENTS: tuple[tuple[str, ...], ...] = (
    (),
    *((d.value,) for d in sorted(ALL_DRIFT, key=lambda d: int(d.value[1:]))),
    ("D5", "D7"),
    ("D7", "D10"),
    ("D3", "D7", "D9", "D11"),
    CRITICAL_SECTION_REMAINDER,
    tuple(d.value for d in sorted(ALL_DRIFT, key=lambda d: int(d.value[1:]))),
)

SKEWED = ItemSize(Content("b"), 1, 2)
"""Under D9: P1 sizes b at 2 bytes, P0 at 1 (P1 evicts where P0 does not)."""
OVERSIZED = ItemSize(Content("c"), 3, 3)
"""Under D11: c takes 3 bytes of the 2-byte budget on both sides."""


def config_for(variant: Variant, env: tuple[str, ...]) -> Config:
    """The configuration every checker uses for a cell: identities a, b, c; budget 2; at most
    4 requests, 2 unfinished at once, 2 items each, 2 retries; and what each drift source needs
    to exist at all: two front ends (D5), a second content per identity (D7), three items per
    request (D8), b skewed (D9), c over the budget (D11)."""
    drift = set(env)
    sizes = tuple(
        size for size, source in ((SKEWED, "D9"), (OVERSIZED, "D11")) if source in drift
    )
    return Config(
        variant=variant,
        environment=environment(*env),
        front_ends=2 if "D5" in drift else 1,
        versions=2 if "D7" in drift else 1,
        max_items=3 if "D8" in drift else 2,
        sizes=sizes,
    )


PROPERTIES: tuple[str, ...] = ("S1", "S2", "S3", "S4", "H1", "L1", "L2", "L3", "L4")

CRASH = "S3 H1 L4"
"""V0 wherever P1 can miss a reference: the assertion kills the engine (S3), the miss is the
H1 failure itself, and a crashed system never completes its requests (L4)."""

ALWAYS = (
    "Always, every variant: S2 holds (both LRUs reject an item over the budget and evict until "
    "the new one fits, on their own side's sizes); L2 holds (P1 resolves every item that "
    "carries data, so only references can miss). V0 reports no miss, so P0 never receives a "
    "miss reply and L1 and L3 hold vacuously."
)

# Per environment: the properties each variant must break (every other property of PROPERTIES
# must hold), and why. Reasoned from the protocol (BRIEF sections 3-6, the spec's transitions)
# for the configuration `config_for` builds; never copied from a checker's output.
_BREAKS: tuple[tuple[tuple[str, ...], dict[str, str], str], ...] = (
    ((), dict(V0="", V1="", V2="", V3=""),
     "No drift: P0 updates and sends in one step, P1 takes messages in order, sizes agree, "
     "every request fits the budget. Both LRUs see the same operations in the same order "
     "(touch all, then get for a reference and put for a payload), so P1 lags P0 but mirrors "
     "it: every reference is served with the entry P0 recorded (H1, S1), nothing crashes, no "
     "miss ever happens (L1, L3 vacuous), every request succeeds or is a client error (L4)."),
    (("D1",), dict(V0=CRASH, V1="H1 L3", V2="H1 L3", V3="H1 L3"),
     "Reordered delivery: a reference can overtake the payload it trusts, so P1 misses (H1; "
     "V0 crashes). Only one version exists (S1, S4 hold) and P0's handling is one step (no "
     "P0 assertion). L1 holds: without rejection or split updates P0 re-records a dropped "
     "identity only while sending its payload. L3 breaks (first reasoned to hold, corrected "
     "by the checker's trace): the reordering happens before the miss, and a message P0 sent "
     "before the miss, delivered in order after it, evicts from P1 the entry the retry then "
     "references, while P0, which applied that message before the reordered one, keeps it. "
     "L4 is not judged: whether one request can miss three times within 4 requests and 2 "
     "unfinished ones is not settled by reasoning, and the ci search found no trace."),
    (("D2",), dict(V0=CRASH, V1="H1 L1 L4", V2="H1 L1 L4", V3="H1 L1 L4"),
     "Rejected after P0 updated: P0 records keys P1 never sees; the next reference misses "
     "(H1; V0 crashes). L1 breaks: after a miss dropped h, a rejected request re-records h "
     "without sending it, and the client's retry then sends h as a reference. L4 breaks: "
     "three rejections defeat two retries. L3 holds: a rejection is a drift event."),
    (("D3",), dict(V0=CRASH, V1="H1 L4", V2="H1 L4", V3="H1 L4"),
     "One-sided clear: P1 cleared alone while P0 still says hit (H1; V0 crashes); clearing P0 "
     "alone is safe. L4 breaks: three P1 clears, each after another request re-recorded the "
     "identity, defeat two retries. L3 holds: every clear is a drift event. L1 holds: clears "
     "only remove keys."),
    (("D4",), dict(V0=CRASH, V1="H1 L4", V2="H1 L4", V3="H1 L4"),
     "Clear racing in-flight requests: P0 clears, requests handled before P1's reset are "
     "cached by P1 and then wiped while P0 still records them (H1; V0 crashes). L4 breaks "
     "with two events per wipe: three clear/reset pairs defeat two retries (the machines "
     "allow 2(R+1) = 6 events per run). L1, L3 hold as for D3."),
    (("D5",), dict(V0=CRASH, V1="H1 L3", V2="H1 L3", V3="H1 L3"),
     "Two front ends share P1: one front end's payloads evict another's entries from P1 only "
     "(H1; V0 crashes). This drift is a configuration, not an event, so L3's premise holds "
     "throughout: after front end 0's miss on a, front end 1's request evicts front end 0's "
     "other item b from P1, and the retry's reference to b misses again (L3). L1 holds (the "
     "retry goes to the front end that dropped the key). L4 (V1-V3) is not judged: first "
     "reasoned to hold because each retry sends what missed as data, an argument the D9 "
     "trace refutes (other requests' retries re-record identities). One version only: S1, "
     "S4 hold."),
    (("D6",), dict(V0="S3 H1 L4", V1="S3 H1 L1 L4", V2="S3 H1 L1 L4", V3="H1 L1"),
     "Interleaved P0 updates. A probed hit evicted by another request before the update: the "
     "real front end asserts (S3, L4) in V0-V2; V3 reprocesses it. Send order differs from "
     "update order: request 2 references a that request 1 recorded but has not sent yet, P1 "
     "misses (H1 in every variant; V0 crashes). L1 breaks in V1-V3: after the miss dropped "
     "a, a third request records a and has not sent yet when the retry, handled in between, "
     "finds a and sends it as a reference. L3 holds: the split update starts with a drift "
     "event (P0Process); V3's L4 is not judged (see D5; each inverted send needs its own "
     "split request, and the retries send what missed as data)."),
    (("D7",), dict(V0="S4", V1="S4", V2="S4", V3="S4"),
     "Identity reuse alone: the LRUs still mirror, so every reference finds the entry P0 "
     "recorded, consistently paired (S1 holds, H1 holds); but a shadow hit on a for new "
     "content serves the old content, in every variant, V3 included (its tag names the old "
     "processing): S4 is the documented limit."),
    (("D8",), dict(V0="S3 L4", V1="S3 L4", V2="S3 L4", V3=""),
     "A request larger than the budget: in request order its own inserts evict a probed hit "
     "before P0 reaches it, with no data to send: the P0 assertion (S3, L4) in V0-V2. V3 "
     "resolves references first on both sides and reprocesses a lost hit: nothing breaks. "
     "H1 holds everywhere: both sides apply the same operations in the same order, and a "
     "reference resolved before its eviction is still served."),
    (("D9",), dict(V0=CRASH, V1="H1 L3 L4", V2="H1 L3 L4", V3="H1 L3"),
     "Size skew (P1 sizes b at 2 bytes, P0 at 1): caching b evicts a from P1 only (H1; V0 "
     "crashes). A configuration, not an event, so L3 breaks: V1/V2's retry [a data, b ref] "
     "puts a before resolving b and evicts b on P1; in V3 (references first) another request "
     "between the miss and the retry evicts b from P1 only. L4 breaks (first reasoned to "
     "hold, corrected by the checker's trace): two requests' retries keep re-recording each "
     "other's identities, and each skewed payload evicts from P1 the item the other request "
     "then references, so one request misses three times with no drift event at all. V3's "
     "L4 is not judged: resolving references first defeats that trace, and no other was "
     "found or reasoned out."),
    (("D10",), dict(V0=CRASH, V1="H1 L4", V2="H1 L4", V3="H1 L4"),
     "Process restart: P1's restart loses its cache while P0 says hit (H1; V0 crashes); P0's "
     "restart is safe. L4 breaks as for D3 (three P1 restarts); L1, L3 hold."),
    (("D11",), dict(V0="", V1="", V2="", V3=""),
     "Items over the budget are cached by neither side (the receiver's pre-#57833 path and "
     "put both skip them, and no old entry exists since neither side ever cached one), so "
     "the LRUs mirror; a later UUID-only request for such an item is a client error at P0, "
     "which L4 accepts. Nothing breaks."),
    (("D5", "D7"), dict(V0="S1 S4 " + CRASH, V1="S1 S4 H1 L3", V2="S1 S4 H1 L3",
                        V3="S4 H1 L3"),
     "Two front ends and identity reuse: front end 1 sends a's new content while front end 0 "
     "still records the old; front end 0's reference then pairs P1's new tensor with old "
     "placeholders (V2, vllm#55546), or the cache-wins variants pair the old tensor with the "
     "new placeholders (S1). V3's tag mismatch turns it into a miss (H1, not S1). S4 as for "
     "D7; H1, L3 as for D5."),
    (("D7", "D10"), dict(V0="S1 S4 " + CRASH, V1="S1 S4 H1 L4", V2="S4 H1 L4",
                         V3="S4 H1 L4"),
     "P0 restarts and forgets a; the client sends a with new content; P0 sends the payload. "
     "V0/V1 (the cache wins) use P1's old tensor with the new placeholders (S1). V2/V3: the "
     "payload wins and with one front end and FIFO delivery P1's entry for an identity is "
     "always the last payload P0 sent for it, so every reference pairs consistently. S4 as "
     "for D7; H1, L4 as for D10."),
    (("D3", "D7", "D9", "D11"), dict(V0="S1 S4 " + CRASH, V1="S1 S4 H1 L3 L4",
                                     V2="S4 H1 L3 L4", V3="S4 H1 L3 L4"),
     "The stale-resend setting of vllm#57833: P0 forgets a (clear), the client sends a's new "
     "content: the cache-wins variants pair P1's old tensor with the new placeholders (S1); "
     "V2/V3 drop the old entry first. H1, L4 as for D3; L3 as for D9; S4 as for D7."),
    (CRITICAL_SECTION_REMAINDER, dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L3 L4",
                                      V2="S1 S3 S4 H1 L3 L4", V3="S4 H1 L3 L4"),
     "Q2: P0 updates and sends in one critical section and rejects nothing after it (no D1, "
     "D2, D6). Not sufficient for H1: one-sided clears, clears racing requests, shared "
     "engines, size skew and restarts still make P1 miss. S1 as for D5+D7, S3 (V1/V2) as "
     "for D8, L3 as for D5/D9, L4 as for D3. L1 holds: without rejection or split updates a "
     "dropped key is re-recorded only with its payload."),
    (tuple(d.value for d in sorted(ALL_DRIFT, key=lambda d: int(d.value[1:]))),
     dict(V0="S1 S4 " + CRASH, V1="S1 S3 S4 H1 L1 L3 L4", V2="S1 S3 S4 H1 L1 L3 L4",
          V3="S4 H1 L1 L3 L4"),
     "Everything at once: the union of the above. V3 keeps S1, S2, S3 and L2 under every "
     "drift; S4 is its documented limit; H1, L1, L3 and L4 are what drift costs it."),
)


_NOT_JUDGED: dict[tuple[str, tuple[str, ...]], set[str]] = {
    **{(v, ("D1",)): {"L4"} for v in ("V1", "V2", "V3")},
    **{(v, ("D5",)): {"L4"} for v in ("V1", "V2", "V3")},
    ("V3", ("D6",)): {"L4"},
    ("V3", ("D9",)): {"L4"},
}
"""Cells whose L4 verdict within the bounds is not settled. The D9 trace the checker found
(two requests' retries re-recording each other's identities) defeats the argument these
cells relied on ("each retry sends what missed as data"); D1 and D5 allow the same pattern
through reordering or the other front end, V3 under D6 through split updates. The ci search
found no trace, so no verdict is claimed."""


def _cells() -> tuple[Cell, ...]:
    cells = []
    for env, breaks, why in _BREAKS:
        for variant in ("V0", "V1", "V2", "V3"):
            broken = set(breaks[variant].split())
            unjudged = _NOT_JUDGED.get((variant, env), set())
            expectations = {
                p: Expectation.NOT_JUDGED if p in unjudged
                else Expectation.BREAKS if p in broken
                else Expectation.HOLDS
                for p in PROPERTIES
            }
            cells.append(Cell(variant, env, expectations, f"{why} {ALWAYS}"))
    return tuple(cells)


EXPECTED: tuple[Cell, ...] = _cells()


def expected_cell(variant: str, env: tuple[str, ...]) -> Cell:
    """The cell for a variant and environment (drift ids in numeric order)."""
    for cell in EXPECTED:
        if cell.variant == variant and cell.environment == env:
            return cell
    raise KeyError(f"no expected cell for {variant} under {'+'.join(env) or 'no drift'}")
