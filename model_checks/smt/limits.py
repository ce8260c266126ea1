"""The resource limits (z3 rlimit units per query) of the SMT checkers, as plain numbers: the
command lines read them as defaults without importing z3. `budget` says how z3 counts them.
"""

BMC_RLIMIT = 200_000_000
"""Per BMC query (one depth of one cell group). Calibrated on the main job's `prove` with no
limit: the costliest query of the first 48 groups spent 109 million units (V1 under D6, the
depth of S3's 8-step counterexample); every other group stayed under 50 million. 200 million
leaves that query a margin of 1.8."""

CERTIFICATE_RLIMIT = 600_000_000
"""Per query of an inductive certificate (initiation, consecution of one invariant,
implication), of k-induction and of the re-check of Spacer's invariant. Calibrated with no
effective limit: V3's certificate under every drift source at once
spent 298 million units on its costliest query (the limit was 300 million: a margin of 1.006);
every other group's certificates and re-checks stayed under 46 million (V3 under
D3+D4+D5+D7+D8+D9+D10+D11). 600 million gives the largest a margin of 2."""

DEEP_RLIMIT = 1_200_000_000
"""Per query of the deep searches outside the main job (the mutants' 14-15 step
counterexamples: `python -m model_checks mutants`, the slow mutant tests)."""

STEP_RLIMIT = 20_000_000
"""Per cross-check query (one concrete step of the spec against the relation): small, ground."""

CHC_RLIMIT = 20_000_000
"""Per Spacer (CHC) query of the main job (`chc`; the re-check of Spacer's invariant is bounded
by `CERTIFICATE_RLIMIT` per query). Calibrated with `chc.chc_decide` (its query in a z3
context of its own: the same units whatever ran before it) on every holding S3 cell of V1 and
V2 the main job proves: Spacer plus the re-check spent 0.5 to 2.4 million units; 20 million
leaves the largest a margin of 8. V0's S3 (a miss crashes V0, so S3 is H1 there) runs out,
spending the whole limit: 3 cells, 60 million units, in the main job. V2's S3 under D5+D7
(nightly only) runs out too, even with 200 million."""
