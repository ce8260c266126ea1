"""The generated per-property tables state each instance once, in a legend under the table,
and every instance a cell names is in that table's legend."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from model_checks.docs.results import short
from model_checks.records import Verdict, VerdictRecord

INVARIANTS = Path(__file__).resolve().parent.parent / "docs" / "invariants.md"


def _tables() -> list[tuple[list[str], list[str]]]:
    """(table rows, legend lines) of every table with a legend."""
    found: list[tuple[list[str], list[str]]] = []
    rows: list[str] = []
    legend: list[str] = []
    for line in [*INVARIANTS.read_text().splitlines(), ""]:
        if line.startswith("|"):
            if legend:
                found.append((rows, legend))
                rows, legend = [], []
            rows.append(line)
        elif line.startswith("- instance "):
            legend.append(line)
        elif rows and legend and line.strip() and not line.startswith("The instances"):
            found.append((rows, legend))
            rows, legend = [], []
        elif rows and not legend and line.strip() and not line.startswith("The instances"):
            rows = []
    if rows and legend:
        found.append((rows, legend))
    return found


def test_every_table_states_its_instances_once_in_its_legend() -> None:
    tables = _tables()
    assert tables, "no table with an instance legend in docs/invariants.md"
    for rows, legend in tables:
        named = {int(n) for row in rows for n in re.findall(r"\(instance (\d+)\)", row)}
        listed = [int(re.match(r"- instance (\d+):", line).group(1))  # type: ignore[union-attr]
                  for line in legend]
        assert named == set(listed) and len(listed) == len(set(listed))
        assert not any("budget 1..4" in row for row in rows)
        texts = [line.split(":", 1)[1] for line in legend]
        assert len(texts) == len(set(texts)), "an instance stated twice in one legend"


def test_a_cell_names_a_known_instance_by_its_number_and_a_new_one_gets_the_next() -> None:
    record = VerdictRecord(checker="z3-induction", variant="V3", environment=(), property="S1",
                           verdict=Verdict.PROVED, bound=None, bound_unit="depth",
                           detail="", instance="3 identities", seconds=0.0)
    instances: dict[str, str] = {}
    assert short(record, None, instances).endswith("(instance 1)")
    assert short(record, None, instances).endswith("(instance 1)")
    other = replace(record, instance="2 identities")
    assert short(other, None, instances).endswith("(instance 2)")
    assert "3 identities" in short(record, None)
