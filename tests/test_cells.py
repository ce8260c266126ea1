"""The checkers' shared cell vocabulary (`model_checks.kernel.cells`): one label rule, one way to
write an environment, one rule comparing a verdict with the expected matrix."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from model_checks.kernel.cells import (
    Agreement,
    agreement,
    cell_identifier,
    cell_label,
    cell_matches,
    older_cell,
)
from model_checks.kernel.environment_arg import MATRIX_SOURCES
from model_checks.kernel.matrix import Expectation
from model_checks.kernel.verdict_records import (
    CHECKERS,
    EXPLORE,
    HYPOTHESIS,
    Z3_BMC,
    Checker,
    Verdict,
)
from spec import VARIANT_NAMES, property_ids
from spec.drift import ROUTER, BadEnvironment, Environment


class BadCell(ValueError):
    """A malformed cell spelling; the message is one line naming the expected form."""


_FORM = "<variant>_<environment>[_<property>], e.g. V2_D2+D7, V1_none or V1_D5-router_H1"


def parse_cell(text: str) -> tuple[str, tuple[str, ...], str | None]:
    """(variant, environment, property or None) of a cell spelled `cell_label`'s way, in any
    case and with the environment's ids in any order. Raises `BadCell` otherwise, naming the
    one spelling where `text` is an older one (`older_cell`)."""
    parts = text.strip().split("_")
    variants = {v.upper(): v for v in VARIANT_NAMES}
    reason = f"variants {', '.join(VARIANT_NAMES)}"
    if len(parts) in (2, 3) and parts[0].upper() in variants:
        prop = {p.upper(): p for p in property_ids()}.get(parts[-1].upper())
        try:
            drift = Environment.parse(parts[1], MATRIX_SOURCES).sources
        except BadEnvironment as error:
            reason = str(error)
        else:
            if len(parts) == 2 or prop is not None:
                return variants[parts[0].upper()], drift, prop
            reason = f"{parts[2]!r} is no property"
    current = older_cell(text, VARIANT_NAMES, property_ids())
    if current is not None:
        raise BadCell(f"cell: got {text!r}, an older spelling: write {current}")
    raise BadCell(f"cell: got {text!r}, expected {_FORM} ({reason})")


ROOT = Path(__file__).resolve().parents[1]
SHARED = ("cell_label", "cell_identifier", "identifier", "env_text",
          "agreement", "older_cell", "cell_matches")


def test_a_cell_is_labelled_one_way() -> None:
    assert cell_label("V1", ()) == "V1_none"
    assert cell_label("V1", ("D1", "D7")) == "V1_D1+D7"
    assert cell_label("V1", ("D1", "D7"), "S1") == "V1_D1+D7_S1"
    assert cell_label("V1", (ROUTER,)) == f"V1_{ROUTER}" == "V1_D5-router"
    assert cell_identifier("V1", (ROUTER,)) == "V1_D5_router"  # a class name
    assert cell_identifier("V1", ("D1", "D7")) == "V1_D1_D7"
    assert cell_identifier("ghost-touch", ("D3",)) == "ghost_touch_D3"
    assert cell_identifier("V2", ("D7", "D8")).isidentifier()
    assert Environment.of(()).text == "none"
    assert Environment.of(("D7", "D5")).text == "D5+D7"


def restated(name: str, source: str) -> list[str]:
    """Functions of `source` named like one of the shared rules, as "name:line function"."""
    return [f"{name}:{node.lineno} {node.name}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.FunctionDef) and node.name in SHARED]


def test_no_checker_restates_the_label_rules() -> None:
    """The rules live in model_checks/kernel/cells.py alone: no other module defines a function of
    the same name (the explorer and Hypothesis each had their own `cell_label`)."""
    found = [line for path in sorted((ROOT / "model_checks").rglob("*.py"))
             if path != ROOT / "model_checks" / "kernel" / "cells.py"
             for line in restated(str(path.relative_to(ROOT)), path.read_text())]
    assert not found, f"restated cell vocabulary (use model_checks.kernel.cells): {found}"


def test_a_planted_label_rule_is_found() -> None:
    planted = ("def cell_label(variant, env):\n"
               "    return '_'.join([variant, *env]) if env else f'{variant}_none'\n")
    assert restated("explore/cell_tasks.py", planted) == ["explore/cell_tasks.py:1 cell_label"]
    assert restated("ok.py", "from model_checks.kernel.cells import cell_label\n") == []


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


SPELLINGS = [
    ("V2_D2+D7", ("V2", ("D2", "D7"), None)),  # the one spelling
    ("v2_d7+d2_s1", ("V2", ("D2", "D7"), "S1")),  # any case, any order
    ("V1_D5-router_H1", ("V1", (ROUTER,), "H1")),
    ("V1_d5-ROUTER", ("V1", (ROUTER,), None)),
    ("V3_none", ("V3", (), None)),
    ("V3_none_L4", ("V3", (), "L4")),
]


@pytest.mark.parametrize(("text", "cell"), SPELLINGS, ids=[a for a, _ in SPELLINGS])
def test_the_one_spelling_of_a_cell_reads_back(
    text: str, cell: tuple[str, tuple[str, ...], str | None],
) -> None:
    assert parse_cell(text) == cell
    variant, env, prop = cell
    assert parse_cell(cell_label(variant, env, prop)) == cell  # the one spelling round-trips


OLDER = [
    ("V2_D2_D7", "V2_D2+D7"),  # the old job label and class name
    ("V2_D2_D7_S1", "V2_D2+D7_S1"),
    ("V2-D2+D7-S1", "V2_D2+D7_S1"),  # parts joined by -
    ("V2 D2+D7 S1", "V2_D2+D7_S1"),  # prose
    ("V1_D5_router", "V1_D5-router"),  # the router's class-name form
    ("V1_ROUTER", "V1_D5-router"),  # the constant's name
    ("v3-none-l4", "V3_none_L4"),
]


@pytest.mark.parametrize(("text", "current"), OLDER, ids=[a for a, _ in OLDER])
def test_an_older_cell_spelling_is_an_error_naming_the_one(text: str, current: str) -> None:
    assert older_cell(text, VARIANT_NAMES, property_ids()) == current
    with pytest.raises(BadCell) as raised:
        parse_cell(text)
    assert str(raised.value) == f"cell: got {text!r}, an older spelling: write {current}"
    assert parse_cell(current)  # what it names is read


@pytest.mark.parametrize("text", ["X9_D1", "V2", "V2_D99", "V2_none_D1", "V2_S1", "",
                                  "V2_D1+ROUTER"])
def test_a_bad_cell_spelling_is_a_clear_error(text: str) -> None:
    assert older_cell(text, VARIANT_NAMES, property_ids()) is None
    with pytest.raises(BadCell, match=r"^cell: got .*, expected <variant>_<environment>"):
        parse_cell(text)


@pytest.mark.parametrize(("text", "env"), [
    ("D2+D7", ("D2", "D7")), ("d7+d2", ("D2", "D7")), ("none", ()), ("NONE", ()),
    ("D5-router", (ROUTER,)), ("d5-ROUTER", (ROUTER,)),
])
def test_the_one_spelling_of_an_environment_reads_back(
    text: str, env: tuple[str, ...],
) -> None:
    assert Environment.parse(text, MATRIX_SOURCES).sources == env
    assert Environment.parse(Environment.of(env).text, MATRIX_SOURCES).sources == env


@pytest.mark.parametrize(("text", "current"), [
    ("D2_D7", "D2+D7"), ("d7_d2", "D2+D7"), ("D5_router", ROUTER), ("ROUTER", ROUTER),
    ("router", ROUTER),
])
def test_an_older_environment_spelling_is_an_error_naming_the_one(
    text: str, current: str,
) -> None:
    with pytest.raises(BadEnvironment) as raised:
        Environment.parse(text, MATRIX_SOURCES)
    assert str(raised.value) == f"--environment: got {text!r}, an older spelling: write {current}"


def test_a_bad_environment_is_a_clear_error_and_the_router_needs_its_command() -> None:
    for text in ("D12", "D1+X", "D5-router+D7"):
        with pytest.raises(BadEnvironment, match=r"^--environment: got "):
            Environment.parse(text, MATRIX_SOURCES)
    with pytest.raises(BadEnvironment):
        Environment.parse("ROUTER")  # a command without the router configuration
    with pytest.raises(BadEnvironment):
        Environment.parse("D5-router")


def test_a_cell_filter_selects_by_the_one_spelling() -> None:
    from model_checks.kernel.cell_sets import ALL_EXPECTED

    def chosen(text: str) -> list[str]:
        return [cell_label(c.variant, c.environment) for c in ALL_EXPECTED
                if cell_matches(text, c.variant, c.environment)]

    assert chosen("V2_D1+D7") == chosen("v2_d1+d7") == ["V2_D1+D7"]
    assert chosen("V2_D1_D7") == chosen("V1_D5_router") == []  # older spellings select nothing
    assert chosen("V1_D5-router") == ["V1_D5-router"]
    assert len(chosen("V0_")) == len([c for c in ALL_EXPECTED if c.variant == "V0"])
    assert chosen("") == [cell_label(c.variant, c.environment) for c in ALL_EXPECTED]
    assert chosen("V2_D12") == []
