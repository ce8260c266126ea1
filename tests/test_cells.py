"""The checkers' shared cell vocabulary (`model_checks.cells`): one label rule, one way to
write an environment, one rule comparing a verdict with the expected matrix."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from model_checks.cells import (
    Agreement,
    agreement,
    cell_identifier,
    cell_label,
    environment_text,
)
from model_checks.environment_arg import ROUTER
from model_checks.matrix import Expectation
from model_checks.records import CHECKERS, EXPLORE, HYPOTHESIS, Z3_BMC, Checker, Verdict

ROOT = Path(__file__).resolve().parents[1]
SHARED = ("cell_label", "cell_identifier", "identifier", "environment_text", "env_text",
          "agreement")


def test_a_cell_is_labelled_one_way() -> None:
    assert cell_label("V1", ()) == "V1_none"
    assert cell_label("V1", ("D1", "D7")) == "V1_D1_D7"
    assert cell_label("V1", (ROUTER,)) == f"V1_{ROUTER}"
    assert cell_identifier("V1", (ROUTER,)) == "V1_D5_router"  # a class name
    assert cell_identifier("ghost-touch", ("D3",)) == "ghost_touch_D3"
    assert cell_identifier("V2", ("D7", "D8")).isidentifier()
    assert environment_text(()) == "none"
    assert environment_text(("D5", "D7")) == "D5+D7"


def restated(name: str, source: str) -> list[str]:
    """Functions of `source` named like one of the shared rules, as "name:line function"."""
    return [f"{name}:{node.lineno} {node.name}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef) and node.name in SHARED]


def test_no_checker_restates_the_label_rules() -> None:
    """The rules live in model_checks/cells.py alone: no other module defines a function of
    the same name (the explorer and Hypothesis each had their own `cell_label`)."""
    found = [line for path in sorted((ROOT / "model_checks").rglob("*.py"))
             if path != ROOT / "model_checks" / "cells.py"
             for line in restated(str(path.relative_to(ROOT)), path.read_text())]
    assert not found, f"restated cell vocabulary (use model_checks.cells): {found}"


def test_a_planted_label_rule_is_found() -> None:
    planted = ("def cell_label(variant, env):\n"
               "    return '_'.join([variant, *env]) if env else f'{variant}_none'\n")
    assert restated("explore/cells.py", planted) == ["explore/cells.py:1 cell_label"]
    assert restated("ok.py", "from model_checks.cells import cell_label\n") == []


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.record)
def test_a_counterexample_where_the_matrix_expects_a_hold_is_always_a_mismatch(
    checker: Checker,
) -> None:
    assert agreement(checker, Expectation.HOLDS, Verdict.COUNTEREXAMPLE) is Agreement.MISMATCH
    assert agreement(checker, Expectation.BREAKS, Verdict.COUNTEREXAMPLE) is Agreement.MATCH


def test_a_missed_break_is_a_mismatch_only_in_the_matrixs_own_instance() -> None:
    for verdict in (Verdict.HOLDS, Verdict.PROVED, Verdict.VACUOUS):
        assert agreement(HYPOTHESIS, Expectation.BREAKS, verdict) is Agreement.MISMATCH
        assert agreement(Z3_BMC, Expectation.BREAKS, verdict) is Agreement.MISMATCH
        assert agreement(EXPLORE, Expectation.BREAKS, verdict) is Agreement.UNSHOWN
        assert agreement(EXPLORE, Expectation.HOLDS, verdict) is Agreement.MATCH
    assert agreement(Z3_BMC, Expectation.BREAKS, Verdict.UNKNOWN) is Agreement.UNDECIDED
    assert agreement(Z3_BMC, Expectation.HOLDS, Verdict.UNKNOWN) is Agreement.UNDECIDED


def test_nothing_expected_is_not_judged_whatever_the_verdict() -> None:
    for verdict in Verdict:
        assert agreement(HYPOTHESIS, None, verdict) is Agreement.NOT_JUDGED
        assert agreement(HYPOTHESIS, Expectation.NOT_JUDGED, verdict) is Agreement.NOT_JUDGED
