"""A design's witnesses as files: one JSON document per (environment, property), naming the
design, variant, environment and property and listing the actions (`action_to_json`), which
`conform --design NAME --replay FILE` runs against an implementation.

    {"design": "shm", "variant": "O1", "environment": ["D2"], "property": "U1",
     "actions": [{"action": "Submit", ...}, ...]}

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

from spec.designs.base import Design, source_order
from spec.designs.registry import design_named

SHM_WITNESSES = Path("docs") / "results" / "designs" / "shm" / "witnesses"
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
        env = "+".join(sorted(self.environment, key=source_order)) or "none"
        return (f"design {self.design.name} ({self.variant}), environment {env}, property "
                f"{self.property_id or 'none'}")


def document(design: Design, variant: str, environment: frozenset[str],
             property_id: str | None, actions: Sequence[Any]) -> dict[str, Any]:
    """The JSON document of a witness (`property_id` None: a trace that claims no property,
    as a disagreement's)."""
    return {"design": design.name, "variant": variant,
            "environment": sorted(environment, key=source_order), "property": property_id,
            "actions": [design.action_to_json(a) for a in actions]}


def parse(data: Mapping[str, Any]) -> WitnessDocument:
    """A witness document's values; `BadWitness` naming what is wrong."""
    try:
        design = design_named(str(data["design"]))
        environment = frozenset(str(s) for s in data["environment"])
        variant, prop = str(data["variant"]), data["property"]
        stated = data.get("config")
        WitnessDocument(design, variant, environment, prop, (), stated).config()
        actions = tuple(design.action_from_json(a) for a in data["actions"])
    except KeyError as error:
        raise BadWitness(f"the witness has no {error}") from None
    except (ValueError, TypeError) as error:
        raise BadWitness(f"{type(error).__name__}: {error}") from None
    if prop is not None and prop not in {p.id for p in design.properties}:
        raise BadWitness(f"design {design.name!r} has no property {prop!r}")
    return WitnessDocument(design, variant, environment, prop, actions, stated)


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
