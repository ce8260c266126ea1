"""Counterexample traces: the ITF document, the step table, and `python -m model_checks replay`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.kernel import itf
from model_checks.kernel.instance import config_for
from model_checks.kernel.trace_file import (
    config_from_json,
    config_to_json,
    replay_file,
    table,
    trace_to_json,
    write_trace,
)
from model_checks.simulate.machine import RuleStats
from model_checks.simulate.run import PROFILES, Finding, search
from spec import ALL_DRIFT, V1, V2, Config


def _finding(tmp_path: Path) -> tuple[Finding, Path]:
    found = search("test_cx_V2_D3", config_for(V2, ("D3",)), ["H1"], PROFILES["ci"], 300,
                   RuleStats()).finding
    assert found is not None
    path = tmp_path / "cx.json"
    data = trace_to_json(found.trace, property_id="H1", step=found.step, reason=found.reason,
                         fair_from=found.fair_from)
    write_trace(path, data)
    return found, path


def test_json_is_one_itf_state_per_step_with_label_arguments_and_variables(
    tmp_path: Path,
) -> None:
    found, path = _finding(tmp_path)
    data = json.loads(path.read_text())
    assert data["#meta"]["format"] == "ITF"
    meta = itf.project(data)
    assert meta["property"] == "H1" and meta["step"] == found.step
    assert config_from_json(meta["config"]) == found.trace.config
    states = data["states"]
    assert len(states) == len(found.trace.steps) + 1
    assert states[0][itf.ACTION_TAKEN] == "init"
    assert [s["#meta"]["index"] for s in states] == list(range(len(states)))
    assert all({itf.ACTION_TAKEN, itf.NONDET_PICKS} <= set(s) for s in states)
    assert "receiver" in states[-1] and "shadows" in states[-1]
    assert len(path.read_text().splitlines()) == len(states) + 4  # one line per state


def test_replay_prints_the_same_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found, path = _finding(tmp_path)
    expected = table(found.trace, "H1", found.step, found.reason, found.fair_from)
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.strip() == expected.strip()
    assert f"H1 broken at step {found.step}" in expected
    replayed = replay_file(path)
    assert replayed.trace == found.trace


def test_a_bad_file_is_one_clear_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = {
        "missing.json": None,
        "not-json.json": "{",
        "wrong-format.json": json.dumps({"#meta": {"format": "itf"}}),
        "bad-action.json": None,
    }
    _, good = _finding(tmp_path)
    data = json.loads(good.read_text())
    data["states"][1][itf.ACTION_TAKEN] = "teleport"
    cases["bad-action.json"] = json.dumps(data)
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        assert main(["replay", str(path)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, (name, err)


def test_a_tampered_state_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, path = _finding(tmp_path)
    data = json.loads(path.read_text())
    data["states"][-1]["receiver"] = [{"tag": "Ghost", "value": {"identity": "z"}}]
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    assert "differs" in capsys.readouterr().err


@pytest.mark.parametrize("variant", [V1, V2])
def test_configuration_round_trips(variant: object) -> None:
    config = config_for(variant, tuple(d.value for d in ALL_DRIFT))  # type: ignore[arg-type]
    assert config_from_json(json.loads(json.dumps(config_to_json(config)))) == config
    assert config_from_json(config_to_json(Config())) == Config()
