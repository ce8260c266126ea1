"""A design's lattice as JSON (the committed evidence the docs render) and its witnesses as
files, one per minimal breaking set and property, each replayable on the spec and, with an
adapter, on an implementation (`conform --design NAME --replay FILE`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from model_checks.designs.lattice import LatticeResult
from model_checks.designs.witness_files import WitnessDocument, document
from model_checks.explore.exploration import subsets
from model_checks.kernel import itf
from spec.designs import design_named
from spec.designs.compose import ComposedConfig, ComposedDesign
from spec.drift import Environment


def describe(config: Any) -> dict[str, Any]:
    """An instance's constants, without its environment, variant or knobs (a composition's:
    each stage's, in path order)."""
    if isinstance(config, ComposedConfig):
        return {"stages": [describe(c) for c in config.configs]}
    left_out = {"environment", "variant", "knobs"}
    return {f.name: _plain(getattr(config, f.name)) for f in dataclasses.fields(config)
            if not f.name.startswith("_") and f.name not in left_out}


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: _plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, (tuple, list, frozenset)):
        return [_plain(v) for v in value]
    return value


def to_json(result: LatticeResult) -> dict[str, Any]:
    design = design_named(result.design)
    every = subsets(result.sources)
    stages = [{"design": st.design.name, "variant": st.variant, "prefix": st.prefix}
              for st in design.stages] if isinstance(design, ComposedDesign) else []
    return {
        "design": design.name, "title": design.title, "variant": result.variant,
        **({"stages": stages} if stages else {}),
        "sources": [{"id": s.id, "title": s.title, "effect": s.effect} for s in design.sources],
        "refused": dict(design.refused),
        "properties": [{"id": p.id, "title": p.title, "statement": p.statement,
                        "scope": p.scope.value} for p in design.properties],
        "max_states": result.max_states, "sizes": list(result.sizes),
        "base_instance": describe(design.instance(result.variant, frozenset())),
        "proofs": result.proofs,
        "restricted": [{"property": p, "environment": Environment.of(e).text, "basis": b}
                       for p, e, b in result.restricted],
        "explorations": [_exploration(rung, design.rungs[rung], e, x)
                         for (rung, e), x in sorted(result.explorations.items(),
                                                    key=lambda i: (i[0][0], len(i[0][1]),
                                                                   Environment.of(i[0][1]).text))],
        "minimal": {p: [Environment.of(b.environment).text for b in breaks]
                    for p, breaks in result.minimal.items()},
        "answers": {p.id: {Environment.of(e).text: dataclasses.asdict(result.answer(e, p.id))
                           for e in every}
                    for p in design.properties},
    }


def _exploration(rung: int, words: str, environment: frozenset[str], found: Any
                 ) -> dict[str, Any]:
    return {"rung": rung, "rung_words": words, "environment": Environment.of(environment).text,
            "states": found.states,
            "transitions": found.transitions, "depth": found.depth,
            "complete": found.complete,
            "verdicts": {w.property_id: "breaks" for w in found.witnesses}}


def write_witnesses(result: LatticeResult, directory: Path) -> list[Path]:
    """One ITF witness (`witness_files.document`) per minimal breaking set and property:
    `ENV_PROPERTY.json`."""
    design = design_named(result.design)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for property_id, breaks in result.minimal.items():
        for found in breaks:
            path = directory / f"{Environment.of(found.environment).text}_{property_id}.json"
            witness = WitnessDocument(design, result.variant, found.environment, property_id,
                                      tuple(found.actions), describe(found.config))
            itf.write_trace(path, document(witness, found.instance, found.reason))
            written.append(path)
    return written
