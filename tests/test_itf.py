"""`replay FILE --itf OUT` writes the Informal Trace Format that Apalache and Quint read: every
committed trace file, written as ITF, validates against `model_checks/itf.schema.json`, holds
exactly the variables it declares in every state and the states the spec computes; the schema
rejects what a careless writer would emit (JSON numbers, nulls, a state missing `#meta`)."""

from __future__ import annotations

import copy
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from model_checks.itf import ACTION_TAKEN, NONDET_PICKS, SCHEMA, expression, trace_to_itf
from model_checks.trace_file import replay_file

ROOT = Path(__file__).resolve().parent.parent
TRACES = sorted(p for p in (ROOT / "docs" / "results").glob("*/*.json")
                if p.parent.name != "designs")
"""The committed traces of the key-replicated design (a design of its own keeps its answers
and witness documents under docs/results/designs/, in its own format)."""
VALIDATOR = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))


def errors(document: dict[str, Any]) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(document)]


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(SCHEMA.read_text()))


def test_there_are_committed_traces_to_write() -> None:
    assert len(TRACES) > 100


@pytest.mark.parametrize("path", TRACES[::7], ids=lambda p: p.name)
def test_a_committed_trace_as_itf_validates_and_matches_the_spec(path: Path) -> None:
    replayed = replay_file(path)
    document = trace_to_itf(replayed, str(path))
    assert errors(document) == []
    states = list(replayed.trace.states())
    assert len(document["states"]) == len(states)
    for index, (written, state) in enumerate(zip(document["states"], states, strict=True)):
        assert written["#meta"]["index"] == index
        assert set(written) - {"#meta"} == set(document["vars"])
        for field in dataclasses.fields(state):
            assert written[field.name] == expression(getattr(state, field.name))
    labels = [s[ACTION_TAKEN] for s in document["states"]]
    assert labels == ["init", *(s.action.label for s in replayed.trace.steps)]


def first_document() -> dict[str, Any]:
    return trace_to_itf(replay_file(TRACES[0]), "trace")


@pytest.mark.parametrize("mutation", ["json-number", "null", "no-meta", "hash-field", "bad-int"])
def test_the_schema_rejects_a_careless_writer(mutation: str) -> None:
    document = copy.deepcopy(first_document())
    state = document["states"][1]
    if mutation == "json-number":
        state[NONDET_PICKS] = {"front_end": 0}
    elif mutation == "null":
        state[NONDET_PICKS] = {"front_end": None}
    elif mutation == "no-meta":
        del state["#meta"]
    elif mutation == "hash-field":
        state[NONDET_PICKS] = {"#front_end": "0"}
    else:
        state[NONDET_PICKS] = {"front_end": {"#bigint": "zero"}}
    assert errors(document) != []


def test_values_map_to_itf_expressions() -> None:
    assert expression(3) == {"#bigint": "3"}
    assert expression(True) is True
    assert expression(None) == {"tag": "None", "value": {}}
    assert expression(("a", 1)) == ["a", {"#bigint": "1"}]
    assert expression(frozenset({"b", "a"})) == {"#set": ["a", "b"]}
    assert expression({"k": 2}) == {"#map": [["k", {"#bigint": "2"}]]}
    with pytest.raises(TypeError, match="no ITF expression for a float"):
        expression(1.5)


def run_replay(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "model_checks", "replay", *arguments],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_replay_writes_the_itf_file(tmp_path: Path) -> None:
    out = tmp_path / "trace.itf.json"
    done = run_replay(str(TRACES[0]), "--itf", str(out))
    assert done.returncode == 0, done.stderr
    assert f"ITF trace written to {out}" in done.stdout
    assert errors(json.loads(out.read_text())) == []


def test_an_unwritable_itf_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = run_replay(str(TRACES[0]), "--itf", str(blocker / "trace.itf.json"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: cannot write the ITF trace to ")
