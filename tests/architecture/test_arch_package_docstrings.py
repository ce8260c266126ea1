"""Every package under model_checks/ names each of its modules and subpackages in its docstring.

A package's `__init__.py` docstring is the map of the package: where each concern lives. A
module added or renamed without the map being updated leaves it stale, and the reader who
trusts it looks for a module that is gone or misses the one that holds what they need. So
each module (`*.py` other than `__init__.py`; `__main__.py` may go unnamed) and each
subpackage (a directory with an `__init__.py`) of every package under model_checks/, itself
included, is named in backticks in its package's docstring: `name`, `name/` or
`name.something` (a definition in it) count.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "model_checks"
UNNAMED = frozenset({"__init__", "__main__"})
"""Modules a package docstring need not name."""

_QUOTED = re.compile(r"`([^`]+)`")
_HEAD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?=$|[./])")


def named_in(docstring: str) -> set[str]:
    """The names `docstring` quotes in backticks as `name`, `name/` or `name.something`."""
    return {head.group(0) for quoted in _QUOTED.findall(docstring)
            if (head := _HEAD.match(quoted.strip()))}


def missing_names(docstring: str, members: set[str]) -> list[str]:
    """The members (module and subpackage names) that `docstring` does not name."""
    return sorted(members - named_in(docstring))


def packages(root: Path) -> list[Path]:
    """`root` and every package below it (a directory with an `__init__.py`)."""
    return sorted(init.parent for init in root.rglob("__init__.py"))


def members(package: Path) -> set[str]:
    """The modules and subpackages of `package` its docstring should name."""
    modules = {path.stem for path in package.glob("*.py") if path.stem not in UNNAMED}
    subpackages = {path.parent.name for path in package.glob("*/__init__.py")}
    return modules | subpackages


def test_arch_missing_names_planted() -> None:
    docstring = """A package.

    - `graph` builds the graph, judged by `judge.judge` over the search of `reduction/`.
    """
    assert missing_names(docstring, {"graph", "judge", "reduction"}) == []
    assert missing_names(docstring, {"graph", "judge", "reduction", "wire"}) == ["wire"]
    assert missing_names("`graphs`, `my_graph`, graph", {"graph"}) == ["graph"]
    assert missing_names("`python -m\n model_checks` graph `wire`", {"graph"}) == ["graph"]
    assert missing_names(docstring + "`wire` carries states.", {"graph", "wire"}) == []


def test_arch_every_package_docstring_names_its_members() -> None:
    assert len(packages(PACKAGE)) > 1
    stale = []
    for package in packages(PACKAGE):
        docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text())) or ""
        missing = missing_names(docstring, members(package))
        if missing:
            stale.append(f"{package.relative_to(ROOT)}/__init__.py: {', '.join(missing)}")
    assert not stale, "package docstrings that do not name these members:\n" + "\n".join(stale)
