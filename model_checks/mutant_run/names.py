"""The mutant names `mutants --mutant NAME` accepts, known without importing torch, so that an
unknown name is a usage error at once.

The spec mutants' names come from their registry (`model_checks.mutants.MUTANTS`, which imports
no checker). The implementation mutants' registry (`model_checks.conform.mutants.MUTANTS`)
imports the reference and with it torch, so its names are read from its source instead: the
first argument, a string, of each entry of its `MUTANTS` table. No name is written here; a
test holds what is read to the registry as imported.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable
from pathlib import Path

IMPL_REGISTRY = "model_checks.conform.mutants"
"""The module whose `MUTANTS` table is the implementation mutants' registry."""


class RegistryShapeError(LookupError):
    """The registry's source no longer has the shape its names are read from."""


def names_in_source(source: str, table: str = "MUTANTS") -> tuple[str, ...]:
    """The names of the entries of the module-level tuple `table` in `source`: each entry a
    call whose first argument is a string literal. Raises `RegistryShapeError` otherwise."""
    for node in ast.parse(source).body:
        targets: list[ast.expr]
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == table for t in targets):
            continue
        if not isinstance(value, ast.Tuple):
            raise RegistryShapeError(f"{table} is not a tuple written out")
        return tuple(_entry_name(entry, table) for entry in value.elts)
    raise RegistryShapeError(f"no module-level {table}")


def _entry_name(entry: ast.expr, table: str) -> str:
    if isinstance(entry, ast.Call) and entry.args:
        first = entry.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    raise RegistryShapeError(f"an entry of {table} at line {entry.lineno} does not start "
                             "with its name as a string")


def impl_mutant_names() -> tuple[str, ...]:
    """The implementation mutants' names, in their registry's order, read from its source."""
    spec = importlib.util.find_spec(IMPL_REGISTRY)
    if spec is None or spec.origin is None:
        raise RegistryShapeError(f"cannot find the source of {IMPL_REGISTRY}")
    return names_in_source(Path(spec.origin).read_text(encoding="utf-8"))


def in_order(spec: Iterable[str], impl: Iterable[str]) -> tuple[str, ...]:
    """Every mutant name once: the spec mutants', then the implementation-only ones."""
    names = tuple(spec)
    return (*names, *(n for n in impl if n not in names))


def mutant_names() -> tuple[str, ...]:
    """Every mutant name the command knows, without importing the checkers."""
    from model_checks.mutants import MUTANTS

    return in_order((m.name for m in MUTANTS), impl_mutant_names())
