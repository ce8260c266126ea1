"""The property registry: every property the spec declares, collected in one place.

The modules that declare properties (`safety`, `liveness`, `lemmas`) import only the
decorators (`spec.properties.declare`); this module imports them, so that importing it
declares everything, and it reads what the decorators recorded. Docs, checkers and tests read
`registry()`, `lemmas()` and `by_id()`; nothing restates a property.
"""

from __future__ import annotations

from spec.properties import lemmas as _lemmas  # noqa: F401  (declaring imports)
from spec.properties import liveness as _liveness  # noqa: F401
from spec.properties import safety as _safety  # noqa: F401
from spec.properties.declare import Property, declared, declared_lemmas, generation

_CACHE: dict[str, tuple[int, tuple[Property, ...]]] = {}
"""`registry()` and `lemmas()` as computed, with the declaration `generation` they were
computed at (checkers ask for them at every step)."""
_BY_ID: dict[str, Property] = {}
_BY_ID_GENERATION = [-1]


def _cached(name: str) -> tuple[Property, ...] | None:
    entry = _CACHE.get(name)
    return entry[1] if entry is not None and entry[0] == generation() else None


def registry() -> tuple[Property, ...]:
    """Every declared property, ordered by id (S, H, L families in numeric order)."""
    ordered = _cached("registry")
    if ordered is None:
        order = {"S": 0, "H": 1, "L": 2}
        ordered = tuple(sorted(declared(), key=lambda p: (order[p.id[0]], int(p.id[1:]))))
        _CACHE["registry"] = (generation(), ordered)
    return ordered


def property_ids() -> tuple[str, ...]:
    """The ids of `registry()`, in its order: the one list every checker's table, every
    summary column and every command-line choice is keyed by (read at call time, so a
    property declared later is included)."""
    return tuple(p.id for p in registry())


def safety_ids() -> tuple[str, ...]:
    """The ids of the safety properties (`Kind.SAFETY`: must hold in every reachable state),
    in `registry()` order, read at call time."""
    from spec.properties.declare import Kind

    return tuple(p.id for p in registry() if p.kind is Kind.SAFETY)


def lemmas() -> tuple[Property, ...]:
    """The strengthening invariants (I1, I2, ...): state predicates that hold in every reachable
    state of the variants they name, proved by the Z3 checker and checked on every state the
    tests and the Hypothesis machines visit. They are the steps of the proofs of S1-S3 for V3;
    `registry()` lists the properties themselves."""
    ordered = _cached("lemmas")
    if ordered is None:
        ordered = tuple(sorted(declared_lemmas(), key=lambda p: int(p.id[1:])))
        _CACHE["lemmas"] = (generation(), ordered)
    return ordered


def by_id(prop_id: str) -> Property:
    if _BY_ID_GENERATION[0] != generation():
        _BY_ID.clear()
        _BY_ID.update((prop.id, prop) for prop in (*registry(), *lemmas()))
        _BY_ID_GENERATION[0] = generation()
    if prop_id in _BY_ID:
        return _BY_ID[prop_id]
    known = ", ".join(p.id for p in registry())
    raise KeyError(f"unknown property {prop_id!r}, expected one of {known}")
