"""docs/conformance.md's table of deployments per variant agrees with the expected matrix.

The table ("S1-S3 hold in a deployment without") is hand-written. It must name every variant
of `spec.VARIANTS` once; the sources it excludes must meet every environment of the expected
matrix (single sources and pairs) where the variant breaks S1, S2 or S3; and its example
`--environment` must be every other source. A new variant with no row fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.matrix import Expectation
from spec import DRIFT_IDS, VARIANT_NAMES, Drift
from spec.drift import ROUTER

PAGE = Path(__file__).resolve().parents[1] / "docs" / "conformance.md"
HEADER = "| variant | S1-S3 hold in a deployment without | e.g. `--environment` |"
SAFETY = ("S1", "S2", "S3")


def breaking() -> dict[str, list[frozenset[str]]]:
    """Per variant, the expected matrix's environments where S1, S2 or S3 breaks (drift ids:
    the router's environment is D5's)."""
    found: dict[str, list[frozenset[str]]] = {v: [] for v in VARIANT_NAMES}
    for cell in ALL_EXPECTED:
        if any(cell.expectations[p] is Expectation.BREAKS for p in SAFETY):
            found[cell.variant].append(frozenset(
                Drift.D5.value if d == ROUTER else d for d in cell.environment))
    return found


def _rows(text: str) -> list[list[str]]:
    start = text.index(HEADER)
    lines = text[start:].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def _excluded(cell: str) -> frozenset[str]:
    if cell.startswith("nothing"):
        return frozenset()
    if cell.startswith("every source but"):
        kept = set(re.findall(r"D\d+", cell.split(":")[0]))
        return frozenset(DRIFT_IDS) - kept
    return frozenset(re.findall(r"D\d+", cell.split("(")[0]))


def table_problems(text: str, breaks: dict[str, list[frozenset[str]]]) -> list[str]:
    """What is wrong with the page's table, given each variant's breaking environments."""
    problems, named = [], []
    for variants, without, example in _rows(text):
        names = [v.strip() for v in variants.split(",")]
        named.extend(names)
        excluded = _excluded(without)
        rest = frozenset(re.findall(r"D\d+", example))
        if rest != frozenset(DRIFT_IDS) - excluded:
            problems.append(f"{variants}: the example is not every source but {sorted(excluded)}")
        for name in names:
            problems.extend(f"{name} breaks S1-S3 under {'+'.join(sorted(env))}, which the "
                            "table's deployment keeps" for env in breaks.get(name, [])
                            if not env & excluded)
    for name in breaks:
        if named.count(name) != 1:
            problems.append(f"the table names {name} {named.count(name)} times, expected once")
    problems.extend(f"the table names {n}, not a variant" for n in named if n not in breaks)
    return problems


def test_the_table_agrees_with_the_matrix() -> None:
    assert table_problems(PAGE.read_text(), breaking()) == []


def test_a_table_missing_a_variant_or_a_source_fails() -> None:
    """Known-bad: a variant with no row, a row that keeps a breaking source."""
    text = PAGE.read_text()
    more = {**breaking(), "V9": []}
    assert "the table names V9 0 times, expected once" in table_problems(text, more)
    kept = text.replace("| V1, V2 | D6, D7, D8 (", "| V1, V2 | D6, D8 (").replace(
        "`D1+D2+D3+D4+D5+D9+D10+D11` |", "`D1+D2+D3+D4+D5+D7+D9+D10+D11` |", 1)
    assert kept != text
    found = table_problems(kept, breaking())
    assert any(p.startswith("V2 breaks S1-S3 under D1+D7") for p in found), found


@pytest.mark.parametrize("cell, expected", [
    ("nothing: every drift source", set()),
    ("D6, D7, D8 (a gap)", {"D6", "D7", "D8"}),
    ("every source but D11: its engine", set(DRIFT_IDS) - {"D11"}),
])
def test_the_table_cells_read(cell: str, expected: set[str]) -> None:
    assert _excluded(cell) == expected
