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


# -- import cycles ---------------------------------------------------------------------------


def _module_imports(
    tree: ast.Module, deferred: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: its top-level statements, inside `if`
    and `try` blocks too, but not under `if TYPE_CHECKING:` nor inside functions or classes
    (those run later, when the import graph is complete). With `deferred`, the imports inside
    functions and classes too: they run later, but a module that reaches back into one that
    imports it is still a cycle of dependencies, only hidden from the interpreter."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                pending += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            pending += [*node.body, *node.orelse, *node.finalbody]
            pending += [stmt for handler in node.handlers for stmt in handler.body]
        elif deferred:
            pending += [child for child in ast.iter_child_nodes(node)
                        if isinstance(child, ast.stmt)]


def import_graph(sources: dict[str, str], deferred: bool = False) -> dict[str, set[str]]:
    """Module name -> the modules among `sources` it imports at import time (with `deferred`,
    also inside its functions and classes). `sources` maps
    dotted module names (a package by its own name, for its `__init__`) to their source.
    `from X import Y` depends on X.Y where that is a module, else on X; `import X.Y` on X.Y.
    (Importing a submodule also runs its parents' `__init__`, but a package that imports its
    own submodules is no cycle of dependencies: the edges are what each module needs.)"""
    graph: dict[str, set[str]] = {}
    for name, source in sources.items():
        is_package = name in {m.rsplit(".", 1)[0] for m in sources if "." in m}
        package = name if is_package else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _module_imports(ast.parse(source, name), deferred):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
                continue
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                edges.add(submodule if submodule in sources else base)
        graph[name] = {edge for edge in edges if edge in sources and edge != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _project_sources() -> dict[str, str]:
    sources = {}
    for name, source in _sources():
        module = name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        sources[module] = source
    return sources


def test_no_import_cycle_among_the_project_modules() -> None:
    found = cycles(import_graph(_project_sources()))
    assert not found, f"import cycles (module-level imports): {found}"


def test_no_import_cycle_through_function_level_imports() -> None:
    found = cycles(import_graph(_project_sources(), deferred=True))
    assert not found, f"import cycles (through imports inside functions): {found}"


def test_a_planted_import_cycle_is_found() -> None:
    planted = {
        "pkg": "",
        "pkg.a": "from pkg import b\n",
        "pkg.b": "import pkg.c\n",
        "pkg.c": "from .a import thing\n",
        "pkg.d": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
        "pkg.e": "def later():\n    from pkg import a\n",
    }
    assert cycles(import_graph(planted)) == [["pkg.a", "pkg.b", "pkg.c"]]
    del planted["pkg.c"]
    assert cycles(import_graph(planted)) == []


def test_a_planted_cycle_through_a_function_level_import_is_found() -> None:
    planted = {
        "pkg": "",
        "pkg.a": "from pkg import e\n",
        "pkg.d": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
        "pkg.e": ("class Later:\n    def run(self):\n        with open('x'):\n"
                  "            from pkg import a\n"),
        "pkg.f": "import pkg.a\n",
    }
    assert cycles(import_graph(planted)) == []  # the interpreter never meets it
    assert cycles(import_graph(planted, deferred=True)) == [["pkg.a", "pkg.e"]]
    planted["pkg.e"] = "def later():\n    import pkg.d\n"
    assert cycles(import_graph(planted, deferred=True)) == []  # TYPE_CHECKING is no edge


# -- package cycles --------------------------------------------------------------------------


def package_graph(graph: dict[str, set[str]], root: str = "model_checks") -> dict[str, set[str]]:
    """`graph` (module -> the modules it imports) folded to the packages directly under
    `root`: each module of `root.pkg` (at any depth) stands for `root.pkg`; a module directly
    in `root` (`root.cells`) stands for itself; modules outside `root` are left out."""

    def unit(module: str) -> str | None:
        parts = module.split(".")
        if parts[0] != root or len(parts) == 1:
            return None
        return ".".join(parts[:2])

    folded: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = unit(module)
        if source is None:
            continue
        edges = folded.setdefault(source, set())
        edges.update(t for t in map(unit, targets) if t is not None and t != source)
    return folded


def test_no_two_packages_of_model_checks_import_each_other() -> None:
    """A package that imports another which imports it back (even through others, even inside
    a function) is one package in two folders: the dependency between packages runs one way."""
    found = cycles(package_graph(import_graph(_project_sources(), deferred=True)))
    assert not found, f"package cycles in model_checks (module imports folded): {found}"


def test_a_planted_package_cycle_is_found() -> None:
    planted = {
        "model_checks": "",
        "model_checks.kernel": "",
        "model_checks.front": "",
        "model_checks.front.command": "from model_checks.back import command\n",
        "model_checks.back": "",
        "model_checks.back.command": "from model_checks.front import codec\n",
        "model_checks.front.codec": "import model_checks.kernel\n",
        "model_checks.other": "",
        "model_checks.other.run": ("def later():\n    import model_checks.front.codec\n"
                                   "    import spec\n"),
        "spec": "",
    }
    graph = import_graph(planted, deferred=True)
    assert cycles(graph) == []  # no cycle of modules: front.command -> back -> front.codec
    assert package_graph(graph)["model_checks.other"] == {"model_checks.front"}
    assert cycles(package_graph(graph)) == [["model_checks.back", "model_checks.front"]]
    planted["model_checks.back.command"] = "import model_checks.kernel\n"
    assert cycles(package_graph(import_graph(planted, deferred=True))) == []


# -- the kernel ------------------------------------------------------------------------------

KERNEL = "model_checks.kernel"


def kernel_reaches(graph: dict[str, set[str]], kernel: str = KERNEL) -> list[str]:
    """Every import (`module -> target`) from a module of `kernel` to a module of
    `model_checks` outside it: the kernel is what every checker and product builds on, so it
    depends on none of them (spec and third-party packages are outside the question)."""

    def inside(module: str) -> bool:
        return module == kernel or module.startswith(kernel + ".")

    return sorted(f"{module} -> {target}" for module, targets in graph.items() if inside(module)
                  for target in targets
                  if target.split(".")[0] == "model_checks" and not inside(target))


def test_the_kernel_imports_nothing_else_of_model_checks() -> None:
    found = kernel_reaches(import_graph(_project_sources(), deferred=True))
    assert not found, f"the kernel imports checkers or products: {found}"


def test_a_kernel_import_of_a_checker_is_found() -> None:
    planted = {
        "model_checks": "",
        "model_checks.kernel": "",
        "model_checks.kernel.cells": "from model_checks.kernel import exits\nimport spec\n",
        "model_checks.kernel.exits": "def later():\n    from model_checks.smt import runner\n",
        "model_checks.smt": "",
        "model_checks.smt.runner": "from model_checks.kernel import cells\n",
        "spec": "",
    }
    graph = import_graph(planted, deferred=True)
    assert kernel_reaches(graph) == ["model_checks.kernel.exits -> model_checks.smt.runner"]
    planted["model_checks.kernel.exits"] = "import model_checks\n"
    assert kernel_reaches(import_graph(planted, deferred=True)) == [
        "model_checks.kernel.exits -> model_checks"]
