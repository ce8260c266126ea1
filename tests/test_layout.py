"""The layout's limits, read from the source with `ast`: no class in spec/, reference/ or
model_checks/ is longer than `MAX_CLASS_LINES`, so a class doing several jobs is split by
concern before it grows. Each check is also run on a planted bad source, to show it can fail.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("spec", "reference", "model_checks")
MAX_CLASS_LINES = 250


def _sources() -> Iterator[tuple[str, str]]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield str(path.relative_to(ROOT)), path.read_text()


def long_classes(name: str, source: str, limit: int = MAX_CLASS_LINES) -> list[str]:
    """Every class (nested ones too) of `source` longer than `limit` lines, decorators
    excluded, as "file:line Class (n lines)"."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.ClassDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append(f"{name}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_class_is_longer_than_the_limit() -> None:
    found = [line for name, source in _sources() for line in long_classes(name, source)]
    assert not found, f"classes over {MAX_CLASS_LINES} lines (split them by concern): {found}"


def _class(name: str, lines: int) -> str:
    """Source of a class `lines` long."""
    return f"class {name}:\n" + "".join(f"    x{i} = {i}\n" for i in range(lines - 1))


def test_a_planted_long_class_is_found() -> None:
    planted = _class("Short", 2) + "\n\n" + _class("Long", MAX_CLASS_LINES + 1)
    assert long_classes("planted.py", planted) == [
        f"planted.py:5 Long ({MAX_CLASS_LINES + 1} lines)"
    ]
    assert long_classes("edge.py", _class("Edge", MAX_CLASS_LINES)) == []

