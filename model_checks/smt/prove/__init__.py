"""Prove: properties for all depths, each proof re-checked as a certificate with fresh solvers.

Owns the inductive-invariant check and V3's certificate (`invariant`), k-induction with
Houdini lemmas (`induction`), Spacer's CHC proofs (`chc`), the hand-written relational
certificates (`relational`), the order they run in before BMC (`proved_first`), and the
parametric proof of V3 over uninterpreted sorts (`parametric`; its certificate covers V4's
S1-S3 too). Reads the formulas of `encode/`; hands proved properties (and lemmas) to the
runner and `search/`, which searches only what is left.
"""
