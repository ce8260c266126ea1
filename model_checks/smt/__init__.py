"""Z3 side of the model checks: a symbolic encoding of the spec's transition system, bounded
model checking with iterative deepening, an inductive-invariant proof for all depths, and the
cross-checks that tie the encoding to the spec (every counterexample replays on the spec; every
spec step is a step of the encoding)."""
