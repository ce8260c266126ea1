"""The lattice's answer, per safety property, for a variant in a deployment's environment.

Everything here is read from the committed evidence (`model_checks.conform.weakness`: the
drift lattice `docs/results/lattice.json` and the expected matrix), never restated: a
property *breaks* in the environment when one of its minimal breaking environments lies
inside it; otherwise no breaking environment is known there, for the lattice's instance,
and the answer says which environments inside it the lattice left undecided.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from model_checks.cells import environment_text
from model_checks.conform.weakness import LATTICE_PATH, weakness
from spec import Kind, registry

LATTICE_PAGE = "docs/drift-combinations.md"


@cache
def _entries() -> dict[tuple[str, str], dict[str, Any]]:
    try:
        loaded = json.loads(LATTICE_PATH.read_text())
    except (OSError, ValueError):
        return {}
    return {(str(e["variant"]), str(e["property"])): e for e in loaded
            if isinstance(e, dict) and "variant" in e and "property" in e}


def judged_properties() -> tuple[tuple[str, str], ...]:
    """(id, title) of every property about states (safety, limit, diagnostic), in registry
    order: the ones a deployment's environment decides."""
    return tuple((p.id, p.title) for p in registry() if p.kind is not Kind.LIVENESS)


@dataclass(frozen=True)
class Answer:
    """One property's answer: `breaks_under` (the minimal breaking environments inside the
    deployment), the shortest trace the lattice kept for them and what removes the break;
    or, with nothing breaking inside it, `bound`: how far it is known to hold."""

    property_id: str
    title: str
    breaks_under: tuple[tuple[str, ...], ...]
    trace: str
    removal: str
    bound: str

    @property
    def breaks(self) -> bool:
        return bool(self.breaks_under)


def _trace_of(entry: dict[str, Any], inside: tuple[tuple[str, ...], ...]) -> str:
    """The shortest trace the lattice kept for one of the `inside` environments."""
    wanted = {frozenset(e) for e in inside}
    traces = [t for t in entry.get("traces") or ()
              if isinstance(t, dict) and frozenset(t.get("drift", ())) in wanted]
    if not traces:
        return ""
    best = min(traces, key=lambda t: (int(t.get("steps", 0)), str(t.get("trace", ""))))
    return f"{best.get('trace', '')} ({best.get('steps')} steps)"


def instance_text(variant: str) -> str:
    """The instance the lattice's answers for `variant` are about (its search bounds)."""
    entries = [e for (v, _), e in _entries().items() if v == variant]
    if not entries:
        return "no lattice entry: the expected matrix only"
    entry = entries[0]
    ladder = entry.get("ladder") or ["its base rung"]
    return (f"environments of up to {entry.get('max_size')} sources, instances up to "
            f"{ladder[-1]}, at most {entry.get('max_states'):,} states per graph")


def _bound(entry: dict[str, Any], env: tuple[str, ...]) -> str:
    """How far a property with no breaking environment inside `env` is known to hold."""
    if entry.get("proved_every_instance"):
        return "proved for all depths and every instance (Z3's parametric proof)"
    room = set(env)
    open_inside = [e for e in entry.get("undecided_smallest") or ()
                   if isinstance(e, list) and set(e) <= room]
    if not open_inside:
        return "within the lattice's instance"
    shown = ", ".join(environment_text(e) for e in open_inside[:4])
    more = f" and {len(open_inside) - 4} more" if len(open_inside) > 4 else ""
    return f"within the lattice's instance; undecided inside this deployment: {shown}{more}"


def answer(variant: str, env: tuple[str, ...]) -> tuple[Answer, ...]:
    """Per judged property, the lattice's answer for `variant` under `env`."""
    answers = []
    for prop, title in judged_properties():
        found = weakness(variant, prop)
        inside = found.within(env)
        entry = _entries().get((variant, prop), {})
        answers.append(Answer(prop, title, inside, _trace_of(entry, inside),
                              found.removal() if inside else "",
                              "" if inside else _bound(entry, env)))
    return tuple(answers)
