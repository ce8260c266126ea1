"""Prove: properties for all depths, each proof re-checked as a certificate with fresh solvers.

Owns the inductive-invariant check and V3's certificate (`invariant`), k-induction (`induction`),
Spacer's CHC proofs (`chc`), the hand-written relational certificates (`relational`) and the
order they run in before BMC (`proved_first`). Reads the formulas of `encode/`; hands proved
properties (and lemmas) to the runner and `search/`, which searches only what is left.

Beside them, the proofs for every instance size, over abstract models with uninterpreted
sorts (z3's MBQI), run by `prove --parametric` and read by the drift lattice as all-instance
proofs:

- `parametric`: the abstract model and V3's certificate of S1-S3 (which covers V4's S1-S3
  too); `parametric_goals`: S1, S2, S3 and H1 beyond V3, one goal per variant, property and
  environment, each with its own certificate, and the nearest certificate's failing query
  where none applies;
- `parametric_mirror`: H1 and S3 where the two caches mirror each other, over uninterpreted
  LRU states; `parametric_liveness`: L1-L3 as safety over the model with history variables;
- where those proofs fail, real breaks on larger instances, committed under
  docs/results/parametric-witnesses/ and replayed before the drift lattice takes them as
  evidence (written by tests/smt/parametric_witness.py, V2's S1 under D7 alone, and
  tests/smt/parametric_witness_liveness.py, L1-L3, which hold the files fresh);
- `retry_window`: the undisturbed-attempt theorem about retries
  (`model_checks.kernel.retries`), a symbolic run of the window over uninterpreted sorts;
  `prove --parametric` prints it after the matrix's goals (it is no matrix property).
"""
