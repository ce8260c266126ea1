"""There is one registry of mutants: no module of model_checks/ but
`model_checks.mutation.registry` writes out a table of mutants at module level (a
tuple, list, set or dict display bound to a name that says it holds mutants, or whose entries
are calls building mutants). A mutant set declared elsewhere would be a second registry that
the `mutants` command and the kill matrix do not read. Also run on planted sources, to show
it can fail. (The sets only tests run live under tests/ and are not scanned.)
"""

from __future__ import annotations

import ast

from tests.test_layout import _project_sources

REGISTRY = "model_checks.mutation.registry"
_DISPLAYS = (ast.Tuple, ast.List, ast.Set, ast.Dict)


def _callee(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return ""


def _builds_mutants(value: ast.expr) -> bool:
    """A display whose entries (a dict's values) are calls of a mutant builder."""
    items = value.values if isinstance(value, ast.Dict) else getattr(value, "elts", [])
    return any("mutant" in _callee(item).lower() for item in items)


def mutant_tables(source: str) -> list[str]:
    """The module-level names `source` binds to a written-out table of mutants."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not isinstance(value, _DISPLAYS):
            continue
        for target in targets:
            if isinstance(target, ast.Name) and (
                "MUTANT" in target.id.upper() or _builds_mutants(value)
            ):
                found.append(target.id)
    return found


def test_arch_one_mutant_registry() -> None:
    sources = {m: s for m, s in _project_sources().items() if m.startswith("model_checks")}
    assert mutant_tables(sources[REGISTRY]) == ["MUTANTS"], "the registry's table not found"
    others = {m: names for m, s in sources.items() if m != REGISTRY
              if (names := mutant_tables(s))}
    assert not others, f"mutant tables outside {REGISTRY} (declare them there): {others}"


def test_arch_a_planted_second_registry_is_found() -> None:
    planted = (
        "MUTANTS = (f('a'),)\n"
        "SLIP_MUTANTS: tuple[M, ...] = [g('b')]\n"
        "BUGS = (receiver_mutant('c', 'V3', 'story', Cls),)\n"
        "BY_NAME = {'d': impl_mutant('d', 'V3', 'story')}\n"
        "mutants = spec_mutants()\n"  # built from the registry: no table
        "CHANGES = (1, 2)\n"
        "def local():\n    MUTANTS = (f('e'),)\n"  # not module level
    )
    assert mutant_tables(planted) == ["MUTANTS", "SLIP_MUTANTS", "BUGS", "BY_NAME"]
