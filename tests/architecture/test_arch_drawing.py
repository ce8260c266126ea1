"""docs/architecture.md draws the packages that exist, and nothing else.

A *package* is a folder of Python modules inside a top-level package of the project. A
top-level package is a top-level folder holding `__init__.py` (spec/, reference/,
model_checks/: the packages pyproject.toml ships); under it, every folder holding a `.py`
file is a package, whether it has `__init__.py` (`model_checks/smt/prove/`) or is a namespace
package (`spec/properties/`), which setuptools ships too. A folder is written as its path from
the repository root, ending in `/`.

The rule, checked on the table "What each folder owns" and on the drawing under "The layers":

1. Every package is covered: it is a row of the table (its first cell, as in
   "| `model_checks/conform/` | ..."), or the row of its nearest ancestor package names it as
   a folder, by a code span ending in `/` that, read relative to the row's folder as the page's
   other paths are, is the package's path (`encode/` in the `model_checks/smt/` row). A module
   inside a package (`reduction/rules.py`) does not name the package; a package whose nearest
   ancestor package has no row has a row of its own.
2. Every folder the table names, as a row or as a code span ending in `/` inside a row, exists:
   inside a top-level package it is a package; elsewhere (`tests/`, `benchmarks/`) it is a
   folder. No folder has two rows.
3. The drawing (the fenced block under "## The layers") draws a top-level folder as a line
   starting with its name and `/`: every folder drawn exists, and every top-level package is
   drawn.

Each check is a pure function of the page's text and the tree (its packages and folders), so
each is also run on a planted page and tree, to show it can fail.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.test_architecture_doc import PAGE, ROOT, ROOTS

SKIPPED = {"build", "__pycache__"}
"""Folders the tree leaves out (besides hidden ones): build output and bytecode."""

_CODE = re.compile(r"`([\w./-]+)`")
_ROW = re.compile(r"^\| `([\w./-]+/)`")
_DRAWN = re.compile(r"^([\w.-]+/)", re.M)


@dataclass(frozen=True)
class Tree:
    """The folders of a checkout, each written as its path from the root ending in `/`."""

    packages: frozenset[str]
    folders: frozenset[str]
    """Every folder, packages included."""

    def top_packages(self) -> set[str]:
        """The packages at the root (`spec/`)."""
        return {p for p in self.packages if p.count("/") == 1}


def tree_on_disk(root: Path) -> Tree:
    """The tree under `root`, hidden folders and `SKIPPED` left out."""
    tops = {d.name for d in root.iterdir() if (d / "__init__.py").is_file()}
    packages, folders = set(), set()
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED
                   and not d.endswith(".egg-info")]
        relative = Path(folder).relative_to(root).as_posix()
        if relative == ".":
            continue
        folders.add(relative + "/")
        if relative.split("/")[0] in tops and any(n.endswith(".py") for n in names):
            packages.add(relative + "/")
    return Tree(frozenset(packages), frozenset(folders))


def _section(text: str, heading: str) -> str:
    """The text under the `## heading` line, up to the next `## ` heading."""
    lines = text.splitlines()
    start = lines.index(f"## {heading}") if f"## {heading}" in lines else len(lines)
    body = []
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        body.append(line)
    return "\n".join(body)


def rows(text: str) -> list[tuple[int, str, list[str]]]:
    """(line, folder, the folders it names) for every row of the table "What each folder
    owns": the folder is the row's first cell; the folders it names are its code spans ending
    in `/`, each read from the root if it starts with a folder of `ROOTS` (`tests/conform/`),
    else relative to the row's folder, as tests/test_architecture_doc.py reads them."""
    lines = text.splitlines()
    if "## What each folder owns" not in lines:
        return []
    start = lines.index("## What each folder owns") + 1
    found = []
    for number, line in enumerate(lines[start:], start=start + 1):
        if line.startswith("## "):
            break
        row = _ROW.match(line)
        if row is None:
            continue
        folder = row[1]
        named = [token if token.startswith(ROOTS) else folder + token
                 for token in _CODE.findall(line[row.end():]) if token.endswith("/")]
        found.append((number, folder, named))
    return found


def _nearest_ancestor(package: str, packages: frozenset[str]) -> str | None:
    parts = package.rstrip("/").split("/")
    for end in range(len(parts) - 1, 0, -1):
        ancestor = "/".join(parts[:end]) + "/"
        if ancestor in packages:
            return ancestor
    return None


def uncovered(text: str, tree: Tree) -> list[str]:
    """Rule 1: every package that neither has a row nor is named in its nearest ancestor
    package's row, with the reason."""
    table = rows(text)
    named: dict[str, set[str]] = {}
    for _, folder, names in table:
        named.setdefault(folder, set()).update(names)
    found = []
    for package in sorted(tree.packages - named.keys()):
        ancestor = _nearest_ancestor(package, tree.packages)
        if ancestor is None:
            found.append(f"`{package}` has no row")
        elif ancestor not in named:
            found.append(f"`{package}` has no row, and its nearest ancestor package "
                         f"`{ancestor}` has no row to name it in")
        elif package not in named[ancestor]:
            found.append(f"`{package}` has no row, and the `{ancestor}` row does not name "
                         f"`{package.removeprefix(ancestor)}`")
    return found


def misnamed(text: str, tree: Tree) -> list[str]:
    """Rule 2: every folder the table names that is not what it must be, and every folder with
    two rows."""
    tops = {p.rstrip("/") for p in tree.top_packages()}
    found = []
    seen: dict[str, int] = {}
    for line, folder, names in rows(text):
        if folder in seen:
            found.append(f"line {line}: `{folder}` has a second row (the first is line "
                         f"{seen[folder]})")
        seen.setdefault(folder, line)
        for path in [folder, *names]:
            if path not in tree.folders:
                found.append(f"line {line}: `{path}` does not exist")
            elif path.split("/")[0] in tops and path not in tree.packages:
                found.append(f"line {line}: `{path}` is a folder without modules, not a "
                             "package")
    return found


def drawing_problems(text: str, tree: Tree) -> list[str]:
    """Rule 3: every folder drawn under "The layers" that does not exist, and every top-level
    package not drawn there."""
    block = re.search(r"^```\n(.*?)^```", _section(text, "The layers"), re.M | re.S)
    if block is None:
        return ["no fenced block under \"## The layers\""]
    drawn = set(_DRAWN.findall(block[1]))
    found = [f"the drawing draws `{folder}`, which does not exist"
             for folder in sorted(drawn - tree.folders)]
    found.extend(f"the top-level package `{package}` is not drawn"
                 for package in sorted(tree.top_packages() - drawn))
    return found


def problems(text: str, tree: Tree) -> list[str]:
    return uncovered(text, tree) + misnamed(text, tree) + drawing_problems(text, tree)


def test_the_tree_is_read_as_the_rule_says() -> None:
    tree = tree_on_disk(ROOT)
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = shipped["tool"]["setuptools"]["packages"]["find"]["include"]
    assert tree.top_packages() == {pattern.rstrip("*") + "/" for pattern in include}
    assert {"model_checks/smt/prove/", "spec/designs/shm/", "spec/properties/"} <= tree.packages
    assert {"tests/", "benchmarks/", "docs/", "tests/architecture/"} <= tree.folders
    assert not any(p.startswith(("tests/", "docs/")) for p in tree.packages)
    assert len(tree.packages) > 20
    assert len(rows(PAGE.read_text())) > 15


def test_the_page_covers_every_package_and_names_nothing_else() -> None:
    assert problems(PAGE.read_text(), tree_on_disk(ROOT)) == []


PLANTED = """# Planted

## The layers

```
spec/            the model
   │
   ▼
model_checks/    the checkers; conform's adapter (model_checks/conform/adapter.py)
```

## What each folder owns

| folder | owns |
|---|---|
| `spec/` | `state.py`, `transitions/` (one class per action), `designs/base.py` |
| `model_checks/` (top level) | `cli.py` (the commands) |
| `model_checks/smt/` | Z3: `encode/` (the formulas), `search/`; its tests in `tests/smt/` |
| `tests/` | one folder per part (`tests/smt/`) |

## Where a change goes
"""
"""A page that matches `PLANTED_TREE`; each planted case below changes one thing."""

_PACKAGES = frozenset({"spec/", "spec/transitions/", "model_checks/", "model_checks/smt/",
                       "model_checks/smt/encode/", "model_checks/smt/search/"})
PLANTED_TREE = Tree(_PACKAGES, _PACKAGES | {"tests/", "tests/smt/", "docs/"})


def _with(tree: Tree, packages: Iterable[str] = (), folders: Iterable[str] = ()) -> Tree:
    return Tree(tree.packages | set(packages), tree.folders | set(packages) | set(folders))


def test_the_planted_page_matches_its_tree() -> None:
    assert problems(PLANTED, PLANTED_TREE) == []


def test_a_package_not_covered_is_caught() -> None:
    tree = _with(PLANTED_TREE, {"model_checks/smt/prove/", "model_checks/explore/",
                                "spec/designs/", "model_checks/smt/encode/deep/",
                                "reference/"})
    text = PLANTED.replace("`cli.py`", "`cli.py`, `smt/encode/deep/`")
    assert uncovered(text, tree) == [
        "`model_checks/explore/` has no row, and the `model_checks/` row does not name "
        "`explore/`",
        # named only from the root of model_checks/, not in encode/'s row (it has none)
        "`model_checks/smt/encode/deep/` has no row, and its nearest ancestor package "
        "`model_checks/smt/encode/` has no row to name it in",
        "`model_checks/smt/prove/` has no row, and the `model_checks/smt/` row does not name "
        "`prove/`",
        "`reference/` has no row",
        # a module inside a package does not name it
        "`spec/designs/` has no row, and the `spec/` row does not name `designs/`",
    ]
    covered = text.replace("`search/`;", "`search/`, `prove/`;").replace(
        "| `tests/`", "| `model_checks/explore/` | the explorer |\n| `tests/`")
    assert len(uncovered(covered, tree)) == 3


def test_a_folder_named_that_is_not_there_is_caught() -> None:
    text = (PLANTED.replace("`search/`;", "`search/`, `decode/`, `tables/`;")
            .replace("(`tests/smt/`)", "(`tests/smt/`, `tests/gone/`)")
            .replace("| `tests/`", "| `model_checks/gone/` | nothing |\n"
                                   "| `model_checks/smt/` | again |\n| `tests/`"))
    tree = _with(PLANTED_TREE, folders={"model_checks/smt/tables/"})
    assert misnamed(text, tree) == [
        "line 18: `model_checks/smt/decode/` does not exist",
        "line 18: `model_checks/smt/tables/` is a folder without modules, not a package",
        "line 19: `model_checks/gone/` does not exist",
        "line 20: `model_checks/smt/` has a second row (the first is line 18)",
        "line 21: `tests/gone/` does not exist",
    ]


def test_a_drawing_that_misses_a_package_or_draws_a_missing_folder_is_caught() -> None:
    undrawn = PLANTED.replace("model_checks/    the checkers", "checkers    the checkers")
    assert drawing_problems(undrawn, PLANTED_TREE) == [
        "the top-level package `model_checks/` is not drawn"]
    assert drawing_problems(PLANTED, _with(PLANTED_TREE, {"reference/"})) == [
        "the top-level package `reference/` is not drawn"]
    extra = PLANTED.replace("   ▼\n", "   ▼\ndocz/    pages\n")
    assert drawing_problems(extra, PLANTED_TREE) == [
        "the drawing draws `docz/`, which does not exist"]
    assert drawing_problems(PLANTED.replace("```", "~~~"), PLANTED_TREE) == [
        "no fenced block under \"## The layers\""]
