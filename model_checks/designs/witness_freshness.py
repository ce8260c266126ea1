"""Whether a design's committed witness files are what its lattice's writer
(`results.write_witnesses`) would write for their traces now: a generated artifact checked
fresh without re-running the lattice.

Each file is read (`witness_files.parse`: its recorded states are the ones the spec computes
from its actions), replayed (`exploration.replay`: its last state must break the property it
names), and rewritten from its actions alone (`witness_files.document`): every field the
writer derives must be equal, in this order: the file's name (`ENV_PROPERTY.json`), each
`#meta["paired-caches"]` field (design, variant, environment, property, instance, config,
reason), the rest of `#meta`, the variables, the length, each state, and last the bytes.
What the writer takes from the search rather than from the trace is checked against its one
source: the instance is one of the design's rungs (its configuration that rung's) or the
words of an explicit witness of that environment and property (`designs.evidence`; its
configuration and actions that witness's), and the variant, the environment's minimality
and the length are the committed answers'. Every minimal break of the committed answers has
its file. The first difference of each file is reported as a `Stale`, one line naming the
file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_checks.designs.lattice import Explicit
from model_checks.designs.results import describe
from model_checks.designs.witness_files import BadWitness, WitnessDocument, document, parse
from model_checks.explore.exploration import replay
from model_checks.kernel import itf
from spec.designs.base import Design
from spec.drift import Environment

META_FIELDS = ("design", "variant", "environment", "property", "instance", "config", "reason")
"""The fields `witness_files.document` writes in `#meta["paired-caches"]`, in its order."""


@dataclass(frozen=True)
class Stale:
    """One committed witness file that differs from what the writer would write: the file,
    the first field that differs, and how."""

    path: Path
    field: str
    detail: str

    def line(self, root: Path | None = None) -> str:
        """One line: the file (relative to `root` when under it), the field, the detail."""
        shown = self.path
        if root is not None and self.path.is_relative_to(root):
            shown = self.path.relative_to(root)
        return f"{shown}: {self.field}: {self.detail}"


@dataclass(frozen=True)
class Freshness:
    """The committed witness files of one design: how many were read, and the stale ones."""

    design: str
    files: int
    stale: tuple[Stale, ...]


def check(design: Design, answers: Mapping[str, Any], directory: Path,
          explicit: Sequence[Explicit]) -> Freshness:
    """Every witness file in `directory` fresh against `design`'s spec, its committed
    `answers` (`results.to_json`) and its `explicit` witnesses; every minimal break of the
    answers with its file."""
    files = sorted(directory.glob("*.json"))
    stale = [found for path in files
             if (found := stale_field(path, design, answers, explicit)) is not None]
    names = {path.name for path in files}
    for prop, environments in answers["minimal"].items():
        for text in environments:
            if f"{text}_{prop}.json" not in names:
                stale.append(Stale(directory / f"{text}_{prop}.json", "file",
                                   f"missing: the committed answers break {prop} under {text}"))
    return Freshness(design.name, len(files), tuple(stale))


def stale_field(path: Path, design: Design, answers: Mapping[str, Any],
                explicit: Sequence[Explicit]) -> Stale | None:
    """The first field of the witness in `path` that differs from what the writer would
    write for its trace now (see the module docstring), else None."""
    try:
        data = itf.load(path)
        if not itf.is_trace(data):
            return Stale(path, "#meta", "not an ITF document with the project's metadata")
        found = parse(data)
    except (itf.BadTraceFile, BadWitness) as error:
        return Stale(path, "trace", str(error))
    written = itf.project(data)
    if found.design.name != design.name:
        return _differs(path, "#meta.design", found.design.name, design.name)
    if found.variant != answers["variant"]:
        return _differs(path, "#meta.variant", found.variant, answers["variant"])
    if found.property_id is None:
        return Stale(path, "#meta.property", "none: a witness names the property it breaks")
    environment = Environment.of(found.environment).text
    name = f"{environment}_{found.property_id}.json"
    if path.name != name:
        return _differs(path, "file name", path.name, name)
    answer = answers["answers"].get(found.property_id, {}).get(environment)
    if environment not in answers["minimal"].get(found.property_id, []) or answer is None:
        return Stale(path, "#meta.environment", f"{environment} is not a minimal breaking set "
                     f"of {found.property_id} in the committed answers")
    prop = next(p for p in design.properties if p.id == found.property_id)
    reasons = replay(design, found.config(), found.actions, prop)
    if not reasons:
        return Stale(path, "states", f"the last state does not break {prop.id}")
    origin = _origin(path, found, written.get("instance"), explicit)
    if isinstance(origin, Stale):
        return origin
    instance, config, actions = origin
    for index, (mine, theirs) in enumerate(zip(found.actions, actions, strict=False)):
        if mine != theirs:
            return Stale(path, f"states[{index + 1}]", "the action differs from the explicit "
                         "witness's (model_checks.designs.evidence)")
    if len(found.actions) != len(actions):
        return _differs(path, "length", len(found.actions), len(actions))
    try:  # the reason as the writer has it: its trace's on its instance
        reasons = replay(design, config, actions, prop)
    except ValueError as error:
        return Stale(path, "#meta.config", f"the trace does not replay on the instance the "
                     f"writer names ({instance}): {error}")
    if not reasons:
        return Stale(path, "#meta.config", f"the last state does not break {prop.id} on the "
                     f"instance the writer names ({instance})")
    expected = document(WitnessDocument(design, found.variant, found.environment, prop.id,
                                        actions, describe(config)), instance, "; ".join(reasons))
    differs = _first_difference(path, data, expected)
    if differs is not None:
        return differs
    if answer.get("steps") != len(actions):
        return _differs(path, "length", len(actions), answer.get("steps"))
    if answer.get("basis") != instance:
        return _differs(path, "#meta.instance", instance, answer.get("basis"))
    return None


def _origin(path: Path, found: WitnessDocument, instance: object,
            explicit: Sequence[Explicit]
            ) -> tuple[str, Any, tuple[Any, ...]] | Stale:
    """The instance words, configuration and actions the writer takes from the search for
    this trace: a rung's (its words, its configuration, the trace's actions), or an explicit
    witness's (its words, configuration and actions); a `Stale` where the file names neither."""
    design = found.design
    if isinstance(instance, str) and instance in design.rungs:
        rung = design.rungs.index(instance)
        config = design.instance(found.variant, found.environment, rung)
        return instance, config, found.actions
    for witness in explicit:
        if (witness.environment, witness.property_id, witness.instance) == (
                found.environment, found.property_id, instance):
            return witness.instance, witness.config, witness.actions
    return Stale(path, "#meta.instance", f"{_shown(instance)} is neither a rung of "
                 f"{design.name}'s ladder ({'; '.join(design.rungs)}) nor the words of an "
                 f"explicit witness of {found.property_id} under "
                 f"{Environment.of(found.environment).text}")


def _first_difference(path: Path, data: Mapping[str, Any], expected: Mapping[str, Any]
                      ) -> Stale | None:
    written, wanted = itf.project(data), itf.project(expected)
    for key in (*META_FIELDS, *sorted(set(written) | set(wanted))):
        if written.get(key) != wanted.get(key):
            return _differs(path, f"#meta.{key}", written.get(key), wanted.get(key))
    for key in sorted(set(data["#meta"]) | set(expected["#meta"])):
        if data["#meta"].get(key) != expected["#meta"].get(key):
            return _differs(path, f"#meta.{key}", data["#meta"].get(key),
                            expected["#meta"].get(key))
    if data.get("vars") != expected["vars"]:
        return _differs(path, "vars", data.get("vars"), expected["vars"])
    states, wanted_states = data["states"], expected["states"]
    if len(states) != len(wanted_states):
        return _differs(path, "length", len(states) - 1, len(wanted_states) - 1)
    if states != wanted_states:
        return _differs(path, "states", states, wanted_states)
    if path.read_text() != itf.text(expected):
        return Stale(path, "bytes", "the same document, not in the writer's layout "
                     "(kernel.itf.text)")
    return None


def _differs(path: Path, field: str, found: object, wanted: object) -> Stale:
    """The first place where `found` and `wanted` differ, inside mappings and lists alike
    (`field.key`, `field[index]`), as a `Stale` showing both values there."""
    while True:
        if isinstance(found, Mapping) and isinstance(wanted, Mapping):
            key = next(k for k in (*wanted, *found) if found.get(k, _ABSENT) !=
                       wanted.get(k, _ABSENT))
            field, found, wanted = f"{field}.{key}", found.get(key, _ABSENT), \
                wanted.get(key, _ABSENT)
        elif isinstance(found, list) and isinstance(wanted, list) and len(found) == len(wanted):
            index = next(i for i, (a, b) in enumerate(zip(found, wanted, strict=True)) if a != b)
            field, found, wanted = f"{field}[{index}]", found[index], wanted[index]
        else:
            return Stale(path, field, f"{_shown(found)}, the writer writes {_shown(wanted)}")


class _Absent:
    def __repr__(self) -> str:
        return "absent"


_ABSENT = _Absent()
"""A key one side of a comparison has not."""


def _shown(value: object, limit: int = 100) -> str:
    if value is _ABSENT:
        return "absent"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[:limit - 3] + "..."
