"""The repository stands alone: no file outside docs/results/ (whose JSON keeps the words of
the runs that made it) cites a document the repository does not ship, the project brief or
its style guide, which a reader of the repository does not have."""

from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNSHIPPED = re.compile(r"\bBRI" r"EF\b|\bSTY" r"LE\.md\b")  # spelled apart: no citation here
SKIPPED = ({".git", ".venv", "build", "results", "__pycache__", ".mypy_cache", ".ruff_cache",
            ".pytest_cache"})
SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".sh", ".yml", ".yaml", ".json", ""}


def _files() -> list[Path]:
    found = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIPPED and not d.endswith(".egg-info")]
        found += [Path(folder) / n for n in names
                  if Path(n).suffix in SUFFIXES]
    return found


def citations(text: str) -> list[int]:
    """The line numbers that cite an unshipped document."""
    return [n for n, line in enumerate(text.splitlines(), 1) if UNSHIPPED.search(line)]


def test_no_product_file_cites_a_document_the_repository_does_not_ship() -> None:
    files = _files()
    assert len(files) > 200  # the walk reached the tree
    found = {str(p.relative_to(ROOT)): citations(p.read_text(errors="replace"))
             for p in files}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_a_planted_citation_is_caught() -> None:
    brief, style = "BRI" + "EF", "STY" + "LE.md"  # spelled apart: this file cites neither
    planted = f"ok\nsee {brief} section 3\n({style}: traps)\n{brief}LY fine\n"
    assert citations(planted) == [2, 3]
