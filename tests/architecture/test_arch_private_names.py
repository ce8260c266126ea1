"""No module reads another module's private names.

A name with a leading underscore is its module's own: another module that imports it
(`from spec.properties.declare import _DECLARED`), or reaches it through the module
(`declare._DECLARED`), depends on what the owner is free to change. What two modules share
gets a public name, or a module of its own. Scanned: spec/, reference/, model_checks/ and
benchmarks/ (tests may read the private names of the module they test). Dunder names
(`__version__`) are public.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("spec", "reference", "model_checks")
SCANNED = (*PROJECT, "benchmarks")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _resolved(module: str | None, level: int, importer: str, package: bool) -> str:
    """The absolute name of `from <level dots><module> import ...` inside `importer` (a
    package's `__init__` when `package`)."""
    if not level:
        return module or ""
    here = importer.split(".") if package else importer.split(".")[:-1]
    parts = here[: len(here) - level + 1]
    return ".".join([*parts, module] if module else parts)


def private_reads(name: str, source: str, modules: set[str], package: bool = False) -> list[str]:
    """Every private name `source` (the module `name`, a package's `__init__` when `package`)
    takes from another module among `modules`, as "name:line: module.private"."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source, name)
    bound: dict[str, str] = {}  # a local name -> the project module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in PROJECT:
                    continue
                hidden = [part for part in alias.name.split(".") if _private(part)]
                if hidden:
                    found.append((node.lineno, alias.name))
                if alias.name in modules:
                    bound[alias.asname or alias.name.split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom):
            module = _resolved(node.module, node.level, name, package)
            if module.split(".")[0] not in PROJECT:
                continue
            for alias in node.names:
                if _private(alias.name) and module != name:
                    found.append((node.lineno, f"{module}.{alias.name}"))
                elif f"{module}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{module}.{alias.name}"
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in bound and _private(node.attr)
                and bound[node.value.id] != name):
            found.append((node.lineno, f"{bound[node.value.id]}.{node.attr}"))
    return [f"{name}:{line}: {what}" for line, what in sorted(found)]


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def test_arch_no_module_reads_another_modules_private_names() -> None:
    modules = {_module_name(p) for package in PROJECT for p in (ROOT / package).rglob("*.py")}
    found = [
        line
        for package in SCANNED
        for path in sorted((ROOT / package).rglob("*.py"))
        for line in private_reads(_module_name(path), path.read_text(), modules,
                                  path.name == "__init__.py")
    ]
    assert not found, "private names read from another module (give them a public name, " \
                      f"or move what is shared): {found}"


def test_arch_a_planted_private_read_is_found() -> None:
    modules = {"spec", "spec.properties", "spec.properties.declare", "model_checks.x"}
    planted = (
        "from spec.properties.declare import _DECLARED, Property\n"
        "from spec.properties import declare\n"
        "from . import _hidden\n"
        "import spec.properties._secret\n"
        "from numpy import _private_of_another_project\n"
        "from spec.properties.declare import __doc__\n"
        "declare._BY_ID.clear()\n"
        "declare.declared()\n"
    )
    assert private_reads("model_checks.x", planted, modules) == [
        "model_checks.x:1: spec.properties.declare._DECLARED",
        "model_checks.x:3: model_checks._hidden",
        "model_checks.x:4: spec.properties._secret",
        "model_checks.x:7: spec.properties.declare._BY_ID",
    ]
    assert private_reads("spec.properties", "from .. import _hidden\n", modules, True) == [
        "spec.properties:1: spec._hidden"
    ]
    clean = "from spec.properties.declare import Property, declared\n"
    assert private_reads("model_checks.x", clean, modules) == []
