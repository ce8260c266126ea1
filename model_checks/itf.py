"""A spec trace in the Informal Trace Format (ITF) that Apalache and Quint read.

ITF (Apalache's ADR-015) is a JSON object: `#meta`, `vars` (the state variables' names) and
`states`, one object per state with `#meta.index` and one value per variable. This writer
maps the spec's values onto ITF's expressions, one rule per Python kind:

| spec value | ITF expression |
|---|---|
| `bool`, `str` | JSON `true`/`false`, a JSON string |
| `int` | `{"#bigint": "N"}` (every integer, as Quint writes them) |
| a tuple (LRU order, oldest first; requests by index) | a list (a TLA+ sequence) |
| a frozenset or set | `{"#set": [...]}`, in sorted order |
| a dict | `{"#map": [[key, value], ...]}` |
| a frozen dataclass | a record (a JSON object of its fields) |
| an LRU slot (`Entry`, `Ghost`) | a variant `{"tag": "Entry", "value": record}` |
| an enum member | its value, a string |
| `None` | the variant `{"tag": "None", "value": {}}` (Quint's `Option`) |

Every state also carries the step that led to it as Quint's model-based-testing variables:
`mbt::actionTaken` (the action's label, `init` for the first state) and `mbt::nondetPicks`
(a record of the action's arguments). `#meta` keeps the trace's own: the variant, the
environment, the property and where it broke. The contract, checked by
`tests/test_itf.py` against the schema `model_checks/itf.schema.json`: every state has
exactly the variables of `vars`, indices count from 0, and no value is a JSON number or
null (a reader never has to guess an integer's precision or a missing field's meaning).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from pathlib import Path
from typing import Any

from model_checks.trace_file import Replayed
from spec.lru import Entry, Ghost

ACTION_TAKEN = "mbt::actionTaken"
NONDET_PICKS = "mbt::nondetPicks"
SCHEMA = Path(__file__).with_name("itf.schema.json")
"""The JSON Schema of what this module writes (a subset of ITF)."""


def expression(value: object) -> Any:
    """`value` as an ITF expression (the table of the module's docstring)."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return {"#bigint": str(value)}
    if value is None:
        return {"tag": "None", "value": {}}
    if isinstance(value, enum.Enum):
        return expression(value.value)
    if isinstance(value, Entry | Ghost):
        return {"tag": type(value).__name__, "value": _record(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _record(value)
    if isinstance(value, tuple | list):
        return [expression(v) for v in value]
    if isinstance(value, frozenset | set):
        items = [expression(v) for v in value]
        return {"#set": sorted(items, key=lambda e: json.dumps(e, sort_keys=True))}
    if isinstance(value, dict):
        return {"#map": [[expression(k), expression(v)] for k, v in value.items()]}
    raise TypeError(f"no ITF expression for a {type(value).__name__}: {value!r}")


def _record(value: Any) -> dict[str, Any]:
    return {f.name: expression(getattr(value, f.name)) for f in dataclasses.fields(value)}


def trace_to_itf(replayed: Replayed, source: str) -> dict[str, Any]:
    """The ITF document of a replayed trace file (`source`: the file it came from)."""
    trace = replayed.trace
    states = list(trace.states())
    variables = [f.name for f in dataclasses.fields(states[0])]
    actions: list[tuple[str, dict[str, Any]]] = [("init", {})]
    actions += [(s.action.label, _record(s.action)) for s in trace.steps]
    return {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": source,
            "description": _description(replayed),
            "variant": trace.config.variant.name,
            "property": replayed.property_id,
            "broken-at": replayed.step if replayed.step is not None else "not reproduced",
        },
        "vars": [ACTION_TAKEN, NONDET_PICKS, *variables],
        "states": [
            {
                "#meta": {"index": index},
                ACTION_TAKEN: label,
                NONDET_PICKS: picks,
                **{name: expression(getattr(state, name)) for name in variables},
            }
            for index, (state, (label, picks)) in enumerate(zip(states, actions, strict=True))
        ],
    }


def _description(replayed: Replayed) -> str:
    if replayed.step is None:
        return f"{replayed.property_id} not reproduced on the spec"
    return f"{replayed.property_id} broken at state {replayed.step}: {replayed.reason}"


def write_itf(path: Path, replayed: Replayed, source: str) -> None:
    """Write the ITF document of `replayed` to `path` (one JSON object)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace_to_itf(replayed, source), indent=1) + "\n")
