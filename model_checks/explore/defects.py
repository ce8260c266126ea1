"""The explorer's defects: errors that mean the explorer itself is wrong, never a verdict.

They subclass `AssertionError`, which mypyc cannot compile a class of, so they live in this
module, which `scripts/compile-spec` leaves interpreted, and not in the compiled modules
that raise them (`graph.py`).
"""

from __future__ import annotations


class RegenerationDiverged(AssertionError):
    """A state rebuilt along its stored path does not have the fingerprint it was stored
    with: a defect (the spec or a reduction is not deterministic), never a verdict."""
