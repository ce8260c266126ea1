"""`replay FILE --itf OUT` writes ITF (Apalache's ADR-015, as Quint writes it), validated
against the JSON schema `model_checks/itf.schema.json` by a small validator of the schema
keywords it uses (and by `jsonschema` too where it is installed); the schema rejects what
ITF forbids."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from model_checks import itf
from model_checks.cli import main

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "model_checks" / "itf.schema.json").read_text())
TRACE = ROOT / "docs" / "results" / "lattice" / "V2_D6+D7_S1.json"
_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def errors(data: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Where `data` breaks `schema` (the keywords `itf.schema.json` uses)."""
    if "$ref" in schema:
        return errors(data, SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[1]], where)
    if "anyOf" in schema:
        return [] if any(not errors(data, s, where) for s in schema["anyOf"]) else [
            f"{where}: matches none of anyOf"]
    kind = schema.get("type")
    if kind == "integer":
        ok = isinstance(data, int) and not isinstance(data, bool)
        if not ok or data < schema.get("minimum", data):
            return [f"{where}: expected an integer >= {schema.get('minimum')}"]
        return []
    if kind is not None and not isinstance(data, _TYPES[kind]):
        return [f"{where}: expected {kind}"]
    if isinstance(data, str) and "pattern" in schema and not re.search(schema["pattern"], data):
        return [f"{where}: {data!r} does not match {schema['pattern']}"]
    if isinstance(data, list):
        found = [] if schema.get("minItems", 0) <= len(data) <= schema.get(
            "maxItems", len(data)) else [f"{where}: {len(data)} items"]
        for number, element in enumerate(data):
            found += errors(element, schema.get("items", {}), f"{where}[{number}]")
        return found
    if isinstance(data, dict):
        return _object_errors(data, schema, where)
    return []


def _object_errors(data: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    found = [f"{where}: no {key}" for key in schema.get("required", ()) if key not in data]
    names = schema.get("propertyNames", {}).get("pattern")
    for key, element in data.items():
        if names is not None and not re.search(names, key):
            found.append(f"{where}: key {key!r}")
        if key in schema.get("properties", {}):
            found += errors(element, schema["properties"][key], f"{where}.{key}")
        elif schema.get("additionalProperties") is False:
            found.append(f"{where}: unexpected {key}")
        elif isinstance(schema.get("additionalProperties"), dict):
            found += errors(element, schema["additionalProperties"], f"{where}.{key}")
    return found


def test_replay_writes_itf_that_the_schema_accepts(tmp_path: Path) -> None:
    out = tmp_path / "trace.itf.json"
    assert main(["replay", str(TRACE), "--itf", str(out)]) == 0
    data = json.loads(out.read_text())
    assert errors(data, SCHEMA) == []
    assert data["#meta"]["format"] == "ITF" and data["vars"] == list(itf.state_vars())
    recorded = json.loads(TRACE.read_text())["states"]
    assert [s["#meta"]["index"] for s in data["states"]] == list(range(len(recorded)))
    assert all(set(s) == {"#meta", *data["vars"]} for s in data["states"])
    assert [s["action"] for s in data["states"]] == [s["action"] for s in recorded]
    text = out.read_text()
    assert '"#bigint"' in text and '"#set"' in text  # budgets, indices; a probe's hits
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, SCHEMA)


@pytest.mark.parametrize("bad", [
    {"vars": ["x"], "states": [{"x": True}]},                                   # no #meta
    {"vars": ["x"], "states": [{"#meta": {"index": 0}, "x": {"#bigint": "1.5"}}]},
    {"vars": ["x"], "states": [{"#meta": {"index": 0}, "x": {"#set": [1], "y": 2}}]},
    {"vars": ["x"], "states": [{"#meta": {"index": 0}, "x": {"#map": [[1, 2, 3]]}}]},
    {"vars": ["x"], "states": [{"#meta": {"index": -1}, "x": 1}]},
    {"vars": ["x"], "states": [], "extra": 1},
])
def test_the_itf_schema_rejects_what_itf_forbids(bad: dict[str, Any]) -> None:
    assert errors(bad, SCHEMA)


def test_replay_itf_to_an_unwritable_path_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(TRACE), "--itf", str(tmp_path / "missing" / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --itf: cannot write") and err.count("\n") == 1
