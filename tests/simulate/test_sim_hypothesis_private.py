"""Hypothesis's private API is used in one module (`model_checks/simulate/hypothesis_private.py`)
and nowhere else; on a release other than the tested one this test fails with a message that
says what to re-check, and a release lacking a name fails at import, naming it."""

from __future__ import annotations

import re
from pathlib import Path

import hypothesis
import pytest

from model_checks.simulate import hypothesis_private
from model_checks.simulate.hypothesis_private import (
    REQUIRED,
    TESTED_RELEASE,
    UnsupportedHypothesis,
    check,
    missing,
)

ROOT = Path(__file__).resolve().parents[2]
PRIVATE = re.compile(r"hypothesis\.internal|\._setup_for\b|\._rule_is_enabled\b"
                     r"|\._feature_flags\b|\._rules_strategy\b|\bMAX_SHRINK")


def test_the_running_release_is_the_tested_one() -> None:
    assert hypothesis.__version__ == TESTED_RELEASE, (
        f"Hypothesis {hypothesis.__version__} is not the tested {TESTED_RELEASE}: re-read the "
        f"private names of model_checks/simulate/hypothesis_private.py (REQUIRED) in the new "
        f"release, then move TESTED_RELEASE and the pin in requirements-ci.txt together")


def test_the_tested_release_is_the_pinned_one() -> None:
    pins = (ROOT / "requirements-ci.txt").read_text()
    assert f"hypothesis=={TESTED_RELEASE}" in pins.split()


def test_every_required_name_is_present() -> None:
    assert missing() == []
    check()


@pytest.mark.parametrize("planted", [
    ("hypothesis.stateful", "RuleStrategy._gone"),
    ("hypothesis.stateful", "RuleStrategy.self._gone"),
    ("hypothesis.internal.conjecture.engine", "GONE"),
])
def test_a_missing_name_fails_clearly(planted: tuple[str, str]) -> None:
    required = (*REQUIRED, planted)
    assert missing(required) == [f"{planted[0]}:{planted[1]}"]
    with pytest.raises(UnsupportedHypothesis) as raised:
        check(required)
    assert f"{planted[0]}:{planted[1]}" in str(raised.value)
    assert f"hypothesis=={TESTED_RELEASE}" in str(raised.value)


def test_no_other_module_uses_the_private_api() -> None:
    own = Path(hypothesis_private.__file__).resolve()
    users = [
        str(path.relative_to(ROOT))
        for folder in ("spec", "reference", "model_checks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path.resolve() != own and PRIVATE.search(path.read_text())
    ]
    assert users == []


def test_the_scan_sees_a_planted_use() -> None:
    assert PRIVATE.search("from hypothesis.internal.conjecture import engine")
    assert PRIVATE.search("self._rules_strategy = x")
    assert not PRIVATE.search("from hypothesis.stateful import rule")
