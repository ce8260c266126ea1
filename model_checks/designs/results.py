"""A design's lattice as JSON (the committed evidence the docs render) and its witnesses as
files, one per minimal breaking set and property, each replayable on the spec and, with an
adapter, on an implementation (`conform --design NAME --replay FILE`)."""

from __future__ import annotations

import dataclasses
import json
from itertools import combinations
from pathlib import Path
from typing import Any

from spec.designs import design_named
from model_checks.designs.lattice import LatticeResult, name


def describe(config: Any) -> dict[str, Any]:
    """An instance's constants, without its environment, variant or knobs."""
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
    every = [frozenset(c) for k in range(len(result.sources) + 1)
             for c in combinations(result.sources, k)]
    return {
        "design": design.name, "title": design.title, "variant": result.variant,
        "sources": [{"id": s.id, "title": s.title, "effect": s.effect} for s in design.sources],
        "refused": dict(design.refused),
        "properties": [{"id": p.id, "title": p.title, "statement": p.statement,
                        "scope": p.scope.value} for p in design.properties],
        "max_states": result.max_states, "max_size": result.max_size,
        "base_instance": describe(design.instance(result.variant, frozenset())),
        "proofs": result.proofs,
        "explorations": [_exploration(e, x) for e, x in sorted(
            result.explorations.items(), key=lambda item: (len(item[0]), name(item[0])))],
        "minimal": {p: [name(e) for e in envs] for p, envs in result.minimal.items()},
        "answers": {p.id: {name(e): dataclasses.asdict(result.answer(e, p.id)) for e in every}
                    for p in design.properties},
    }


def _exploration(environment: frozenset[str], found: Any) -> dict[str, Any]:
    return {"environment": name(environment), "states": found.states,
            "transitions": found.transitions, "depth": found.depth,
            "complete": found.complete,
            "verdicts": {w.property_id: "breaks" for w in found.witnesses}}


def write_witnesses(result: LatticeResult, directory: Path) -> list[Path]:
    """One JSON file per minimal breaking set and property: `ENV_PROPERTY.json`."""
    design = design_named(result.design)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for property_id, environments in result.minimal.items():
        for environment in environments:
            found = result.explorations[environment].witness(property_id)
            assert found is not None
            path = directory / f"{name(environment)}_{property_id}.json"
            path.write_text(json.dumps({
                "design": design.name, "variant": result.variant,
                "environment": sorted(environment), "property": property_id,
                "reason": found.reason,
                "actions": [design.action_to_json(a) for a in found.actions],
            }, indent=1) + "\n")
            written.append(path)
    return written
