"""The one trace format: every committed trace (the trace files, plain or compressed, the
traces the lattice's outcome files embed, the design witnesses) is an ITF document with the
project's metadata that validates against `model_checks/kernel/itf.schema.json` (that
`model_checks.kernel.itf` is the one module that builds one is
`tests/architecture/test_arch_one_trace_writer.py`); random runs of both designs round-trip
through the writer and the reader; the schema rejects what a careless writer would emit; an
old-format trace is still read, with one deprecation line."""

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
from hypothesis import given, settings
from hypothesis import strategies as st

from model_checks.designs.witness_files import WitnessDocument, document, parse, upgraded
from model_checks.kernel import itf, legacy_trace, result_files
from model_checks.kernel.trace_file import (
    OPTIONAL_FIELDS,
    OPTIONAL_KNOBS,
    config_from_json,
    config_to_json,
    replay_data,
    replay_file,
    trace_to_json,
)
from spec import V2, Config, Variant, run
from spec.designs.lru_design import LRU
from spec.designs.registry import design_named, designs
from spec.lru import Entry, Ghost
from spec.machine import enabled, initial

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads(itf.SCHEMA.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
META = jsonschema.Draft202012Validator({"$defs": SCHEMA["$defs"],
                                        **SCHEMA["properties"]["#meta"]})
"""The schema of `#meta` alone: cheap enough for every committed trace (the whole schema,
whose expressions are checked value by value, is run on a sample)."""
TAGGED = ("#bigint", "#tup", "#set", "#map", "#unserializable")


def committed() -> list[tuple[str, dict[str, Any]]]:
    """Every trace the repository holds: (where, document)."""
    listed = subprocess.run(["git", "ls-files", "*.json", "*.json.gz"], capture_output=True,
                            text=True, cwd=ROOT, check=True).stdout.split()
    found = []
    for name in listed:
        data = result_files.read(ROOT / name)
        if isinstance(data, dict) and ("#meta" in data or "actions" in data):
            found.append((name, data))
        for outcome in data.get("outcomes", ()) if isinstance(data, dict) else ():
            found += [(f"{name}: {prop}", t) for prop, t in outcome.get("traces", {}).items()]
    return found


COMMITTED = committed()


def errors(data: dict[str, Any]) -> list[str]:
    return [e.message for e in VALIDATOR.iter_errors(data)]


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(json.loads(itf.SCHEMA.read_text()))


def _optional(part: dict[str, Any]) -> dict[str, Any]:
    """The optional fields a schema part declares, with their defaults."""
    return {name: spec["default"] for name, spec in part.get("properties", {}).items()
            if "default" in spec}


def test_the_schema_requires_every_variant_knob() -> None:
    """Every knob and configuration field is required, or optional with the default that
    `config_from_json` gives a trace without it (the spec's own default)."""
    schema = json.loads(itf.SCHEMA.read_text())
    config = schema["$defs"]["spec-trace"]["properties"]["config"]
    knobs = config["properties"]["variant"]
    optional_knobs = _optional(knobs)
    assert optional_knobs == OPTIONAL_KNOBS
    assert [*knobs["required"], *optional_knobs] == [f.name for f in dataclasses.fields(Variant)]
    defaults = {f.name: f.default for f in dataclasses.fields(Variant)}
    assert all(defaults[name] == value for name, value in optional_knobs.items())
    optional_fields = {k: v for k, v in _optional(config).items() if k != "variant"}
    assert optional_fields == OPTIONAL_FIELDS
    assert set(config["required"]) == set(config_to_json(Config()))
    assert all(getattr(Config(), name) == value for name, value in optional_fields.items())
    written = config_to_json(Config(duplicates=True))
    assert set(written) == set(config["required"]) | set(optional_fields)
    assert config_from_json(written) == Config(duplicates=True)


def is_expression(value: Any) -> bool:
    """The schema's grammar of expressions, in Python (no JSON numbers or nulls)."""
    if isinstance(value, bool | str):
        return True
    if isinstance(value, list):
        return all(is_expression(v) for v in value)
    if not isinstance(value, dict):
        return False
    if "#bigint" in value:
        return set(value) == {"#bigint"} and value["#bigint"].lstrip("-").isdigit()
    if "#map" in value:
        return set(value) == {"#map"} and all(len(kv) == 2 and is_expression(kv)
                                              for kv in value["#map"])
    if any(tag in value for tag in TAGGED):
        return len(value) == 1 and is_expression(next(iter(value.values())))
    return not any(k.startswith("#") for k in value) and all(
        is_expression(v) for v in value.values())


def test_every_committed_trace_is_itf_with_the_project_metadata() -> None:
    kinds = {"spec": 0, "embedded": 0, "design": 0}
    for where, data in COMMITTED:
        assert itf.is_trace(data), where
        assert [e.message for e in META.iter_errors(data["#meta"])] == [], where
        assert set(data) <= {"#meta", "vars", "states", "loop"}, where
        for index, state in enumerate(data["states"]):
            assert state["#meta"]["index"] == index, where
            assert set(state) - {"#meta"} == set(data["vars"]), where
            assert all(is_expression(state[name]) for name in data["vars"]), where
        design = "design" in itf.project(data)
        kinds["design" if design else "embedded" if ": " in where else "spec"] += 1
    assert kinds["spec"] > 600 and kinds["embedded"] > 1000 and kinds["design"] >= 8, kinds


@pytest.mark.parametrize("index", range(0, len(COMMITTED), 149))
def test_a_committed_trace_replays_to_its_recorded_states(index: int) -> None:
    where, data = COMMITTED[index]
    assert errors(data) == [], where
    if "design" in itf.project(data):
        assert parse(data).actions, where
        return
    replayed = replay_data(data)
    assert replayed.recorded_step == itf.project(data)["step"], where
    assert len(data["states"]) == len(replayed.trace.steps) + 1


# -- round trips ------------------------------------------------------------------------------


@st.composite
def choices(draw: st.DrawFn) -> list[int]:
    return draw(st.lists(st.integers(min_value=0, max_value=50), max_size=12))


def spec_run(picks: list[int]) -> Any:
    config = Config(variant=V2)
    trace = run(config, [])
    for pick in picks:
        possible = enabled(config, trace.final)
        if not possible:
            break
        trace = trace.extended(possible[pick % len(possible)])
    assert trace.initial == initial(config)
    return trace


@settings(derandomize=True, max_examples=25, deadline=None)
@given(choices())
def test_a_random_spec_trace_round_trips(picks: list[int]) -> None:
    trace = spec_run(picks)
    data = trace_to_json(trace, property_id="S1", step=len(trace.steps), reason="r",
                         fair_from=0)
    data["loop"] = 0
    read = json.loads(itf.text(data))
    assert errors(read) == []
    replayed = replay_data(read)
    assert replayed.trace == trace and replayed.fair_from == 0
    assert replayed.recorded_step == len(trace.steps) and read["loop"] == 0


@pytest.mark.parametrize("name", [d.name for d in designs()])
@settings(derandomize=True, max_examples=25, deadline=None)
@given(choices())
def test_a_random_design_witness_round_trips(name: str, picks: list[int]) -> None:
    """Every design's run, its actions labelled by its own codec (the LRU design's labels
    are not its classes' names), read back as written."""
    design = design_named(name)
    variant = design.variants[0]
    environment = frozenset({"D2"}) if name == "shm" else frozenset()
    config = design.instance(variant, environment)
    state, actions = design.initial(config), []
    for pick in picks:
        enabled = design.enabled(config, state)
        if not enabled:
            break
        actions.append(enabled[pick % len(enabled)])
        state = design.step(config, state, actions[-1])
    found = WitnessDocument(design, variant, environment, None, tuple(actions))
    read = json.loads(itf.text(document(found, "2 requests", "why")))
    assert errors(read) == []
    assert parse(read) == found


# -- the schema against a careless writer -----------------------------------------------------


def first_document() -> dict[str, Any]:
    return next(data for where, data in COMMITTED if "design" not in itf.project(data))


@pytest.mark.parametrize("mutation", ["json-number", "null", "no-meta", "hash-field", "bad-int",
                                      "no-project", "no-knob"])
def test_the_schema_rejects_a_careless_writer(mutation: str) -> None:
    data = copy.deepcopy(first_document())
    state = data["states"][1]
    if mutation == "json-number":
        state[itf.NONDET_PICKS] = {"front_end": 0}
    elif mutation == "null":
        state[itf.NONDET_PICKS] = {"front_end": None}
    elif mutation == "no-meta":
        del state["#meta"]
    elif mutation == "hash-field":
        state[itf.NONDET_PICKS] = {"#front_end": "0"}
    elif mutation == "bad-int":
        state[itf.NONDET_PICKS] = {"front_end": {"#bigint": "zero"}}
    elif mutation == "no-project":
        del data["#meta"][itf.PROJECT]
    else:
        del itf.project(data)["config"]["variant"]["resends_bypass_shadow"]
    assert errors(data) != []


def test_a_value_is_tagged_where_its_design_tags_its_class() -> None:
    """The variant form is the design's choice (`Design.trace_tags`), nothing the format
    knows: without the tags a slot is a plain record, and no other design tags anything."""
    slots = (Entry("a", 1, 0), Ghost("b"))
    assert itf.expression(slots, LRU.trace_tags) == [
        {"tag": "Entry", "value": {"identity": "a", "size": {"#bigint": "1"},
                                   "processing": {"#bigint": "0"},
                                   "tag": {"tag": "None", "value": {}}}},
        {"tag": "Ghost", "value": {"identity": "b"}}]
    assert itf.expression(slots)[1] == {"identity": "b"}
    assert {d.name: d.trace_tags for d in designs() if d.trace_tags} == {
        "lru": (Entry, Ghost), "lru+encoder": (Entry, Ghost)}


def test_values_map_to_itf_expressions_and_back() -> None:
    assert itf.expression(3) == {"#bigint": "3"}
    assert itf.expression(True) is True
    assert itf.expression(None) == {"tag": "None", "value": {}}
    assert itf.expression(("a", 1)) == ["a", {"#bigint": "1"}]
    assert itf.expression(frozenset({"b", "a"})) == {"#set": ["a", "b"]}
    assert itf.expression({"k": 2}) == {"#map": [["k", {"#bigint": "2"}]]}
    with pytest.raises(TypeError, match="no ITF expression for a float"):
        itf.expression(1.5)
    assert itf.plain({"#map": [["k", {"#tup": [{"#bigint": "2"}]}]]}) == {"k": [2]}
    assert itf.plain({"tag": "None", "value": {}}) is None
    assert is_expression([{"#set": [{"#bigint": "-2"}]}, {"a": {"tag": "None", "value": {}}}])
    for careless in (0, None, {"#bigint": "two"}, {"#set": [1]}, {"#map": [["k"]]}, {"#x": 1}):
        assert not is_expression(careless), careless


# -- the old format, read for one release -------------------------------------------------------


def old_format(data: dict[str, Any]) -> dict[str, Any]:
    """An ITF trace of the spec as the old format held it."""
    meta = itf.project(data)
    trace = replay_data(data).trace
    states = [{"#meta": {"index": 0}, "action": "init", "args": {},
               "state": legacy_trace.to_json(trace.initial, LRU.trace_tags)}]
    states += [{"#meta": {"index": n}, "action": s.action.label,
                "args": legacy_trace.to_json(dataclasses.asdict(s.action)),
                "state": legacy_trace.to_json(s.state, LRU.trace_tags)}
               for n, s in enumerate(trace.steps, start=1)]
    head = {k: meta[k] for k in ("checker", "variant", "environment", "property", "step",
                                 "reason")}
    return {"#meta": {"format": legacy_trace.FORMAT, **head}, "config": meta["config"],
            "states": states}


def test_an_old_trace_is_read_with_one_deprecation_line(tmp_path: Path) -> None:
    # a trace without a rung: the old format kept none, so a round trip cannot restore one
    data = next(d for where, d in COMMITTED
                if "design" not in itf.project(d) and "rung" not in itf.project(d))
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old_format(data)))
    program = ("import sys; from pathlib import Path; from model_checks.kernel.trace_file import "
               "replay_file; r = [replay_file(Path(sys.argv[1])) for _ in range(2)]; "
               "print(r[0].recorded_step)")
    done = subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=True)
    assert done.stdout.strip() == str(itf.project(data)["step"])
    assert done.stderr.count("\n") == 1 and "old format" in done.stderr
    assert replay_file(path) == replay_data(data)
    new = tmp_path / "new.json"
    assert run_replay(str(path), "--itf", str(new)).returncode == 0
    assert json.loads(new.read_text()) == data


def test_an_old_design_witness_is_parsed_as_its_itf_document() -> None:
    data = next(d for where, d in COMMITTED if "design" in itf.project(d))
    found = parse(data)
    old = {"design": found.design.name, "variant": found.variant,
           "environment": sorted(found.environment), "property": found.property_id,
           "config": found.stated,
           "actions": [found.design.action_to_json(a) for a in found.actions]}
    assert parse(old) == found
    assert json.loads(itf.text(upgraded(old))) == {**data, "#meta": {
        **data["#meta"], itf.PROJECT: {k: v for k, v in itf.project(data).items()
                                       if k not in ("instance", "reason")}}}


# -- replay --itf -------------------------------------------------------------------------------


def run_replay(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "model_checks", "replay", *arguments],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


def spec_file() -> str:
    return next(where for where, data in COMMITTED
                if ": " not in where and "design" not in itf.project(data))


def test_replay_writes_the_itf_file(tmp_path: Path) -> None:
    out = tmp_path / "trace.itf.json"
    done = run_replay(spec_file(), "--itf", str(out))
    assert done.returncode == 0, done.stderr
    assert f"ITF trace written to {out}" in done.stdout
    assert errors(json.loads(out.read_text())) == []
    assert out.read_text() == result_files.read_text(ROOT / spec_file())


def test_an_unwritable_itf_path_is_one_line_and_exit_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = run_replay(spec_file(), "--itf", str(blocker / "trace.itf.json"))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: cannot write the ITF trace to ")
