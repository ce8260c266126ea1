"""The answer store: every fact the project has established, and the one rule that turns them
into an answer for any (variant, environment, property).

Facts are kept per (variant, property): the replayed witnesses (each breaks the property under
its environment and, since an environment only enables behaviour, under every environment
containing it), the holds (a proof or search, covering its environment, and every environment
inside it where it is `downward`), and why the variant cannot break it at all (vacuous). The
answer applies them in one order: a known break first (never hidden behind a hold of a smaller
instance), then vacuous, then the widest hold that covers the environment, else undecided.
The store is serialised as package data (`answers.json` beside this module), so an installed
package answers exactly as the checkout does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from model_checks.answers.model import Answer, Hold, Reach, Verdict, Witness
from spec.drift import Environment

STORE_PATH = Path(__file__).resolve().parent / "answers.json"
"""The committed store (package data), written by `python -m model_checks docs`."""
FORMAT = "paired-caches-answers/1"

SourceIds = tuple[str, ...]


class AnswerStoreError(Exception):
    """The store cannot be read or contradicts itself; the message is one line saying why."""


def ordered(env: Iterable[str]) -> SourceIds:
    """An environment in the one order every page uses (drift ids by number, names last)."""
    items = set(env)
    ids = sorted((d for d in items if d[1:].isdigit()), key=lambda d: int(d[1:]))
    return (*ids, *sorted(items - set(ids)))


@dataclass(frozen=True)
class Facts:
    """What is established about one (variant, property)."""

    witnesses: tuple[Witness, ...] = ()
    holds: tuple[Hold, ...] = ()
    vacuous: str = ""

    def minimal_breaking(self) -> tuple[SourceIds, ...]:
        """The environments of the witnesses with no other witness's environment inside."""
        envs = {frozenset(w.environment) for w in self.witnesses}
        least = [e for e in envs if not any(o < e for o in envs)]
        return tuple(sorted((ordered(e) for e in least),
                            key=lambda e: (len(e), [_rank(d) for d in e])))

    def merged(self, other: Facts) -> Facts:
        return Facts(_lean_witnesses((*self.witnesses, *other.witnesses)),
                     _lean_holds((*self.holds, *other.holds)), self.vacuous or other.vacuous)


def _rank(source: str) -> int:
    return int(source[1:]) if source[1:].isdigit() else 100


def _lean_witnesses(witnesses: Iterable[Witness]) -> tuple[Witness, ...]:
    """Drop each witness another makes redundant (`_outdoes`)."""
    pool = sorted(set(witnesses))
    return tuple(w for w in pool if not any(_outdoes(o, w) for o in pool))


def _outdoes(o: Witness, w: Witness) -> bool:
    """`o` breaks inside `w`'s environment in no more steps (ties: the first in order)."""
    if o == w or not set(o.environment) <= set(w.environment) or o.steps > w.steps:
        return False
    return o.environment != w.environment or o.steps < w.steps or o < w


def _dominates(a: Hold, b: Hold) -> bool:
    """`a` covers everything `b` covers, at least as far."""
    covers = a.covers(frozenset(b.environment)) and (a.downward or not b.downward)
    return covers and (a.reach, a.extent) >= (b.reach, b.extent)


def _lean_holds(holds: Iterable[Hold]) -> tuple[Hold, ...]:
    pool = sorted(set(holds), key=lambda h: (-h.reach, -h.extent, h.environment, h.checker,
                                             h.instance, h.downward))
    kept: list[Hold] = []
    for hold in pool:
        if not any(_dominates(k, hold) for k in kept):
            kept.append(hold)
    return tuple(kept)


@dataclass(frozen=True)
class AnswerStore:
    """Facts per (variant, property), and the answer rule (`answer`)."""

    facts: Mapping[tuple[str, str], Facts]
    sources: tuple[str, ...] = field(default=())
    """The evidence files the store was built from (relative to the repository root)."""

    def of(self, variant: str, prop: str) -> Facts:
        return self.facts.get((variant, prop), Facts())

    def answer(self, variant: str, environment: Iterable[str], prop: str) -> Answer:
        """The answer under `environment` (drift ids, or a configuration's name)."""
        env = frozenset(environment)
        facts = self.of(variant, prop)
        shown = ordered(env)
        inside = [w for w in facts.witnesses if set(w.environment) <= env]
        if inside:
            w = min(inside)
            return Answer(variant, shown, prop, Verdict.BREAKS, None, w.instance, w.checker, w)
        if facts.vacuous:
            return Answer(variant, shown, prop, Verdict.VACUOUS, Reach.EVERY_INSTANCE, "",
                          "the variant's definition", None, facts.vacuous)
        covering = [h for h in facts.holds if h.covers(env)]
        if not covering:
            return Answer(variant, shown, prop, Verdict.UNDECIDED, None, "", "", None,
                          "no known break, and no proof or search covers this environment")
        best = max(covering, key=lambda h: (h.reach, h.extent, h.downward))
        instance = "" if best.reach is Reach.EVERY_INSTANCE else best.instance
        return Answer(variant, shown, prop, Verdict.HOLDS, best.reach, instance, best.checker,
                      None)

    def minimal_breaking(self, variant: str, prop: str) -> tuple[SourceIds, ...]:
        return self.of(variant, prop).minimal_breaking()

    def with_facts(self, more: Mapping[tuple[str, str], Facts]) -> AnswerStore:
        """This store with more evidence (a run's records, say) merged in."""
        merged = dict(self.facts)
        for key, facts in more.items():
            merged[key] = merged[key].merged(facts) if key in merged else facts.merged(Facts())
        return AnswerStore(merged, self.sources)

    def contradictions(self) -> list[str]:
        """Every all-instance hold with a witness inside its environment: a defect of an
        abstraction or of a replay, never an answer."""
        found = []
        for (variant, prop), facts in sorted(self.facts.items()):
            for hold in facts.holds:
                if hold.reach is not Reach.EVERY_INSTANCE:
                    continue
                for w in facts.witnesses:
                    if hold.covers(frozenset(w.environment)):
                        found.append(f"{variant} {prop}: proved for every instance under "
                                     f"{Environment.of(hold.environment).text} ({hold.checker}),"
                                     f" yet broken by {w.trace or w.checker} under "
                                     f"{Environment.of(w.environment).text}")
        return found

    # -- serialisation -------------------------------------------------------------------

    def to_json(self) -> str:
        entries = [
            {"variant": v, "property": p, "vacuous": f.vacuous,
             "witnesses": [[w.steps, list(w.environment), w.checker, w.instance, w.trace]
                           for w in f.witnesses],
             "holds": [[list(h.environment), h.reach.name, h.checker, h.instance, h.downward,
                        h.extent] for h in f.holds]}
            for (v, p), f in sorted(self.facts.items())
        ]
        data = {"format": FORMAT, "sources": list(self.sources), "facts": entries}
        return json.dumps(data, indent=0, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "the answer store") -> AnswerStore:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, expected {FORMAT!r}")
            facts = {(str(e["variant"]), str(e["property"])): _facts(e) for e in data["facts"]}
            return cls(facts, tuple(str(s) for s in data.get("sources", ())))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise AnswerStoreError(f"{where}: unreadable ({error})") from None


def _facts(entry: Mapping[str, Any]) -> Facts:
    witnesses = tuple(Witness(int(s), tuple(env), str(c), str(i), str(t))
                      for s, env, c, i, t in entry["witnesses"])
    holds = tuple(Hold(tuple(env), Reach[reach], str(c), str(i), bool(down), int(extent))
                  for env, reach, c, i, down, extent in entry["holds"])
    return Facts(witnesses, holds, str(entry.get("vacuous", "")))


@cache
def load(path: Path = STORE_PATH) -> AnswerStore:
    """The committed store (read once per process); `AnswerStoreError` if it is unreadable."""
    try:
        text = path.read_text()
    except OSError as error:
        raise AnswerStoreError(f"{path}: cannot read the answer store ({error})") from None
    return AnswerStore.from_json(text, str(path))
