"""The lockstep's mapping of spec actions onto adapter calls is one table keyed by action class
(`ACTION_CALLS`), covering exactly the spec's action classes: a new action class without a
mapping, or a mapping for a class the spec no longer has, fails here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from model_checks.conform.lru_lockstep.implementation import ACTION_CALLS
from spec.transitions import ACTION_TYPES, P1Restart


def mismatch(action_types: Iterable[type], table: Mapping[type, object]) -> set[str]:
    """The action classes mapped but not in the spec, or in the spec but not mapped."""
    return {kind.__name__ for kind in set(action_types).symmetric_difference(table)}


def test_every_spec_action_class_has_exactly_one_mapping() -> None:
    assert mismatch(ACTION_TYPES, ACTION_CALLS) == set()
    assert len(ACTION_CALLS) == len(ACTION_TYPES)


def test_a_missing_or_extra_mapping_is_found() -> None:
    missing = {kind: call for kind, call in ACTION_CALLS.items() if kind is not P1Restart}
    assert mismatch(ACTION_TYPES, missing) == {"P1Restart"}
    extra = {**ACTION_CALLS, int: None}
    assert mismatch(ACTION_TYPES, extra) == {"int"}
