"""All-instance answers of the encoder design and of the composed path, each resting on
premises this module checks (a premise that fails withdraws the answer, as a failed proof
does) or on the project's committed all-instance answers.

- `ONE_CONTENT`: without identity reuse (D7) every content of an identity is its version
  0 (both stages' configurations refuse a second version without D7), so an item's data,
  its placeholders, the content the client sent and any encoder output cached under its
  identity describe one content, of one size: the properties that compare them (S1, S4) and
  the model's merge (S3: an output's number of embeddings is its placeholders') cannot
  fail, in any instance.
- The path's first stage, the processor cache, evolves as it does alone (links only hand
  work forward), so each of its properties holds under an environment wherever the project's
  answer for V2 holds for every instance there (`model_checks.answers`).
"""

from __future__ import annotations

from collections.abc import Iterable

from model_checks.answers import load
from model_checks.answers.model import Answer, Reach, Verdict
from model_checks.explore.exploration import subsets
from spec.config import InvalidConfiguration
from spec.designs.base import source_order
from spec.designs.encoder.config import EncoderConfig
from spec.designs.paths import PROCESSOR_THEN_ENCODER
from spec.variants import variant_named

Restricted = tuple[str, frozenset[str], str]

ONE_CONTENT = ("for every instance: one content per identity without D7 (an item's data, "
               "placeholders and cached output describe one content, of one size)")
FIRST_STAGE = ("for every instance: the processor cache's own answer for V2 "
               "(`model_checks.answers`; the first stage evolves as it does alone)")


def _one_content_premise() -> bool:
    """Neither stage admits a second content of an identity without D7."""
    try:
        EncoderConfig(versions=2)
    except InvalidConfiguration:
        pass
    else:
        return False
    lru = PROCESSOR_THEN_ENCODER.instance("V2+EC", frozenset()).configs[0]
    try:
        type(lru)(identities=lru.identities, budget=lru.budget, versions=2,
                  variant=lru.variant)
    except InvalidConfiguration:
        return True
    return False


def _no_processor_fault() -> bool:
    """V2 reports a miss instead of crashing, and its LRUs have no ghost key (the only way
    an eviction hangs): the processor cache's state never faults."""
    v2 = variant_named("V2")
    return v2.reports_misses and v2.shadow_lru.name == "NONE" and \
        v2.receiver_lru.name == "NONE"


def encoder_restricted() -> list[Restricted]:
    """The encoder design's all-instance answers."""
    every = frozenset({"D1", "D7", "R1"})
    found: list[Restricted] = []
    if _one_content_premise():
        found += [(p, every - {"D7"}, ONE_CONTENT) for p in ("S1", "S3", "S4")]
    return found


def path_restricted() -> list[Restricted]:
    """The composed path's all-instance answers."""
    sources = frozenset(s.id for s in PROCESSOR_THEN_ENCODER.sources)
    found: list[Restricted] = []
    if _one_content_premise():
        stage = ["E.S1", "E.S3", "E.S4"]  # P.S1, P.S4: the first stage's own answers
        found += [(p, sources - {"D7"}, ONE_CONTENT) for p in stage]
        if _no_processor_fault():
            found.append(("E2E", sources - {"D7"}, ONE_CONTENT + "; V2's processor cache "
                          "never faults (it reports misses, its LRUs have no ghost key)"))
    found += _first_stage(sources)
    return found


def _first_stage(sources: frozenset[str]) -> list[Restricted]:
    store = load()
    lru = tuple(s for s in sorted(sources, key=source_order) if s.startswith("D"))
    found: list[Restricted] = []
    carried = {p.id for p in PROCESSOR_THEN_ENCODER.properties}
    for prop in (p for p in ("S1", "S2", "S3", "S4", "H1") if f"P.{p}" in carried):
        held = [env for env in subsets(lru)
                if _holds_everywhere(store.answer("V2", tuple(sorted(env, key=source_order)),
                                                  prop))]
        for env in _maximal(held):
            found.append((f"P.{prop}", env | (sources - frozenset(lru)), FIRST_STAGE))
    return found


def _holds_everywhere(answer: Answer) -> bool:
    return answer.verdict is Verdict.HOLDS and answer.reach is Reach.EVERY_INSTANCE


def _maximal(sets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    found = list(sets)
    return sorted((s for s in found if not any(s < o for o in found)),
                  key=lambda s: sorted(s, key=source_order))
