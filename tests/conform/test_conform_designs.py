"""`conform --design shm`, without vLLM: the design's lockstep against the design's own spec
as an implementation (`shm_model_side`), its mutants, its replays, its usage errors, and the
properties judged on observations alone (`shm_views.breaks`) agreeing with the spec's."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.designs.shm_views import breaks, spec_observation
from model_checks.designs.witness_files import WitnessDocument, committed, document, read
from model_checks.kernel import itf
from spec.designs.shm import SHM

ROOT = Path(__file__).resolve().parents[2]
MODEL = "tests.conform.shm_model_side"


def _conform(adapter: str, *extra: str) -> list[str]:
    return ["conform", "--design", "shm", "--adapter", f"{MODEL}:{adapter}", *extra]


def test_the_spec_as_its_own_implementation_conforms(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    assert main(_conform("factory", "--steps", "120")) == 0
    out = capsys.readouterr().out
    for env in ("none", "C1", "R1", "C1+D1+D2+D3+D7+D8+D11+R1"):
        assert f"environment {env}: 120 lockstep steps, every step agreed" in out
    assert f"witnesses: {len(committed(ROOT))} committed witness(es) replayed" in out
    assert out.rstrip().splitlines()[-1] == "RESULT: CONFORMS: every step agreed (exit 0)"


@pytest.mark.parametrize(("mutant", "environment"), [("no_id_check", "D3"),
                                                     ("counts_client_handles", "C1")])
def test_each_planted_mechanism_change_is_a_disagreement(
    mutant: str, environment: str, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_conform(mutant, "--environment", environment, "--steps", "400")) == 1
    out = capsys.readouterr().out
    assert f"DISAGREEMENT in environment {environment}" in out
    trace = json.loads(out.split("the trace, to replay with --replay FILE:\n")[1].splitlines()[0])
    assert itf.project(trace)["design"] == "shm" and itf.project(trace)["property"] is None


@pytest.mark.parametrize("witness", committed(ROOT), ids=lambda p: p.stem)
def test_every_committed_witness_reproduces_on_the_spec_side(
    witness: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(_conform("factory", "--replay", str(witness))) == 4
    assert "RESULT: REPRODUCED" in capsys.readouterr().out


def test_a_step_the_side_cannot_drive_is_not_followed(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """A side with no record of the handle a client sends back cannot drive that step:
    exit 5, nothing after it judged."""
    submit = SHM.action_from_json({"action": "Submit",
                                   "contents": [{"identity": "a", "version": 0}]})
    handle = {"key": "a", "address": 0, "id": 0, "epoch": 0,
              "placeholders": {"identity": "a", "version": 0}}
    client = SHM.action_from_json({"action": "ClientHandle", "handle": handle})
    path = tmp_path / "client.json"
    path.write_text(json.dumps(document(WitnessDocument(SHM, "O1", frozenset({"C1"}), "S3",
                                                        (submit, client)))))
    assert main(_conform("factory", "--replay", str(path))) == 0
    assert "RESULT: NOT REPRODUCED" in capsys.readouterr().out
    assert main(_conform("forgetful", "--replay", str(path))) == 5
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith(
        "RESULT: NOT FOLLOWED: step 2: ")


@pytest.mark.parametrize(("extra", "message"), [
    (["--environment", "D4"], "D4 cannot occur in design 'shm'"),
    (["--environment", "D99"], "got 'D99', expected ids among C1, D1-D11, R1"),
    (["--variant", "V2"], "--design shm: --variant apply to design lru only"),
    (["--steps", "0"], "--steps: got 0"),
])
def test_usage_errors_exit_2_with_one_line(extra: list[str], message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_conform("factory", *extra)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_replay_refuses_a_bad_document_and_foreign_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"design": "shm", "variant": "O1", "environment": ["D2"],
                               "property": "Z9", "actions": []}))
    assert main(_conform("factory", "--replay", str(bad))) == 2
    assert "has no property 'Z9'" in capsys.readouterr().err
    witness = str(committed(ROOT)[0])
    assert main(_conform("factory", "--replay", witness, "--steps", "5")) == 2
    assert "--replay runs the witness's own instance" in capsys.readouterr().err


def test_a_witness_the_spec_cannot_take_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "w.json"
    submit = SHM.action_from_json({"action": "Submit",
                                   "contents": [{"identity": "a", "version": 0}]})
    data = document(WitnessDocument(SHM, "O1", frozenset({"D2"}), "U1", (submit,)))
    data["states"][1].update({itf.ACTION_TAKEN: "Copy", itf.NONDET_PICKS: {
        "worker": {"#bigint": "0"}}})  # an action the spec refuses first
    path.write_text(json.dumps(data))
    assert main(_conform("factory", "--replay", str(path))) == 2
    assert "the trace does not replay on the spec" in capsys.readouterr().err


def test_steps_is_refused_for_the_lru_design(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conform", "--adapter", "model_checks.conform.reference_adapter:factory",
                 "--steps", "5"]) == 2
    assert "--design lru: --steps apply to design shm only" in capsys.readouterr().err


@pytest.mark.parametrize("environment", [frozenset({"D2"}), frozenset({"D3", "R1"}),
                                         frozenset({"D7", "C1"})])
def test_properties_judged_on_observations_agree_with_the_spec(environment: frozenset[str]
                                                               ) -> None:
    """On the first 4000 states reached breadth-first, `breaks` says a property is broken
    after a step exactly where the spec's check says so of the state it reached."""
    config = SHM.instance("O1", environment)
    start = SHM.initial(config)
    seen, frontier = {start}, deque([start])
    while frontier and len(seen) < 4000:
        state = frontier.popleft()
        for action in SHM.enabled(config, state):
            after = SHM.step(config, state, action)
            seen_obs = spec_observation(config, action, after)
            quiescent = SHM.is_quiescent(config, after)
            for prop in SHM.properties:
                if prop.id == "U1" and not quiescent:
                    continue
                assert bool(breaks(prop.id, config, seen_obs, _fault(after), quiescent)) == \
                    bool(prop.check(config, after)), (prop.id, action)
            if after not in seen:
                seen.add(after)
                frontier.append(after)


def _fault(state: object) -> str | None:
    from model_checks.designs.shm_views import fault_kind

    fault = getattr(state, "fault", None)
    return None if fault is None else fault_kind(fault)


def test_the_committed_witnesses_parse() -> None:
    for path in committed(ROOT):
        found = read(path)
        assert path.stem == f"{'+'.join(sorted(found.environment))}_{found.property_id}"
