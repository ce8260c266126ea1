"""A witness is "shortest" only on the instance that found it: the generated pages say the
shortest found, and on which rung or instance, never a plain "its shortest" that a shorter
run in a larger instance would contradict."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.answers.summary import LEGEND
from model_checks.docs.answer_tables import INTRO

DOCS = Path(__file__).resolve().parents[1] / "docs"
UNQUALIFIED = ("its shortest replayed", "names its shortest", "a shortest witness of N steps",
               "shortest witness of N steps inside")


@pytest.mark.parametrize("page", ["drift-combinations.md", "invariants.md", "verdicts.md",
                                  "glossary.md", "checkers.md", "explore.md"])
def test_no_page_calls_a_witness_shortest_without_its_instance(page: str) -> None:
    text = (DOCS / page).read_text()
    assert not [phrase for phrase in UNQUALIFIED if phrase in text]


def test_the_generators_qualify_shortest_by_the_instance() -> None:
    assert "shortest on the instance that found it" in INTRO
    assert any("shortest witness C found on its instance" in line for line in LEGEND)
    page = (DOCS / "drift-combinations.md").read_text()
    assert "shortest on that instance, a larger one may hold a shorter run" in page
