"""Every relative link in docs/ and README.md resolves: the file exists, and an anchor
(`page.md#section`, `#section`) names a heading of that page (GitHub's slugs) or an explicit
`<a id>`/`<a name>`. External links (a scheme) are not followed."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"")
FENCE = re.compile(r"^\s*(```|~~~)")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed but
    hyphens and underscores, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


@cache
def anchors(path: Path) -> frozenset[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose(path.read_text()):
        found.update(EXPLICIT.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def broken(path: Path) -> list[str]:
    """The relative links of `path` whose file or anchor does not exist."""
    found = []
    for line in prose(path.read_text()):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                continue
            file, _, anchor = target.partition("#")
            where = (path.parent / unquote(file)).resolve() if file else path
            if not where.exists():
                found.append(f"{target}: no such file")
            elif anchor and where.suffix == ".md" and unquote(anchor).lower() not in anchors(
                    where):
                found.append(f"{target}: no heading '{anchor}' in {where.name}")
    return found


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken(page) == []


def test_a_broken_link_and_a_broken_anchor_are_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n\n## Step 2: `do` it\n")
    page.write_text("# Title\n\n[ok](other.md#step-2-do-it) [self](#title) "
                    "[gone](missing.md) [bad](other.md#step-3) [x](https://e.org/#z)\n"
                    "```\n[not a link](nowhere.md)\n```\n")
    assert broken(page) == ["missing.md: no such file",
                            "other.md#step-3: no heading 'step-3' in other.md"]
