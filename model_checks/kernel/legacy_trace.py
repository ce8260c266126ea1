"""The layouts of the trace formats written before ITF (`model_checks.kernel.itf`), read for one
release: a `paired-caches-trace/1` file of the key-replicated spec (`#meta`, `config`, and
per state its `action`, `args` and `state`) and a design's witness document (`design`,
`variant`, `environment`, `property` and its `actions`). Nothing writes them any more.

This module only takes an old document apart (`OldTrace`, `old_witness`) and says once per
process on stderr that an old document was read; `trace_file.replay_data` and
`designs.witness_files.parse` rebuild and check the run from the parts, as for an ITF
document, so pytest files emitted before, which embed a witness document, keep running.
`trace_file.upgraded` and `witness_files.upgraded` give an old document's ITF document
(`python -m model_checks replay OLD --itf NEW` writes one).
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FORMAT = "paired-caches-trace/1"
_warned: list[str] = []
"""The deprecation line once printed (a process prints it once)."""


def warn() -> None:
    """Say once on stderr that an old trace was read and how to convert it."""
    if not _warned:
        _warned.append(FORMAT)
        print(f"warning: a trace in the old format ({FORMAT} or an actions-only witness) was "
              "read, which is read for one release only: convert a trace file with "
              "`python -m model_checks replay OLD --itf NEW`, emit a pytest file again with "
              "`conform --emit-pytest`", file=sys.stderr)


def is_old_trace(data: object) -> bool:
    """Whether `data` is a trace of the spec in the old format."""
    meta = data.get("#meta") if isinstance(data, dict) else None
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def is_old_witness(data: object) -> bool:
    """Whether `data` is a design's witness in the old format (its actions only)."""
    return isinstance(data, dict) and "design" in data and "actions" in data


@dataclass(frozen=True)
class OldTrace:
    """An old trace's parts: its `#meta` fields (`cycle_from` among them for a lasso), the
    configuration's JSON, each step's label and arguments, each recorded state as `to_json`
    wrote it, and where the fair scheduler took over."""

    meta: Mapping[str, Any]
    config: Mapping[str, Any]
    steps: Sequence[tuple[str, Mapping[str, Any]]]
    states: Sequence[Any]
    fair_from: int | None


def old_trace(data: Mapping[str, Any]) -> OldTrace:
    """The parts of an old trace (`KeyError`, `TypeError` where one is missing)."""
    warn()
    states = data["states"]
    fair = [s["#meta"]["index"] for s in states if s.get("fair")]
    return OldTrace(data["#meta"], data["config"], [(s["action"], s["args"]) for s in states[1:]],
                    [s["state"] for s in states], min(fair) - 1 if fair else None)


def old_witness(data: Mapping[str, Any]) -> tuple[dict[str, Any], list[Mapping[str, Any]]]:
    """An old witness as the metadata an ITF witness holds and its actions' JSON."""
    warn()
    meta = {k: data[k] for k in ("design", "variant", "environment", "property")}
    meta |= {k: data[k] for k in ("instance", "config", "reason") if k in data}
    return meta, list(data["actions"])


_OMITTED_AT_DEFAULT = frozenset({"other_receivers", "engine"})
"""The router's fields the old format left out where they held their default."""


def to_json(value: object, tagged: tuple[type, ...] = ()) -> Any:
    """A value as the old format wrote it: dataclasses as objects (the router's fields only
    where they differ from their default; a value of a class in `tagged`, its design's
    `trace_tags`, with its class's name as `#type`), enums by value, tuples and sets as
    lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: to_json(getattr(value, f.name), tagged)
                for f in dataclasses.fields(value)
                if f.name not in _OMITTED_AT_DEFAULT or getattr(value, f.name) != f.default}
        if isinstance(value, tagged):
            data["#type"] = type(value).__name__
        return data
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_json(v, tagged) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_json(v, tagged) for v in value]
    if isinstance(value, frozenset | set):
        return sorted(to_json(v, tagged) for v in value)
    return value
