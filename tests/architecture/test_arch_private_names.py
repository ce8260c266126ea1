"""No module reads another module's private names, nor a private member of reference/'s
objects.

A name with a leading underscore is its module's own: another module that imports it
(`from spec.properties.declare import _DECLARED`), or reaches it through the module
(`declare._DECLARED`), depends on what the owner is free to change. What two modules share
gets a public name, or a module of its own. Scanned: spec/, reference/, model_checks/ and
benchmarks/ (tests may read the private names of the module they test). Dunder names
(`__version__`) are public.

Likewise for the members of reference/'s objects: outside reference/, `x._name` where
reference/ defines `_name` (a `self._name` it assigns, a `_method` or class attribute of one
of its classes) is a violation, and so is a subclass of a reference class that defines,
reads or writes such a member on `self` (overriding a private method depends on it as much
as calling it). A class that is not a reference class's subclass keeps its own `self._name`.
The mutants and harnesses built on reference/ use its declared seams instead: public methods
and properties, and `reference.extension`: its functions, and the protected hooks its
`EXTENSION_POINTS` declares (each a method of one class, named in that class's docstring,
with a stated contract), which a subclass may override and a variant call. Each seam is used
outside reference/: the surface is what the mutants and harnesses need.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
from pathlib import Path

import pytest

from reference import extension
from reference.extension import EXTENSION_POINTS

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("spec", "reference", "model_checks")
SCANNED = (*PROJECT, "benchmarks")


@functools.cache
def _tree(source: str) -> ast.Module:
    """`source` parsed, once per process: the tests here walk the same modules several times
    each (the trees are only read)."""
    return ast.parse(source)


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
    tree = _tree(source)
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


# -- attribute reads of reference/'s private members ------------------------------------------


def reference_private_members(source: str) -> tuple[set[str], set[str]]:
    """The private members (`self._name` assigned, or a `_method`/`_attribute` defined in a
    class body) and the class names of a module of reference/."""
    members: set[str] = set()
    classes: set[str] = set()
    for node in ast.walk(_tree(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        classes.add(node.name)
        for inner in ast.walk(node):
            if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(
                    inner.name):
                members.add(inner.name)
            elif (isinstance(inner, ast.Attribute) and isinstance(inner.ctx, ast.Store)
                  and isinstance(inner.value, ast.Name) and inner.value.id == "self"
                  and _private(inner.attr)):
                members.add(inner.attr)
        for statement in node.body:
            targets = (statement.targets if isinstance(statement, ast.Assign)
                       else [statement.target] if isinstance(statement, ast.AnnAssign) else [])
            members.update(t.id for t in targets if isinstance(t, ast.Name) and _private(t.id))
    return members, classes


def _base_name(base: ast.expr) -> str | None:
    """The class a base expression names: `ByteLru`, `lru.ByteLru`, `ByteLru[K, V]`."""
    if isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


def reference_subclasses(source: str, reference_classes: set[str]) -> set[str]:
    """The classes of `source` that subclass a class of `reference_classes`, directly or
    through another class of `source`."""
    defined = [n for n in ast.walk(_tree(source)) if isinstance(n, ast.ClassDef)]
    found: set[str] = set()
    while True:
        more = {n.name for n in defined if n.name not in found and any(
            _base_name(b) in reference_classes | found for b in n.bases)}
        if not more:
            return found
        found |= more


def reference_private_uses(name: str, source: str, members: set[str],
                           reference_classes: set[str]) -> list[str]:
    """Every use in `source` (the module `name`) of a private member of reference/
    (`members`), as "name:line: x._member" (or "name:line: def Class._member" for an
    override): an attribute read or write `x._member`, but `self._member`/`cls._member` inside
    a class that does not subclass a class of `reference_classes` (its own attribute); and
    any `_member` a subclass of a reference class defines, or reads or writes on `self`."""
    subclasses = reference_subclasses(source, reference_classes)
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, owner: str | None) -> None:
        if isinstance(node, ast.ClassDef):
            owner = node.name
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
                owner in subclasses and node.name in members):
            found.append((node.lineno, f"def {owner}.{node.name}"))
        elif isinstance(node, ast.Attribute) and node.attr in members:
            own = (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
                   and owner is not None and owner not in subclasses)
            if not own:
                subject = node.value.id if isinstance(node.value, ast.Name) else "..."
                found.append((node.lineno, f"{subject}.{node.attr}"))
        for child in ast.iter_child_nodes(node):
            visit(child, owner)

    visit(_tree(source), None)
    return [f"{name}:{line}: {what}" for line, what in sorted(found)]


def _declared() -> set[str]:
    """The hooks `reference.extension` declares (protected methods a subclass may override
    or a variant call)."""
    return {name for hooks in EXTENSION_POINTS.values() for name in hooks}


def _reference_members() -> tuple[set[str], set[str]]:
    """The private members of reference/ but its declared hooks, and its class names."""
    members: set[str] = set()
    classes: set[str] = set()
    for path in sorted((ROOT / "reference").rglob("*.py")):
        found, defined = reference_private_members(path.read_text())
        members |= found
        classes |= defined
    return members - _declared(), classes


def _private_members_by_class() -> dict[type, set[str]]:
    """Every class of reference/ (as loaded) -> the private members it defines itself."""
    found: dict[type, set[str]] = {}
    for path in sorted((ROOT / "reference").rglob("*.py")):
        module = importlib.import_module(_module_name(path))
        tree = _tree(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                source = ast.get_source_segment(path.read_text(), node) or ""
                found[getattr(module, node.name)] = reference_private_members(source)[0]
    return found


def test_arch_every_declared_hook_is_a_private_method_of_its_class_alone() -> None:
    """A hook of `EXTENSION_POINTS` is a method its class has (itself or through a base of
    reference/), named in its docstring, and no other class of reference/ has a private
    member of that name (the rule, which goes by names, could not tell them apart)."""
    by_class = _private_members_by_class()
    for cls, hooks in EXTENSION_POINTS.items():
        assert hooks, cls
        for name in hooks:
            assert callable(getattr(cls, name, None)), f"{cls.__name__}.{name} is no method"
            assert name in (cls.__doc__ or ""), f"{cls.__name__}'s docstring omits {name}"
            owners = {c for c, members in by_class.items() if name in members}
            assert owners <= set(cls.__mro__), (
                f"{name} is also a private member of {sorted(c.__name__ for c in owners)}")


def _scanned_sources() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text()
            for package in SCANNED if package != "reference"
            for path in sorted((ROOT / package).rglob("*.py"))}


def test_arch_no_module_uses_a_private_member_of_reference() -> None:
    members, classes = _reference_members()
    sources = _scanned_sources()
    while True:  # a subclass of a subclass of a reference class, in another module, is one
        more = set().union(*(reference_subclasses(s, classes) for s in sources.values()))
        if more <= classes:
            break
        classes |= more
    found = [use for name, source in sources.items()
             for use in reference_private_uses(name, source, members, classes)]
    assert not found, ("private members of reference/ used outside it (use a public method "
                       f"or a seam of reference.extension): {found}")


def test_arch_every_seam_is_used_outside_reference() -> None:
    """The seams are what the mutants and harnesses need, no more: every hook of
    `EXTENSION_POINTS` is overridden or called, and every function of `reference.extension`
    imported, by a module outside reference/."""
    _, classes = _reference_members()
    sources = _scanned_sources()
    subclasses = set().union(*(reference_subclasses(s, classes) for s in sources.values()))
    hooks = {use.rsplit(".", 1)[1] for name, source in sources.items()
             for use in reference_private_uses(name, source, _declared(), classes | subclasses)}
    imported = {alias.name for source in sources.values() for node in ast.walk(_tree(source))
                if isinstance(node, ast.ImportFrom) and node.module == "reference.extension"
                for alias in node.names}
    functions = {name for name in extension.__all__
                 if inspect.isfunction(getattr(extension, name))}
    assert _declared() - hooks == set(), "hooks no module outside reference/ uses"
    assert functions - imported == set(), "functions no module outside reference/ uses"


PLANTED = '''\
from reference.lru import ByteLru


class Evicting(ByteLru):
    def _evict_one(self):
        self._order.popitem(last=True)


class Derived(Evicting):
    def touch(self, key):
        return key in self._sizes


def peek(cache):
    return cache._lru.entries(), cache.stats()
'''
CLEAN = '''\
import threading


class Recorder:
    def __init__(self):
        self._lock = threading.Lock()

    def _evict_one(self):
        with self._lock:
            return self._order
'''


@pytest.mark.parametrize("source", [PLANTED, CLEAN])
def test_arch_a_planted_use_of_a_private_member_of_reference_is_found(source: str) -> None:
    members = {"_lru", "_order", "_sizes", "_evict_one", "_lock"}
    found = reference_private_uses("planted", source, members, {"ByteLru"})
    if source is CLEAN:
        assert found == []
        return
    assert found == [
        "planted:5: def Evicting._evict_one",
        "planted:6: self._order",
        "planted:11: self._sizes",
        "planted:15: cache._lru",
    ]


def test_arch_the_private_members_of_a_reference_module_are_found() -> None:
    source = ("class Cache:\n    _limit = 1\n    hits: int\n\n"
              "    def __init__(self):\n        self._lock = None\n        self.public = 1\n\n"
              "    def _evict_one(self):\n        other._not_ours = 1\n\n"
              "    def __len__(self):\n        return 0\n")
    assert reference_private_members(source) == ({"_limit", "_lock", "_evict_one"}, {"Cache"})
