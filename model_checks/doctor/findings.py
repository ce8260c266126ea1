"""The doctor's answer as findings: one per property, each rendered as a headline first.

A `Finding` is what an operator acts on: the property, its `Level` for the deployment (AT
RISK, KEPT, UNDECIDED), the reason in the deployment's own facts (the drift sources that break
it, in `facts.OPERATOR`'s words, an assumed one marked so), the shortest witness as a path
that opens (`kernel.shipped.located`), what rules an assumption out (the doctor's own
options) and what to change in vLLM (options, the project's patch, no cache). The findings
are built from the answers (`answer` for the LRU pair, `design_answer` for another design),
never restated; the command renders them (`headline`, `to_json`) and exits by them
(`--require`). Another fact or answer joins by adding a finding, not a section.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from model_checks.answers import load as load_answers
from model_checks.doctor.answer import Answer
from model_checks.doctor.facts import (
    NO_CACHE,
    OPERATOR,
    PATCH,
    PATCHED_VARIANT,
    Deployment,
    Status,
    environment,
    statuses,
)
from model_checks.kernel.shipped import located


class Level(enum.Enum):
    AT_RISK = "AT RISK"
    """A break is known inside the deployment's environment (its sources on, or assumed
    because no stated fact rules them out)."""
    KEPT = "KEPT"
    """No break is known inside it, and a proof or search covers it (the reason says how
    far)."""
    UNDECIDED = "UNDECIDED"
    """No break is known inside it and nothing covers it."""


@dataclass(frozen=True)
class Finding:
    """One property's finding for a deployment."""

    property_id: str
    title: str
    level: Level
    reason: str
    """Why, in the deployment's facts (AT RISK), or how far it is known (KEPT, UNDECIDED)."""
    witness: str = ""
    """The shortest replayable witness inside the deployment: a path that opens (replay it
    with `python -m model_checks replay PATH`) and its length."""
    rule_out: tuple[str, ...] = ()
    """The doctor's options that would rule out an assumed source the risk needs."""
    remedies: tuple[str, ...] = ()
    """What to change in vLLM to remove the risk (options, the patch, no cache)."""
    detail: str = ""
    """The full answer (the breaking environments, or the stored answer's scope)."""
    patch_keeps: str = ""
    """At risk, but the patched release keeps it in this deployment: how far that is known
    ("" when the patch does not remove the risk)."""

    @property
    def at_risk(self) -> bool:
        return self.level is Level.AT_RISK

    def headline(self) -> str:
        return f"{self.property_id} {self.title}: {self.level.value}, {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return {"property": self.property_id, "title": self.title, "level": self.level.value,
                "at_risk": self.at_risk, "reason": self.reason, "witness": self.witness,
                "rule_out": list(self.rule_out), "remedies": list(self.remedies),
                "patch_keeps": self.patch_keeps, "detail": self.detail}


def because(envs: tuple[tuple[str, ...], ...], found: dict[str, Status],
            facts: dict[str, str]) -> str:
    """The breaking environments in the deployment's words: those its stated facts switch
    on, each source's fact (joined by "with"); then those that need an assumed source, by
    their ids when a stated one is already named, else in words too, marked assumed."""
    def words(env: tuple[str, ...]) -> str:
        return " with ".join(facts[d] for d in env)

    stated = [e for e in envs if all(found[d] is Status.ON for d in e)]
    assumed = [e for e in envs if e not in stated]
    if not stated:
        return "; or ".join(f"{words(e)} ({'+'.join(e)}, assumed)" for e in assumed)
    said = "; or ".join(words(e) for e in stated)
    if assumed:
        said += "; and, unless ruled out, " + ", ".join("+".join(e) for e in assumed)
    return said


def patch_keeps(env: tuple[str, ...], prop: str) -> str:
    """How far the patched release's variant is known to keep `prop` under `env`, "" when it
    does not."""
    stored = load_answers().answer(PATCHED_VARIANT, env, prop)
    return stored.scope() if stored.kept else ""


def patch_line(findings: tuple[Finding, ...]) -> str:
    """The patch as a remedy for the findings at risk that it removes ("" for none)."""
    kept = [f for f in findings if f.at_risk and f.patch_keeps]
    if not kept:
        return ""
    scopes = sorted({f.patch_keeps for f in kept})
    return (f"apply {PATCH}: vLLM becomes {PATCHED_VARIANT}, which keeps "
            f"{', '.join(f.property_id for f in kept)} in this deployment "
            f"({'; '.join(scopes)})")


def lru_finding(result: Answer, deployment: Deployment) -> Finding:
    """The finding for one property of the LRU pair (`answer.answer`'s result)."""
    found = statuses(deployment)
    facts = {d: o.fact for d, o in OPERATOR.items()}
    stored = result.stored
    if not result.breaks:
        level = Level.KEPT if stored.kept else Level.UNDECIDED
        return Finding(result.property_id, result.title, level, stored.scope(),
                       detail=result.bound)
    sources = sorted({d for e in result.breaks_under for d in e},
                     key=lambda d: int(d[1:]))
    rule_out = tuple(dict.fromkeys(OPERATOR[d].rule_out for d in sources
                                   if found[d] is Status.ASSUMED and OPERATOR[d].rule_out))
    remedies = (*(f"{d}: {OPERATOR[d].vllm}" for d in sources), NO_CACHE)
    reason = because(result.breaks_under, found, facts)
    w = stored.witness
    witness = f"{located(w.trace)} ({w.steps} steps)" if w is not None and w.trace else ""
    return Finding(result.property_id, result.title, Level.AT_RISK, reason, witness,
                   rule_out, remedies, result.removal,
                   patch_keeps(environment(deployment), result.property_id))

