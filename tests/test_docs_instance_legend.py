"""The generated pages that show answers state each instance once, in one legend shared by
the whole page (its last section), and every instance a cell names is in that legend."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model_checks.answers.render import Legend

DOCS = Path(__file__).resolve().parent.parent / "docs"
LEGEND_HEADING = "## The instances this page names"


@pytest.mark.parametrize("page", ["invariants.md", "verdicts/V0.md", "verdicts/V1.md",
                                  "verdicts/V3.md"])
def test_every_page_states_its_instances_once_in_its_legend(page: str) -> None:
    text = (DOCS / page).read_text()
    body, found, legend = text.partition(LEGEND_HEADING)
    assert found, f"{page} has no instance legend"
    assert LEGEND_HEADING not in legend and "\n## " not in legend, "the legend is not last"
    named = {int(n) for n in re.findall(r"\(instance (\d+)\)", body)}
    listed = [int(n) for n in re.findall(r"^- instance (\d+):", legend, re.M)]
    assert named and named == set(listed) and len(listed) == len(set(listed))
    texts = re.findall(r"^- instance \d+: (.*)$", legend, re.M)
    assert len(texts) == len(set(texts)), "an instance stated twice in one legend"


def test_a_cell_names_a_known_instance_by_its_number_and_a_new_one_gets_the_next() -> None:
    legend = Legend()
    assert legend.name("3 identities") == "instance 1"
    assert legend.name("3 identities") == "instance 1"
    assert legend.name("2 identities") == "instance 2"
    assert legend.lines()[-2:] == ["- instance 1: 3 identities", "- instance 2: 2 identities"]
    assert Legend().lines() == []
