"""Tables keyed by action class: how every consumer of the spec's actions maps them.

A consumer (the SMT encoding's relations, the explorer's partial-order reduction) keeps one
dict per concern, keyed by the classes of `spec.ACTION_TYPES` (the spec's one list of
actions), never an isinstance chain: a new action class is then a missing key, which
`uncovered` names and the architecture tests fail on, instead of a branch silently not taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from spec import ACTION_TYPES, Action

_V = TypeVar("_V")


def entry(table: Mapping[type[Action], _V], action: Action) -> _V:
    """`table`'s entry for `action`'s class; a class the table lacks is a clear error."""
    try:
        return table[type(action)]
    except KeyError:
        raise KeyError(f"{type(action).__name__} has no entry in this table; add one for "
                       "every class of spec.ACTION_TYPES") from None


def uncovered(table: Mapping[type[Action], object]) -> list[str]:
    """What a table gets wrong against `spec.ACTION_TYPES`: classes it lacks, and keys that
    are not spec action classes (empty: it covers exactly the spec's actions)."""
    missing = [f"{c.__name__}: no entry" for c in ACTION_TYPES if c not in table]
    extra = [f"{getattr(c, '__name__', c)}: not a spec action class" for c in table
             if c not in ACTION_TYPES]
    return missing + extra
