"""A design's witnesses as files: one ITF document per (environment, property)
(`model_checks.kernel.itf`), its states the design's spec computes from the actions and its
`#meta["paired-caches"]` naming the design, variant, environment and property, which
`conform --design NAME --replay FILE` runs against an implementation.

    {"#meta": {"format": "ITF", ..., "paired-caches": {"design": "shm", "variant": "O1",
     "environment": ["D2"], "property": "U1", ...}}, "vars": [...], "states": [...]}

The instance a document names is the configuration it states (`config`, the design's
`config_from_json`: a witness found on a larger instance than the ladder's), else
`design.instance(variant, environment)`. The lattice writes them
(`model_checks.designs.results.write_witnesses`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_checks.kernel import itf, legacy_trace
from spec.designs.base import Design, source_order
from spec.designs.registry import design_named
from spec.drift import Environment
from spec.transitions import InvalidAction


def witnesses_of(design: str) -> Path:
    """Where a design's committed witnesses are, from the repository's root."""
    return Path("docs") / "results" / "designs" / design / "witnesses"


SHM_WITNESSES = witnesses_of("shm")
"""Where the shared-memory design's committed witnesses are, from the repository's root."""


class BadWitness(ValueError):
    """A document that is not a witness of a known design, variant, environment and
    property, or whose actions do not parse."""


@dataclass(frozen=True)
class WitnessDocument:
    """A parsed witness: its design, instance and actions."""

    design: Design
    variant: str
    environment: frozenset[str]
    property_id: str | None
    actions: tuple[Any, ...]
    stated: Mapping[str, Any] | None = None

    def config(self) -> Any:
        """The configuration the document states, else its environment's base instance."""
        if self.stated is not None:
            return self.design.config_from_json(self.stated, self.variant, self.environment)
        return self.design.instance(self.variant, self.environment)

    def label(self) -> str:
        env = Environment.of(self.environment).text
        return (f"design {self.design.name} ({self.variant}), environment {env}, property "
                f"{self.property_id or 'none'}")


def document(found: WitnessDocument, instance: str | None = None, reason: str | None = None
             ) -> dict[str, Any]:
    """The ITF document of a witness (`model_checks.kernel.itf.document`): its states, rebuilt
    on the design's spec from its actions, and in `#meta["paired-caches"]` the design, variant,
    environment, property (None: a trace that claims no property, as a disagreement's), the
    stated configuration and, where known, the instance in words and the reason it breaks."""
    design, config = found.design, found.config()
    meta: dict[str, Any] = {
        "design": design.name, "variant": found.variant,
        "environment": sorted(found.environment, key=source_order),
        "property": found.property_id}
    if instance is not None:
        meta["instance"] = instance
    if found.stated is not None:
        meta["config"] = dict(found.stated)
    if reason is not None:
        meta["reason"] = reason
    return itf.document(_states(design, config, found.actions),
                        itf.design_steps(design, found.actions), meta, tagged=design.trace_tags)


def _states(design: Design, config: Any, actions: Sequence[Any]) -> list[Any]:
    states = [design.initial(config)]
    for action in actions:
        states.append(design.step(config, states[-1], action))
    return states


def parse(data: Mapping[str, Any]) -> WitnessDocument:
    """A witness document's values, its recorded states checked against the spec's;
    `BadWitness` naming what is wrong. A document in the old format (its actions only, taken
    apart by `model_checks.kernel.legacy_trace`, which says so on stderr) is read too."""
    try:
        if legacy_trace.is_old_witness(data):
            meta, actions = legacy_trace.old_witness(data)
            return _parsed(meta, [design_named(str(meta["design"])).action_from_json(a)
                                  for a in actions])
        meta = itf.project(data)
        found = _parsed(meta, itf.design_actions(design_named(str(meta["design"])),
                                                 itf.actions(data)))
        differs = itf.differing_state(data, _states(found.design, found.config(),
                                                    found.actions), found.design.trace_tags)
    except BadWitness:
        raise
    except InvalidAction as error:
        raise BadWitness(f"the trace does not replay on the spec: {error}") from None
    except KeyError as error:
        raise BadWitness(f"the witness has no {error}") from None
    except (ValueError, TypeError) as error:
        raise BadWitness(f"{type(error).__name__}: {error}") from None
    if differs is not None:
        raise BadWitness(f"state {differs}: the recorded state differs from the one the "
                         "spec computes")
    return found


def _parsed(meta: Mapping[str, Any], actions: Sequence[Any]) -> WitnessDocument:
    """The witness `meta` names, with `actions`; `BadWitness` for an unknown property."""
    design = design_named(str(meta["design"]))
    environment = frozenset(str(s) for s in meta["environment"])
    variant, prop = str(meta["variant"]), meta["property"]
    found = WitnessDocument(design, variant, environment, prop, tuple(actions),
                            meta.get("config"))
    found.config()
    if prop is not None and prop not in {p.id for p in design.properties}:
        raise BadWitness(f"design {design.name!r} has no property {prop!r}")
    return found


def upgraded(data: Mapping[str, Any]) -> dict[str, Any]:
    """The ITF document of a witness document: itself, or an old-format witness's (its
    instance and reason kept)."""
    if not legacy_trace.is_old_witness(data):
        return dict(data)
    meta, _ = legacy_trace.old_witness(data)
    return document(parse(data), meta.get("instance"), meta.get("reason"))


def read(path: Path) -> WitnessDocument:
    """The witness in `path` (`BadWitness` where it is not one, `OSError` unread)."""
    try:
        data = json.loads(path.read_text())
    except ValueError as error:
        raise BadWitness(f"{path} is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise BadWitness(f"{path} is not a JSON object")
    return parse(data)


def committed(root: Path, directory: Path = SHM_WITNESSES) -> list[Path]:
    """The committed witness files under `root`, sorted."""
    return sorted((root / directory).glob("*.json"))
