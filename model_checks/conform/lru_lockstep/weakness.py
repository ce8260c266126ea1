"""Inherited weaknesses: where a variant itself breaks a property, and what removes that.

A property the implementation breaks at a step where the spec of its variant breaks it too is
not a bug of the implementation: it is the variant's weakness, inherited. A property the
project's answers break for the variant in the deployment's environment is the variant's
weakness too, whether or not a run of the implementation reached the break. A maintainer then
needs two answers, both read from the answer store (`model_checks.answers`, package data:
the drift lattice, the all-instance proofs and every checker's replayed breaks), never
restated here:

- the **minimal drift environments** that break the property for the variant: the
  environments of its witnesses with no other witness's environment inside;
- **what removes it**: a variant that keeps the property under every drift source (tags:
  V3 for S1-S3), or a deployment without the drift sources every minimal environment needs
  (the smallest set of sources meeting each of them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import TYPE_CHECKING

from model_checks.answers import Answer
from model_checks.answers import load as load_answers
from spec import DRIFT_IDS, VARIANT_NAMES
from spec.drift import Environment

if TYPE_CHECKING:
    from spec import Config
    from spec.transitions import Action

SOURCE = "the project's answers (model_checks/answers/answers.json)"
"""Where the minimal environments and the witnesses come from, as the report names it."""

SourceIds = tuple[str, ...]


def answer_in(variant: str, prop: str, allowed: Iterable[str] | None) -> Answer:
    """The project's answer for `variant`'s `prop` in a deployment's environment (None:
    every drift source)."""
    env = DRIFT_IDS if allowed is None else tuple(allowed)
    return load_answers().answer(variant, env, prop)


def vacuous(variant: str, prop: str) -> str:
    """Why `prop` cannot fail under `variant` (the answer store's reason), or ""."""
    return load_answers().of(variant, prop).vacuous


def _hitting_set(sets: Sequence[SourceIds]) -> SourceIds:
    """The smallest set of drift sources meeting every set (first in numeric order)."""
    sources = Environment.of(d for s in sets for d in s).sources
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
    minimal: tuple[SourceIds, ...]
    source: str
    kept_by: tuple[str, ...]
    shortest: tuple[str, int] | None = None
    """The shortest witness of it in the answer store: (file, steps)."""

    def within(self, allowed: Iterable[str] | None) -> tuple[SourceIds, ...]:
        """The minimal environments inside a deployment's environment (None: every source)."""
        if allowed is None:
            return self.minimal
        room = set(allowed)
        return tuple(e for e in self.minimal if set(e) <= room)

    def environments_text(self, allowed: Iterable[str] | None = None) -> str:
        inside = self.within(allowed)
        if not inside:
            known = ", ".join(Environment.of(e).text for e in self.minimal) or "none known"
            return f"none of the known minimal environments ({known}) is inside it"
        return ", ".join(Environment.of(e).text for e in inside)

    def removal(self) -> str:
        """One sentence: what removes the weakness, generated from the evidence: another
        variant only if one keeps the property in every environment checked (a vacuous keep
        does not count), named with the mechanism only those variants have (`_mechanisms`)."""
        ways = []
        if self.kept_by and self.variant not in self.kept_by:
            has = _mechanisms(self.kept_by)
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
    """The answer store's evidence on `variant`'s `prop`: its minimal breaking environments,
    the variants that keep it under every drift source, and its shortest witness."""
    store = load_answers()
    minimal = tuple(Environment.of(e).sources for e in store.minimal_breaking(variant, prop)
                    if all(d in DRIFT_IDS for d in e))
    kept_by = tuple(v for v in VARIANT_NAMES
                    if answer_in(v, prop, None).verdict.value == "holds")
    witnesses = store.of(variant, prop).witnesses
    shortest = min(witnesses, default=None)
    return Weakness(variant, prop, minimal, SOURCE, kept_by,
                    (shortest.trace, shortest.steps) if shortest and shortest.trace else None)


MECHANISMS = (("tagged", "tags"), ("references_first", "references first"),
              ("late_miss_reprocess", "late-miss reprocessing"),
              ("resends_bypass_shadow", "resends that bypass the shadow"))
"""The knobs a removal names, in the words it uses."""


def _mechanisms(kept_by: Iterable[str]) -> str:
    """` (tags)`: the named mechanisms every variant in `kept_by` has and no other variant
    has, which is what the keep rests on; empty where none is."""
    from spec import VARIANTS

    keepers = [v for v in VARIANTS if v.name in set(kept_by)]
    others = [v for v in VARIANTS if v not in keepers]
    named = [words for knob, words in MECHANISMS
             if all(getattr(v, knob) for v in keepers)
             and not any(getattr(v, knob) for v in others)]
    return f" ({', '.join(named)})" if keepers and named else ""


def trace_sources(config: Config, actions: Iterable[Action]) -> SourceIds:
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
    return Environment.of(used).sources
