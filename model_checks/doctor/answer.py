"""The project's answer, per property, for a variant in a deployment's environment.

Everything here is read from the answer store (`model_checks.answers`, package data: an
installed package answers as the checkout does), never restated: a property *breaks* in the
environment when one of its minimal breaking environments lies inside it (with the shortest
replayed witness there); otherwise the answer says how far it is known to hold (every
instance, all depths of a named instance, ...) or that it is undecided there.
"""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.answers import Answer as StoredAnswer
from model_checks.answers import load as load_answers
from model_checks.conform.lru_lockstep.weakness import weakness
from model_checks.kernel.shipped import located
from spec import registry

LATTICE_PAGE = "docs/drift-combinations.md"


def judged_properties() -> tuple[tuple[str, str], ...]:
    """(id, title) of every property, in registry order: the safety ones, and recovery by
    the client's retry (L1-L4), which the deployment's environment decides as well."""
    return tuple((p.id, p.title) for p in registry())


@dataclass(frozen=True)
class Answer:
    """One property's answer: `breaks_under` (the minimal breaking environments inside the
    deployment), the shortest witness inside it and what removes the break; or, with nothing
    breaking inside it, `bound`: how far it is known to hold (the stored answer's scope)."""

    property_id: str
    title: str
    breaks_under: tuple[tuple[str, ...], ...]
    trace: str
    removal: str
    bound: str
    stored: StoredAnswer

    @property
    def breaks(self) -> bool:
        return self.stored.breaks


def instance_text(variant: str) -> str:
    """What the answers for `variant` rest on (the store's evidence files)."""
    del variant  # one store answers every variant
    return "the answer store: " + ", ".join(load_answers().sources)


def _trace(stored: StoredAnswer) -> str:
    w = stored.witness
    if w is None:
        return ""
    return f"{located(w.trace) if w.trace else w.checker} ({w.steps} steps)"


def answer(variant: str, env: tuple[str, ...]) -> tuple[Answer, ...]:
    """Per judged property, the project's answer for `variant` under `env`."""
    found = []
    for prop, title in judged_properties():
        stored = load_answers().answer(variant, env, prop)
        weak = weakness(variant, prop)
        inside = weak.within(env) if stored.breaks else ()
        found.append(Answer(prop, title, inside, _trace(stored),
                            weak.removal() if stored.breaks else "",
                            "" if stored.breaks else stored.words(), stored))
    return tuple(found)
