"""Decode: from a Z3 model back to the spec, checked against it.

Owns the decoding of a model into a concrete `Config` and spec actions, run with `spec.run`
(`trace`), and the step cross-check between the spec and the encoding (`crosscheck`: every
step of a spec trace is a step of the relation, and the only one; both enable the same
actions). Takes a model from `search/`; hands back a spec trace, or the first step where spec
and encoding disagree.
"""
