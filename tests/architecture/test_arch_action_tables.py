"""Every consumer of the spec's actions keeps one table keyed by action class, covering
exactly `spec.ACTION_TYPES` (a new action class is a missing key, named here, not a branch
silently not taken)."""

from __future__ import annotations

import re
from collections.abc import Mapping

import pytest

from spec import ACTION_TYPES, Action, Drift
from spec.transitions import ClearBoth, P1Reset
from tests.architecture.action_tables import entry, uncovered


def consumer_tables() -> dict[str, Mapping[type[Action], object]]:
    from model_checks.explore.lru_judging.reduction import rules
    from model_checks.smt.encode import actions, relations

    del actions  # imported for its relation modules' registrations
    return {
        "smt.encode.relations.RELATIONS": relations.RELATIONS,
        "RULES in model_checks/explore/lru_judging/reduction/rules.py": rules.RULES,
    }


def test_arch_action_tables_cover_exactly_the_spec_actions() -> None:
    assert len(set(ACTION_TYPES)) == len(ACTION_TYPES)
    for name, table in consumer_tables().items():
        assert uncovered(table) == [], name


def test_arch_the_action_codes_are_derived_from_the_spec_classes() -> None:
    """The SMT action codes are derived: the classes of `ACTION_TYPES` in `code_order` (the
    branch order the records were produced with, any other class after it), a front end's
    (engine's) action once per front end (engine), each enabled by its class's `requires`."""
    from model_checks.smt.encode.actions import ACTIONS, BRANCH_ORDER, code_order
    from model_checks.smt.encode.relations import Per

    assert len(set(BRANCH_ORDER)) == len(BRANCH_ORDER)
    assert set(BRANCH_ORDER) <= set(ACTION_TYPES)
    order = code_order(ACTION_TYPES)
    assert sorted(c.__name__ for c in order) == sorted(c.__name__ for c in ACTION_TYPES)
    assert tuple(dict.fromkeys(e.spec_class for e in ACTIONS)) == order
    for cls in ACTION_TYPES:
        group = [e for e in ACTIONS if e.spec_class is cls]
        own = () if cls.requires is None else (cls.requires,)
        assert [e.requires for e in group] == (
            [own] if group[0].per is Per.STEP else [own, (*own, Drift.D5)]), cls.__name__


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


def test_arch_a_class_without_reduction_rules_names_the_class_and_the_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Known-bad input: a planted action class the explorer's one table (`RULES`) lacks is
    named, with the file to edit, by the coverage check and when the explorer builds its
    universe of actions."""
    from model_checks.explore.lru_judging.reduction import rules
    from spec import V2, Config
    from tests.architecture import action_tables

    class P1Nap(Action):
        """A planted action class."""

    monkeypatch.setattr(action_tables, "ACTION_TYPES", (*ACTION_TYPES, P1Nap))
    monkeypatch.setattr(rules, "ACTION_TYPES", (*ACTION_TYPES, P1Nap))
    tables = consumer_tables()
    name = "RULES in model_checks/explore/lru_judging/reduction/rules.py"
    assert uncovered(tables[name]) == ["P1Nap: no entry"]
    with pytest.raises(KeyError, match=re.escape(
            "P1Nap has no entry in RULES: add its instances, footprint, groups and enabling "
            "set to model_checks/explore/lru_judging/reduction/rules.py")):
        rules.universe(Config(variant=V2))
