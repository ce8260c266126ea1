"""Inherited weaknesses: where a variant itself breaks a property, and what removes that.

A property the implementation breaks at a step where the spec of its variant breaks it too is
not a bug of the implementation: it is the variant's weakness, inherited. A maintainer then
needs two answers, both read from committed evidence, never restated here:

- the **minimal drift environments** that break the property for the variant: the union of
  the drift lattice's minimal sets (`docs/results/lattice.json`, written by `explore
  --lattice`) and the environments where the expected matrix (`model_checks.matrix`) expects
  it to break, reduced to the minimal ones (no other breaking set inside them);
- **what removes it**: a variant that keeps the property under every drift source (tags:
  V3 for S1-S3), or a deployment without the drift sources every minimal environment needs
  (the smallest set of sources meeting each of them).

Both sources are bounded instances (the lattice names its own; the matrix's are
`instance.config_for`'s), so "minimal" means minimal among the environments those searches
decided; `Weakness.source` says which sources were read. Without the docs folder (an
installed wheel), the matrix alone answers, and `source` says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.cells import environment_text
from spec import VARIANT_NAMES

if TYPE_CHECKING:
    from spec import Config
    from spec.transitions import Action

LATTICE_PATH = Path(__file__).resolve().parents[2] / "docs" / "results" / "lattice.json"
"""The committed drift lattice (its page: docs/drift-combinations.md)."""

Environment = tuple[str, ...]


def _order(env: Iterable[str]) -> Environment:
    return tuple(sorted(set(env), key=lambda d: int(d[1:])))


@cache
def _lattice(path: Path = LATTICE_PATH) -> dict[tuple[str, str], tuple[Environment, ...]]:
    """(variant, property) -> the lattice's minimal breaking sets; {} if the file is absent."""
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    found: dict[tuple[str, str], tuple[Environment, ...]] = {}
    for entry in entries if isinstance(entries, list) else ():
        try:
            key = (str(entry["variant"]), str(entry["property"]))
            found[key] = tuple(_order(s) for s in entry["minimal_breaking"])
        except (KeyError, TypeError, ValueError):
            continue
    return found


@cache
def _vacuous(path: Path = LATTICE_PATH) -> dict[tuple[str, str], str]:
    """(variant, property) -> why the lattice found it vacuous (it cannot fail there)."""
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {(str(e["variant"]), str(e["property"])): str(e["vacuous"])
            for e in (entries if isinstance(entries, list) else ())
            if isinstance(e, dict) and e.get("vacuous") and "variant" in e and "property" in e}


def vacuous(variant: str, prop: str) -> str:
    """Why `prop` cannot fail under `variant` (the lattice's finding), or ""."""
    return _vacuous().get((variant, prop), "")


def _matrix(variant: str, prop: str) -> tuple[Environment, ...]:
    from model_checks.cell_sets import ALL_EXPECTED
    from model_checks.matrix import Expectation

    return tuple(
        _order(cell.environment) for cell in ALL_EXPECTED
        if cell.variant == variant and cell.expectations.get(prop) is Expectation.BREAKS
        and all(d.startswith("D") and d[1:].isdigit() for d in cell.environment)
    )


def _minimal(sets: Iterable[Environment]) -> tuple[Environment, ...]:
    unique = sorted(set(sets), key=lambda e: (len(e), [int(d[1:]) for d in e]))
    return tuple(e for e in unique if not any(set(o) < set(e) for o in unique))


def _hitting_set(sets: Sequence[Environment]) -> Environment:
    """The smallest set of drift sources meeting every set (first in numeric order)."""
    sources = _order(d for s in sets for d in s)
    for size in range(1, len(sources) + 1):
        for chosen in combinations(sources, size):
            if all(set(chosen) & set(s) for s in sets):
                return chosen
    return ()


@dataclass(frozen=True)
class Weakness:
    """`variant`'s spec breaks `property_id`: its minimal environments, where they come from,
    and the variants that keep it under every drift source."""

    variant: str
    property_id: str
    minimal: tuple[Environment, ...]
    source: str
    kept_by: tuple[str, ...]
    shortest: tuple[str, int] | None = None
    """The lattice's shortest trace for it: (file, steps)."""

    def within(self, allowed: Iterable[str] | None) -> tuple[Environment, ...]:
        """The minimal environments inside a deployment's environment (None: every source)."""
        if allowed is None:
            return self.minimal
        room = set(allowed)
        return tuple(e for e in self.minimal if set(e) <= room)

    def environments_text(self, allowed: Iterable[str] | None = None) -> str:
        inside = self.within(allowed)
        if not inside:
            known = ", ".join(environment_text(e) for e in self.minimal) or "none known"
            return f"none of the known minimal environments ({known}) is inside it"
        return ", ".join(environment_text(e) for e in inside)

    def removal(self) -> str:
        """One sentence: what removes the weakness, generated from the evidence: another
        variant only if one keeps the property in every environment checked (a vacuous keep
        does not count), named with what it has (tags where it is tagged)."""
        ways = []
        if self.kept_by and self.variant not in self.kept_by:
            has = " (tags)" if all(_tagged(v) for v in self.kept_by) else ""
            ways.append(f"another variant: {'/'.join(self.kept_by)}{has} keeps "
                        f"{self.property_id} in every environment checked")
        needed = _hitting_set(self.minimal)
        if needed:
            named = (needed[0] if len(needed) == 1 else " and ".join(needed)
                     if len(needed) == 2 else "any of " + ", ".join(needed))
            ways.append(f"a deployment without {named} (every minimal environment needs "
                        + ("it" if len(needed) == 1 else "one of them") + ")")
        if not ways:
            return "nothing known removes it short of another variant"
        return "removed by " + ", or by ".join(ways)


@cache
def weakness(variant: str, prop: str) -> Weakness:
    """The committed evidence on `variant`'s `prop`: lattice and matrix, minimal sets."""
    lattice = _lattice()
    minimal = _minimal((*lattice.get((variant, prop), ()), *_matrix(variant, prop)))
    source = ("drift lattice (docs/results/lattice.json) and expected matrix" if lattice
              else "expected matrix (model_checks/matrix.py; the drift lattice file is absent)")
    kept_by = tuple(
        v for v in VARIANT_NAMES
        if not lattice.get((v, prop)) and not _matrix(v, prop) and not vacuous(v, prop)
    )
    return Weakness(variant, prop, minimal, source, kept_by, _shortest(variant, prop))


def _tagged(variant: str) -> bool:
    from spec import VARIANTS

    return any(v.name == variant and v.tagged for v in VARIANTS)


@cache
def _shortest(variant: str, prop: str, path: Path = LATTICE_PATH) -> tuple[str, int] | None:
    """The lattice's shortest trace of `variant` breaking `prop`: its file and steps."""
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    found: list[tuple[int, str]] = []
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or (entry.get("variant"), entry.get("property")) != (
                variant, prop):
            continue
        for t in entry.get("traces", ()):
            if isinstance(t, dict) and isinstance(t.get("steps"), int) and t.get("trace"):
                found.append((t["steps"], str(t["trace"])))
    if not found:
        return None
    steps, trace = min(found)
    return trace, steps


def trace_sources(config: Config, actions: Iterable[Action]) -> Environment:
    """The drift sources a trace exercises: its steps' drift events (D1 reordering, D2
    rejection, D3/D4 clears, D6 split updates, D7 a second content, D10 restarts) and what
    its requests use of the configuration (D5 a second front end, D8 a request over the
    budget, D9 an item sized differently on the two sides, D11 an item over the budget)."""
    from spec import Content
    from spec.transitions import Submit

    used: set[str] = set()
    for action in actions:
        event = action.drift_event()
        if event is not None:
            used.add(event.value)
        if not isinstance(action, Submit):
            continue
        if action.front_end > 0:
            used.add("D5")
        contents = [Content(i.identity, i.version) for i in action.items]
        if len(contents) > 1 and sum(config.shadow_bytes(c) for c in contents) > config.budget:
            used.add("D8")
        for c in contents:
            if config.shadow_bytes(c) != config.receiver_bytes(c):
                used.add("D9")
            if max(config.shadow_bytes(c), config.receiver_bytes(c)) > config.budget:
                used.add("D11")
    return _order(used)
