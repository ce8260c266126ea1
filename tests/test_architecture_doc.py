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
_HEADING = re.compile(r"^### .*: (\d+) non-test files today", re.M)
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


def problems(text: str, root: Path) -> list[str]:
    """Why the page does not match the tree under `root` (empty: it does)."""
    found = [f"line {n}: `{path}` does not exist" for n, path in named_paths(text)
             if not (root / path).exists()]
    lines = text.splitlines()
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
        if len(listed) != int(heading[1]) or len(set(listed)) != len(listed):
            found.append(f"line {index + 1}: says {heading[1]} files, lists {len(listed)} "
                         f"({len(set(listed))} distinct)")
        found.extend(f"line {index + 1}: `{path}` is a test" for path in listed
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
    count = int(match[1])
    wrong = text.replace(heading, heading.replace(f": {count} ", f": {count - 1} "), 1)
    assert any(f"says {count - 1} files, lists {count}" in p for p in problems(wrong, ROOT))
    table = text.replace("`drift.py` (the drift", "`drifts.py` (the drift", 1)
    assert any("`spec/drifts.py` does not exist" in p for p in problems(table, ROOT))
