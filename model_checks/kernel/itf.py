"""The one trace format: the Informal Trace Format (ITF) that Apalache and Quint read, with the
project's metadata; its one writer (`document`, `text`, `write_trace`) and reader
(`read_trace`, `load`).

ITF (Apalache's ADR-015) is a JSON object: `#meta`, `vars` (the state variables' names),
`states` (one object per state with `#meta.index` and one value per variable) and, for a
lasso, `loop` (the index of the state its cycle starts at, which the last state equals).
Values map onto ITF's expressions, one rule per Python kind (`expression`; `plain` reads
them back), and one for the classes a design tags (`Design.trace_tags`, which the writer
passes as `tagged`):

| spec value | ITF expression |
|---|---|
| `bool`, `str` | JSON `true`/`false`, a JSON string |
| `int` | `{"#bigint": "N"}` (every integer, as Quint writes them) |
| a tuple (LRU order, oldest first; requests by index) | a list (a TLA+ sequence) |
| a frozenset or set | `{"#set": [...]}`, in sorted order |
| a dict | `{"#map": [[key, value], ...]}` |
| a frozen dataclass | a record (a JSON object of its fields) |
| a tagged class's value (`Entry`) | a variant `{"tag": "Entry", "value": record}` |
| an enum member | its value, a string |
| `None` | the variant `{"tag": "None", "value": {}}` (Quint's `Option`) |

Every state carries the step that led to it as Quint's model-based-testing variables:
`mbt::actionTaken` (the action's label, `init` for the first state) and `mbt::nondetPicks`
(a record of the action's arguments), so a reader rebuilds the run from the actions and
compares the states it computes with the recorded ones. Any design's run is written and read
back through its own codec (`design_steps`, `design_actions`: `Design.action_to_json`'s
label and `action_from_json`). `#meta["paired-caches"]` holds the
project's metadata: for a trace of the key-replicated spec (`model_checks.kernel.trace_file`) the
full configuration, the checker, variant, environment, property, the step it broke at and
why, the fair scheduler's start (`fair_from`), the rung and conformance's fields; for a
design's witness (`model_checks.designs.witness_files`) the design, variant, environment,
property, instance and configuration. The contract, checked by `tests/test_itf.py` against
the schema `model_checks/kernel/itf.schema.json`: every state has exactly the variables of `vars`,
indices count from 0, and no state value is a JSON number or null (a reader never has to
guess an integer's precision or a missing field's meaning).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from model_checks.kernel import result_files

if TYPE_CHECKING:
    from spec.designs.base import Design

ACTION_TAKEN = "mbt::actionTaken"
NONDET_PICKS = "mbt::nondetPicks"
PROJECT = "paired-caches"
"""The key of the project's metadata in a trace's `#meta`."""
FORMAT = "ITF"
DESCRIPTION = "https://apalache-mc.org/docs/adr/015adr-trace.html"
SCHEMA = Path(__file__).with_name("itf.schema.json")
"""The JSON Schema of what this module writes (a subset of ITF)."""


class BadTraceFile(ValueError):
    """A document that is not an ITF trace with the project's metadata; the message is one
    line saying why."""


def expression(value: object, tagged: tuple[type, ...] = ()) -> Any:
    """`value` as an ITF expression (the table of the module's docstring); a value of a class
    in `tagged` (its design's `trace_tags`) as a variant named by its class."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return {"#bigint": str(value)}
    if value is None:
        return {"tag": "None", "value": {}}
    if isinstance(value, enum.Enum):
        return expression(value.value)
    if isinstance(value, tagged):
        return {"tag": type(value).__name__, "value": record(value, tagged)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return record(value, tagged)
    if isinstance(value, tuple | list):
        return [expression(v, tagged) for v in value]
    if isinstance(value, frozenset | set):
        items = [expression(v, tagged) for v in value]
        return {"#set": sorted(items, key=lambda e: json.dumps(e, sort_keys=True))}
    if isinstance(value, dict):
        return {"#map": [[expression(k, tagged), expression(v, tagged)]
                         for k, v in value.items()]}
    raise TypeError(f"no ITF expression for a {type(value).__name__}: {value!r}")


def record(value: Any, tagged: tuple[type, ...] = ()) -> dict[str, Any]:
    """A dataclass as an ITF record: every field, in order (`tagged`: as `expression`)."""
    return {f.name: expression(getattr(value, f.name), tagged)
            for f in dataclasses.fields(value)}


def plain(found: Any) -> Any:
    """An ITF expression as plain JSON values: integers, lists for sequences, sets and
    tuples, dicts for records and maps, None for the `None` variant (what the checkers'
    constructors take; the spec's types are theirs to restore)."""
    if isinstance(found, list):
        return [plain(v) for v in found]
    if not isinstance(found, dict):
        return found
    if "#bigint" in found:
        return int(found["#bigint"])
    for collection in ("#set", "#tup"):
        if collection in found:
            return [plain(v) for v in found[collection]]
    if "#map" in found:
        return {plain(k): plain(v) for k, v in found["#map"]}
    if set(found) == {"tag", "value"} and found["tag"] == "None":
        return None
    return {k: plain(v) for k, v in found.items()}


def document(states: Sequence[object], steps: Sequence[tuple[str, Mapping[str, Any]]],
             project: Mapping[str, Any], loop: int | None = None,
             tagged: tuple[type, ...] = ()) -> dict[str, Any]:
    """The ITF document of a run: `states` (dataclasses, the initial one first), `steps` (each
    action's label and its ITF record of arguments), the project's metadata, `loop` (a
    lasso's return state, else None) and `tagged`, the classes its design tags
    (`Design.trace_tags`)."""
    variables = [f.name for f in dataclasses.fields(states[0])]  # type: ignore[arg-type]
    taken = [("init", {}), *steps]
    return {
        "#meta": {"format": FORMAT, "format-description": DESCRIPTION, PROJECT: dict(project)},
        "vars": [ACTION_TAKEN, NONDET_PICKS, *variables],
        **({} if loop is None else {"loop": loop}),
        "states": [
            {"#meta": {"index": index}, ACTION_TAKEN: label, NONDET_PICKS: dict(picks),
             **{name: expression(getattr(state, name), tagged) for name in variables}}
            for index, (state, (label, picks)) in enumerate(zip(states, taken, strict=True))],
    }


def design_steps(design: Design, taken: Sequence[Any]) -> list[tuple[str, dict[str, Any]]]:
    """The actions of a run of `design` as `document` takes them: each one's label (its
    design's codec's, `Design.action_to_json`) and its ITF record (with the classes the
    design tags, `Design.trace_tags`)."""
    return [(str(design.action_to_json(a)["action"]), record(a, design.trace_tags))
            for a in taken]


def design_actions(design: Design, steps: Iterable[tuple[str, Any]]) -> list[Any]:
    """The actions of a run of `design` from each step's label and plain arguments (as
    `actions` reads them), read back by the design's codec (`Design.action_from_json`:
    `InvalidAction` for a label it has not)."""
    return [design.action_from_json({"action": label, **args}) for label, args in steps]


def project(trace: Mapping[str, Any]) -> dict[str, Any]:
    """The project's metadata of an ITF document (mutable: a writer adds its fields)."""
    found: dict[str, Any] = trace["#meta"][PROJECT]
    return found


def is_trace(data: object) -> bool:
    """Whether `data` is an ITF document with the project's metadata."""
    meta = data.get("#meta") if isinstance(data, dict) else None
    return isinstance(meta, dict) and meta.get("format") == FORMAT and isinstance(
        meta.get(PROJECT), dict)


def actions(trace: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each step's action label and its arguments as plain values (`plain`)."""
    return [(s[ACTION_TAKEN], plain(s[NONDET_PICKS])) for s in trace["states"][1:]]


def differing_state(trace: Mapping[str, Any], computed: Sequence[object],
                    tagged: tuple[type, ...] = ()) -> int | None:
    """The first state index whose recorded variables differ from `computed`'s written with
    `tagged` (as `document`), or whose count differs; else None."""
    recorded = trace["states"]
    for index, (written, state) in enumerate(zip(recorded, computed, strict=False)):  # counts below
        if any(written.get(f.name) != expression(getattr(state, f.name), tagged)
               for f in dataclasses.fields(state)):  # type: ignore[arg-type]
            return index
    return None if len(recorded) == len(computed) else min(len(recorded), len(computed))


def text(trace: Mapping[str, Any]) -> str:
    """A document as compact, deterministic JSON with one line per state: diffs read step by
    step."""
    head = [f"{json.dumps(k)}:{_compact(v)}" for k, v in trace.items() if k != "states"]
    states = ",\n".join(_compact(s) for s in trace.get("states", []))
    return "{" + ",\n".join(head) + ',\n"states":[\n' + states + "\n]}\n"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def write_trace(path: Path, trace: Mapping[str, Any]) -> None:
    """Write `trace` (an ITF document) to `path` (`text`), creating its folder; gzip-
    compressed when `path` ends in `.gz` (`kernel.result_files`: byte-stable)."""
    result_files.write_text(path, text(trace))


def load(path: Path) -> Any:
    """The JSON in `path`, plain or gzip-compressed (`NAME.json` and `NAME.json.gz` read
    either form: `kernel.result_files`); `BadTraceFile` (one line) when it cannot be read or
    is not JSON."""
    try:
        return json.loads(result_files.read_text(path))
    except OSError as error:
        raise BadTraceFile(f"cannot read {path}: {error.strerror}") from None
    except result_files.ResultFileError as error:
        raise BadTraceFile(str(error)) from None
    except json.JSONDecodeError as error:
        why = error.msg.removesuffix(" starting at")  # json says "... starting at" + a position
        raise BadTraceFile(f"{path} is not JSON: {why} (line {error.lineno}, column "
                       f"{error.colno})") from None


def read_trace(path: Path) -> dict[str, Any]:
    """The ITF document in `path`; `BadTraceFile` where it is not one with the project's
    metadata."""
    data = load(path)
    if not is_trace(data):
        raise BadTraceFile(f"{path} is not an ITF trace with #meta[{PROJECT!r}]")
    found: dict[str, Any] = data
    return found
