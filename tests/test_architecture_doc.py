"""docs/architecture.md stays true to the tree: every file or folder it names exists, and each
"where a change goes" list has as many files as its heading says, none of them a test. A page
naming a missing file, or a list whose count is wrong, is caught."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
ROOTS = ("spec/", "model_checks/", "reference/", "tests/", "benchmarks/", "docs/", "scripts/")
_CODE = re.compile(r"`([\w./-]+)`")
_HEADING = re.compile(r"^### (.*): (\d+) non-test files today", re.M)
_BULLET = re.compile(r"^- `([\w./-]+)`")


def _is_path(token: str) -> bool:
    return token.endswith((".py", ".md", "/"))


def named_paths(text: str) -> list[tuple[int, str]]:
    """(line, path from the repository root) of every file or folder the page names. In the
    folder table a bare name is relative to its row's folder (the row's first cell)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        tokens = [t for t in _CODE.findall(line) if _is_path(t)]
        row_folder = ""
        if line.startswith("| `") and tokens and tokens[0].endswith("/"):
            row_folder, tokens = tokens[0], tokens[1:]
            found.append((number, row_folder))
        for token in tokens:
            rooted = token.startswith(ROOTS)
            found.append((number, token if rooted or not row_folder else row_folder + token))
    return found


def recipes(text: str) -> dict[str, tuple[int, int, list[str]]]:
    """Per "where a change goes" heading (its title): its line, the count it states and the
    files its list names."""
    lines = text.splitlines()
    found = {}
    for index, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading is None:
            continue
        listed = []
        for following in lines[index + 1:]:
            if following.startswith("#"):
                break
            bullet = _BULLET.match(following)
            if bullet:
                listed.append(bullet[1])
        found[heading[1]] = (index + 1, int(heading[2]), listed)
    return found


LIMITS = {"A new variant": 4, "A new drift source of the configuration kind": 6,
          "A new drift source of the event kind": 6}
"""The most non-test files a change of these kinds may touch."""


def problems(text: str, root: Path) -> list[str]:
    """Why the page does not match the tree under `root` (empty: it does)."""
    found = [f"line {n}: `{path}` does not exist" for n, path in named_paths(text)
             if not (root / path).exists()]
    for title, (line, count, listed) in recipes(text).items():
        if len(listed) != count or len(set(listed)) != len(listed):
            found.append(f"line {line}: says {count} files, lists {len(listed)} "
                         f"({len(set(listed))} distinct)")
        if count > LIMITS.get(title, count):
            found.append(f"line {line}: {title.lower()} touches {count} files, at most "
                         f"{LIMITS[title]} allowed")
        found.extend(f"line {line}: `{path}` is a test" for path in listed
                     if path.startswith("tests/"))
    return found


def test_every_path_on_the_architecture_page_exists_and_every_count_matches() -> None:
    text = PAGE.read_text()
    assert len(named_paths(text)) > 40
    assert len(_HEADING.findall(text)) == 5  # variant, drift source (two kinds), property, checker
    assert problems(text, ROOT) == []


def test_a_missing_path_or_a_wrong_count_is_caught() -> None:
    text = PAGE.read_text()
    missing = text.replace("`spec/drift.py`", "`spec/drifts.py`", 1)
    assert any("`spec/drifts.py` does not exist" in p for p in problems(missing, ROOT))
    heading = next(line for line in text.splitlines() if _HEADING.match(line))
    match = _HEADING.match(heading)
    assert match is not None
    count = int(match[2])
    wrong = text.replace(heading, heading.replace(f": {count} ", f": {count - 1} "), 1)
    assert any(f"says {count - 1} files, lists {count}" in p for p in problems(wrong, ROOT))
    over = text.replace("### A new variant: 4 ", "### A new variant: 5 ", 1)
    assert over != text
    assert any("a new variant touches 5 files, at most 4" in p for p in problems(over, ROOT))
    table = text.replace("`drift.py` (the drift", "`drifts.py` (the drift", 1)
    assert any("`spec/drifts.py` does not exist" in p for p in problems(table, ROOT))
