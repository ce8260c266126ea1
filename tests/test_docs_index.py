"""docs/README.md indexes every page of docs/: a page missing from it, or a link in it to a
page that does not exist, fails."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
LINK = re.compile(r"\]\(([^)#]+)\)")


def linked(text: str) -> set[str]:
    """The local pages a markdown text links to, as paths relative to docs/."""
    return {m for m in LINK.findall(text) if not m.startswith(("http:", "https:", "../"))}


def test_every_page_is_in_the_index() -> None:
    index = linked((DOCS / "README.md").read_text())
    pages = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    missing = pages - index
    assert not missing, f"docs/README.md does not list: {sorted(missing)}"


def test_every_index_link_exists() -> None:
    index = linked((DOCS / "README.md").read_text())
    broken = sorted(p for p in index if not (DOCS / p).exists())
    assert not broken, f"docs/README.md links to missing pages: {broken}"


def test_a_missing_page_is_caught() -> None:
    text = "| [protocol.md](protocol.md) | the protocol |"
    assert "glossary.md" not in linked(text)
    assert linked(text) == {"protocol.md"}
