"""The driver's translation of the shm design's witnesses (`model_checks.server.shm_plan`),
checked without a server: every committed shm witness is planned or refused with its step,
the clear-while-waiting witnesses hold their requests in the engine's queue around the reset,
and planted steps HTTP cannot drive are refused."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from model_checks.kernel.itf import read_trace
from model_checks.server.plan import NotDrivable, Release, Reset, Send
from model_checks.server.plans import plan

ROOT = Path(__file__).resolve().parents[2]
SHM = ROOT / "docs" / "results" / "designs" / "shm" / "witnesses"
SHM_WITNESSES = sorted(SHM.glob("*.json"))


def _trace(name: str) -> dict[str, Any]:
    return copy.deepcopy(read_trace(SHM / name))


def test_there_are_shm_witnesses() -> None:
    assert len(SHM_WITNESSES) >= 10


@pytest.mark.parametrize("path", SHM_WITNESSES, ids=lambda p: p.name)
def test_every_shm_witness_is_planned_or_refused_with_its_step(path: Path) -> None:
    try:
        found = plan(read_trace(path), str(path))
    except NotDrivable as why:
        assert why.why and why.label and "design" not in why.label
        assert 0 <= why.step < len(read_trace(path)["states"])
        return
    assert found.cache_type == "shm"
    assert found.flags()[found.flags().index("--mm-processor-cache-type") + 1] == "shm"


def test_some_shm_witnesses_are_driven_and_some_refused() -> None:
    driven = []
    for path in SHM_WITNESSES:
        try:
            plan(read_trace(path), str(path))
            driven.append(path.name)
        except NotDrivable:
            pass
    assert {"D3_H1.json", "D3_S3.json", "D7_S4.json"} <= set(driven)
    assert len(driven) < len(SHM_WITNESSES)


def test_a_clear_while_a_request_waits_holds_it_in_the_engines_queue() -> None:
    found = plan(_trace("D3_H1.json"), "D3_H1")
    assert [type(step) for step in found.steps] == [Send, Reset, Send, Release]
    sends = [step for step in found.steps if isinstance(step, Send)]
    assert all(step.held for step in sends) and found.holds
    assert [(i.identity, i.version, i.has_data) for s in sends for i in s.items] == [
        ("a", 0, True), ("a", 0, True)]
    assert found.flags()[-2:] == ["--max-num-seqs", "1"]


def test_reads_in_one_go_before_the_next_request_are_not_held() -> None:
    found = plan(_trace("D7_S4.json"), "D7_S4")
    assert not found.holds and "--max-num-seqs" not in found.flags()
    (send,) = found.steps
    assert isinstance(send, Send)
    assert [(i.identity, i.version) for i in send.items] == [("a", 0), ("a", 1)]


def test_a_clear_between_a_workers_check_and_copy_is_refused() -> None:
    with pytest.raises(NotDrivable, match=r"step 4 \(between reads\).*one call"):
        plan(_trace("D3_S1.json"), "D3_S1")


@pytest.mark.parametrize(("name", "label"), [
    ("C1_H1.json", "ClientHandle"), ("R1_H1.json", "Preempt"), ("D2_U1.json", "property U1")])
def test_client_handles_preemptions_and_internal_properties_are_refused(
        name: str, label: str) -> None:
    with pytest.raises(NotDrivable) as raised:
        plan(_trace(name), name)
    assert raised.value.label == label


def test_a_planted_out_of_order_execute_is_refused() -> None:
    trace = _trace("D3_H1.json")
    assert trace["states"][2]["mbt::actionTaken"] == "Execute"
    trace["states"][2]["mbt::nondetPicks"]["index"] = {"#bigint": "1"}
    with pytest.raises(NotDrivable, match="D1"):
        plan(trace, "planted")


def test_a_planted_eviction_is_refused() -> None:
    trace = _trace("D7_S4.json")
    trace["states"][0]["ring"]["chunks"] = copy.deepcopy(trace["states"][1]["ring"]["chunks"])
    trace["states"][0]["ring"]["chunks"][0]["id"] = {"#bigint": "9"}
    with pytest.raises(NotDrivable, match="evicts"):
        plan(trace, "planted")


def test_a_planted_unknown_action_is_refused() -> None:
    trace = _trace("D3_H1.json")
    trace["states"][3]["mbt::actionTaken"] = "Teleport"
    with pytest.raises(NotDrivable, match=r"step 3 \(Teleport\)"):
        plan(trace, "planted")


def test_a_client_step_after_one_held_read_while_another_waits_is_refused() -> None:
    """D3_H1 with its last read moved: request 1 stays held past a planted Submit."""
    trace = _trace("D3_H1.json")
    states = trace["states"]
    # reads of request 0 at step 5; a planted clear after it while request 1 still waits
    extra = copy.deepcopy(states[3])
    states.append(extra)
    with pytest.raises(NotDrivable, match="still waits"):
        plan(trace, "planted")
