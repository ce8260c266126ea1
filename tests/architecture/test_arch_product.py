"""The package holds the product: every module of `model_checks/` is reached from the product
itself, and the adapters sit below the command line.

- Reached: a module is imported (at import time or inside a function) or named by another
  module of `spec/`, `reference/` or `model_checks/` (a lazy command, an `--adapter` string,
  a generated page citing its file), or is an entry point of its own (a package, `__main__`,
  a module run with `python -m`).
  Code that only tests reach lives under `tests/` (the design-generic Hypothesis and Z3
  cross-checks, the checkers' tables, the executor's example tasks, the all-instance
  witnesses' writers).
- Below the command line: no adapter imports `model_checks.cli` or a command's module, directly
  or through others, and none reads a path under `tests/` (its inputs are shipped data).

Each rule is also run on a planted case, to show it can fail.
"""

from __future__ import annotations

import ast
import re

from tests.architecture.test_arch_command_imports import command_modules, reached_commands
from tests.test_layout import _project_sources, import_graph

ENTRY_POINTS: dict[str, str] = {
    "model_checks.conform.async_adapter":
        "an adapter users name on the command line (`--adapter ...:factory`), for asyncio "
        "front ends",
}
"""Modules no other product module names, with why they are product."""

NAMED = re.compile(r"model_checks(?:\.\w+)+")
PATH = re.compile(r"model_checks(?:/\w+)+(?=\.py)")
"""A module named in text: dotted (a lazy import, an `--adapter`) or as its file (a page
citing it)."""


def _runs_as_main(source: str) -> bool:
    return bool(re.search(r"^if __name__ == .__main__.:", source, re.M))


def unreached(sources: dict[str, str]) -> list[str]:
    """The `model_checks` modules nothing in the product imports or names, that are no entry
    point (`ENTRY_POINTS`, a package, `__main__`, a module with its own `__main__` block)."""
    graph = import_graph(sources, deferred=True)
    reached = {target for module, targets in graph.items() for target in targets
               if target != module}
    for module, source in sources.items():
        named = {*NAMED.findall(source), *(p.replace("/", ".") for p in PATH.findall(source))}
        reached.update(named - {module})
    packages = {m.rsplit(".", 1)[0] for m in sources if "." in m}
    return sorted(m for m in sources if m.startswith("model_checks.") and m not in reached
                  and m not in packages and m not in ENTRY_POINTS
                  and not m.endswith("__main__") and not _runs_as_main(sources[m]))


def test_every_module_of_the_package_is_reached_from_the_product() -> None:
    found = unreached(_project_sources())
    assert not found, f"reached by tests alone (move them under tests/): {found}"


def test_every_entry_point_is_still_unnamed_by_the_product() -> None:
    sources = _project_sources()
    for module in ENTRY_POINTS:
        assert module in sources, f"{module} is gone: drop it from ENTRY_POINTS"
        assert module not in unreached({**sources, "model_checks.x": f"import {module}\n"})


def test_a_planted_module_only_tests_reach_is_found() -> None:
    sources = {**_project_sources(), "model_checks.kernel.planted": "X = 1\n"}
    assert unreached(sources) == ["model_checks.kernel.planted"]
    sources["model_checks.kernel.user"] = "from model_checks.kernel import planted\n"
    assert "model_checks.kernel.planted" not in unreached(sources)


def _tests_paths(source: str) -> list[str]:
    """String constants of `source` (not docstrings) that name a path under tests/."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings
            and re.match(r"(\.\./)*tests(/|$)", node.value)]


def adapter_faults(sources: dict[str, str]) -> list[str]:
    """Each adapter that reaches a command-line module, or names a path under tests/."""
    graph = import_graph(sources, deferred=True)
    found = reached_commands(graph, ("model_checks.adapters",), command_modules(set(graph)))
    found += [f"{module} reads {path}" for module, source in sorted(sources.items())
              if module.startswith("model_checks.adapters") for path in _tests_paths(source)]
    return found


def test_adapters_sit_below_the_command_line_and_read_no_tests() -> None:
    found = adapter_faults(_project_sources())
    assert not found, found


def test_a_planted_adapter_above_the_command_line_is_found() -> None:
    sources = _project_sources()
    calling = {**sources, "model_checks.adapters.planted":
               "def check():\n    from model_checks.cli import main\n    return main([])\n"}
    found = adapter_faults(calling)
    assert found and all(f.startswith("model_checks.adapters.planted -> model_checks.cli")
                         for f in found), found
    reading = {**sources, "model_checks.adapters.planted":
               '"""Reads tests/ in its docstring only."""\nfrom pathlib import Path\n'
               'TRACES = Path("tests/conform/traces")\n'}
    assert adapter_faults(reading) == [
        "model_checks.adapters.planted reads tests/conform/traces"]
