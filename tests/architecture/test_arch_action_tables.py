"""Every consumer of the spec's actions keeps one table keyed by action class, covering
exactly `spec.ACTION_TYPES` (a new action class is a missing key, named here, not a branch
silently not taken)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from model_checks.action_tables import entry, uncovered
from spec import ACTION_TYPES, Action
from spec.transitions import ClearBoth, P1Reset


def consumer_tables() -> dict[str, Mapping[type[Action], object]]:
    from model_checks.explore.reduction import footprint, stubborn
    from model_checks.smt.decode import crosscheck
    from model_checks.smt.decode import trace as decode
    from model_checks.smt.encode import actions

    return {
        "smt.encode.actions.ENCODINGS": actions.ENCODINGS,
        "smt.decode.trace.DECODERS": decode.DECODERS,
        "smt.decode.crosscheck.ARGUMENTS": crosscheck.ARGUMENTS,
        "explore.reduction.footprint.FOOTPRINTS": footprint.FOOTPRINTS,
        "explore.reduction.stubborn.GROUPS": stubborn.GROUPS,
        "explore.reduction.stubborn.NECESSARY_ENABLING": stubborn.NECESSARY_ENABLING,
    }


def test_arch_action_tables_cover_exactly_the_spec_actions() -> None:
    assert len(set(ACTION_TYPES)) == len(ACTION_TYPES)
    for name, table in consumer_tables().items():
        assert uncovered(table) == [], name


def test_arch_the_action_codes_follow_the_table() -> None:
    """The SMT action codes are the table's encodings in order, one class per group."""
    from model_checks.smt.encode.actions import ACTIONS, ENCODINGS

    assert tuple(e for group in ENCODINGS.values() for e in group) == ACTIONS
    assert all(e.spec_class is cls for cls, group in ENCODINGS.items() for e in group)


def test_arch_a_table_missing_a_class_is_named() -> None:
    """Known-bad input: a table that lacks a class, or has a key that is no spec action."""
    table: dict[type[Action], object] = {cls: None for cls in ACTION_TYPES}
    del table[P1Reset]
    assert uncovered(table) == ["P1Reset: no entry"]
    with pytest.raises(KeyError, match="P1Reset has no entry in this table"):
        entry(table, P1Reset())
    table[P1Reset] = None
    table[int] = None  # type: ignore[index]
    assert uncovered(table) == ["int: not a spec action class"]
    assert entry(table, ClearBoth()) is None
