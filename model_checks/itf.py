"""A spec trace in the Informal Trace Format (ITF), which Apalache and Quint read and write.

`python -m model_checks replay FILE --itf OUT` writes it. The format (Apalache's ADR-015):
an object with `#meta` (here `format` "ITF", `format-description`, `source`, `description`,
and the variant, environment and property of the trace), `params` (none), `vars` (the names
of the state variables) and `states`, each an object with its own `#meta` (`index`, from 0)
and one value per variable. Values:

- integers as `{"#bigint": "<digits>"}` (as Quint writes every integer), strings and
  booleans as JSON's, enums by their value (a string);
- the spec's tuples (LRU order, requests, messages) as JSON arrays (ITF sequences);
- frozensets as `{"#set": [...]}`, dicts as `{"#map": [[key, value], ...]}`;
- dataclasses as ITF records (a JSON object keyed by field name);
- None as the variant `{"tag": "None", "value": {"#tup": []}}`, an LRU entry and a ghost key
  as the variants `{"tag": "Entry" | "Ghost", "value": record}`.

The variables are the spec state's fields, then `action` (the label of the step that led
to the state, "init" for the first) and `action_args` (its arguments, a record). The
JSON schema the tests validate it against is `model_checks/itf.schema.json` (a variant
`{"tag", "value"}` is an ITF record of those two fields).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spec import Trace
from spec.lru import Entry, Ghost
from spec.state import State

FORMAT_DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
ACTION_VARS = ("action", "action_args")

_NONE = {"tag": "None", "value": {"#tup": []}}


def value(obj: object) -> Any:
    """One spec value in ITF's encoding (the module docstring)."""
    if obj is None:
        return _NONE
    if isinstance(obj, bool | str):
        return obj
    if isinstance(obj, enum.Enum):
        return value(obj.value)
    if isinstance(obj, int):
        return {"#bigint": str(obj)}
    if isinstance(obj, Entry | Ghost):
        return {"tag": type(obj).__name__, "value": _record(obj)}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _record(obj)
    if isinstance(obj, Mapping):
        return {"#map": [[value(k), value(v)] for k, v in obj.items()]}
    if isinstance(obj, frozenset | set):
        members = [value(v) for v in obj]
        return {"#set": sorted(members, key=lambda m: json.dumps(m, sort_keys=True))}
    if isinstance(obj, tuple | list):
        return [value(v) for v in obj]
    raise TypeError(f"got {type(obj).__name__}, expected a spec value")


def _record(obj: Any) -> dict[str, Any]:
    return {f.name: value(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


def state_vars() -> tuple[str, ...]:
    """The ITF variables: the spec state's fields, then the step's action and arguments."""
    return (*(f.name for f in dataclasses.fields(State)), *ACTION_VARS)


def trace(spec_trace: Trace, *, source: str, description: str,
          property_id: str) -> dict[str, Any]:
    """`spec_trace` as an ITF object."""
    config = spec_trace.config
    states = [_state(0, spec_trace.initial, "init", {})]
    for number, taken in enumerate(spec_trace.steps, start=1):
        args = {f.name: getattr(taken.action, f.name)
                for f in dataclasses.fields(taken.action)}
        states.append(_state(number, taken.state, taken.action.label, args))
    return {
        "#meta": {
            "format": "ITF", "format-description": FORMAT_DESCRIPTION, "source": source,
            "description": description, "variant": config.variant.name,
            "environment": sorted(d.value for d in config.environment),
            "property": property_id,
        },
        "params": [],
        "vars": list(state_vars()),
        "states": states,
    }


def _state(index: int, state: State, label: str, args: Mapping[str, object]) -> dict[str, Any]:
    entry: dict[str, Any] = {"#meta": {"index": index}}
    for f in dataclasses.fields(State):
        entry[f.name] = value(getattr(state, f.name))
    entry["action"] = label
    entry["action_args"] = {name: value(arg) for name, arg in args.items()}
    return entry


def write(path: Path, data: Mapping[str, Any]) -> None:
    """Write the ITF object (raises OSError if the path cannot be written)."""
    path.write_text(json.dumps(data, indent=1) + "\n")
