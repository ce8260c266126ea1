"""A state's stable fingerprint: the name of a state across processes and runs.

`stable_fingerprint(state)` is a 64-bit blake2b digest of `canonical_text(state)`, a text that
is a function of the state's value alone. Equal states get equal fingerprints in every
process, whatever its hash seed: unlike Python's `hash` (salted per process) and unlike a
digest of `repr`, since a frozenset's `repr` lists its members in the order of their salted
hashes (P0's probe hits, `frozenset({'a', 'b'})`, print in either order in two processes).
The owned-partition search names states' elements by it (`wire`); the local search keeps
Python's `hash` as its 64-bit fingerprint, because its visited set never leaves the process
(`graph`).
"""

from __future__ import annotations

import hashlib
from dataclasses import fields, is_dataclass


def stable_fingerprint(state: object) -> int:
    """A 64-bit blake2b digest of the state's canonical text (`canonical_text`): equal
    states have equal fingerprints in every process, whatever its hash seed."""
    return int.from_bytes(hashlib.blake2b(canonical_text(state).encode(),
                                          digest_size=8).digest())


def canonical_text(value: object) -> str:
    """A text of the state that is a function of its value alone: its `repr` when that holds
    no non-empty set (a hashable state holds no dict or mutable set), else a walk that sorts
    every set's members. (`repr` alone is not: a frozenset lists its members in the order of
    their salted hashes, so P0's probe hits, `frozenset({'a', 'b'})`, print in either order
    in two processes.) The walk descends dataclasses, tuples, sets and dicts; any other value
    is a leaf whose `repr` must be a function of its value (ints, strings, the spec's enums).
    Equal states give equal texts: both reprs hold "frozenset({" or neither does."""
    text = repr(value)
    if "frozenset({" not in text:  # no set with a member: the repr is already canonical
        return text
    out: list[str] = []
    _encode(value, out)
    return "".join(out)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _encode(value: object, out: list[str]) -> None:
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None and is_dataclass(value):
        names = _FIELDS[kind] = tuple(f.name for f in fields(value))
    if names is not None:
        out.append(kind.__qualname__ + "(")
        for name in names:
            _encode(getattr(value, name), out)
            out.append(",")
        out.append(")")
    elif isinstance(value, tuple | list):
        out.append("(")
        for member in value:
            _encode(member, out)
            out.append(",")
        out.append(")")
    elif isinstance(value, frozenset | set | dict):
        members = value.items() if isinstance(value, dict) else value
        out.append("{" + ",".join(sorted(canonical_text(m) for m in members)) + "}")
    else:
        out.append(repr(value))
