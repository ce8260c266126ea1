"""Reading docs/drift-combinations.md the way a reader does: the minimal breaking
environments a variant's row lists for a property (the tests compare commands' answers with
the page, never with a list written in a test)."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "drift-combinations.md"


def page_minimal(variant: str, prop: str) -> list[frozenset[str]]:
    """The environments before each trace link of the row "| prop | breaks minimally under
    ..." in the variant's section; [] for a row that breaks nowhere."""
    text = PAGE.read_text()
    section = text[text.index(f"\n## {variant}\n"):]
    row = next(line for line in section.splitlines() if line.startswith(f"| {prop} |"))
    if "breaks minimally under " not in row:
        return []
    chunks = row.split("breaks minimally under ", 1)[1].split("; ")
    return [frozenset(re.findall(r"\bD\d+\b", c.split(":", 1)[0])) for c in chunks
            if "trace](" in c]
