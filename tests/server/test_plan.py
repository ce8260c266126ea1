"""The server driver's translation of witnesses into HTTP plans, checked without a server:
every committed witness of the LRU design is planned or refused with the step and why, the
plan of the V2 D7 S1 witness is the one the committed server run drove, and planted witnesses
that HTTP cannot drive are refused."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from model_checks.kernel.itf import read_trace
from model_checks.server.drive import chat_body
from model_checks.server.images import budget_bytes, png, processed_bytes, width
from model_checks.server.plan import (
    IMAGE_TEXT_TOKENS,
    MAX_MODEL_LEN,
    TEMPLATE_TOKENS,
    Item,
    NotAWitness,
    NotDrivable,
    Send,
    rejected_text,
)
from model_checks.server.plans import plan

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
WITNESSES = sorted([*(RESULTS / "lattice").glob("V2_*.json.gz"),
                    *(RESULTS / "traces").glob("V2_*.json")])
SHM_WITNESSES = sorted((RESULTS / "designs" / "shm" / "witnesses").glob("*.json"))
D7_S1 = RESULTS / "lattice" / "V2_D7_S1.json.gz"


def test_there_are_witnesses_to_translate() -> None:
    assert len(WITNESSES) > 40 and SHM_WITNESSES


@pytest.mark.parametrize("path", WITNESSES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_committed_v2_witness_is_planned_or_refused_with_its_step(path: Path) -> None:
    try:
        found = plan(read_trace(path), str(path))
    except NotDrivable as why:
        assert why.why and why.label
        assert 0 <= why.step < len(read_trace(path)["states"])
        return
    sends = [step for step in found.steps if isinstance(step, Send)]
    assert sends and all(step.items for step in sends)
    assert found.budget_bytes == budget_bytes(found.budget_units)
    assert str(found.budget_bytes / 2**30) in found.flags()


def test_the_d7_s1_plan_is_the_four_requests_the_server_run_drove() -> None:
    found = plan(read_trace(D7_S1), "V2_D7_S1")
    sends = [step for step in found.steps if isinstance(step, Send)]
    assert [(s.rid, [(i.identity, i.version, i.units, i.has_data) for i in s.items])
            for s in sends] == [
        (0, [("g", 1, 2, True), ("h", 1, 1, True)]),
        (1, [("z", 1, 2, True), ("g", 0, 1, True)]),
        (2, [("h", 0, 2, True), ("z", 0, 1, True)]),
        (3, [("h", 0, 2, False)]),
    ]
    assert found.budget_units == 3 and not any(s.rejected for s in sends)


def _states(path: Path) -> dict[str, Any]:
    return copy.deepcopy(read_trace(path))


def test_a_planted_one_sided_clear_is_refused_at_its_step() -> None:
    trace = _states(D7_S1)
    trace["states"][3]["mbt::actionTaken"] = "p1_clear"
    with pytest.raises(NotDrivable, match=r"step 3 \(p1_clear\)"):
        plan(trace, "planted")


def test_a_planted_out_of_order_receive_is_refused() -> None:
    trace = _states(D7_S1)
    assert trace["states"][3]["mbt::actionTaken"] == "p1_receive"
    trace["states"][3]["mbt::nondetPicks"]["index"] = {"#bigint": "1"}
    with pytest.raises(NotDrivable, match="D1"):
        plan(trace, "planted")


def test_a_reply_received_after_a_later_handle_is_refused() -> None:
    """V2 D2 H1 ends at P1's miss; a planted P0 handle after it, before the reply, is late."""
    trace = _states(RESULTS / "lattice" / "V2_D2_H1.json.gz")
    assert any(s["mbt::actionTaken"] == "p1_receive" for s in trace["states"])
    late = copy.deepcopy(trace["states"][-1])
    late["mbt::actionTaken"], late["mbt::nondetPicks"] = "p0_handle", {"rid": {"#bigint": "1"}}
    trace["states"].append(late)
    with pytest.raises(NotDrivable, match="late reply"):
        plan(trace, "planted")


def test_unequal_sizes_on_the_two_sides_are_refused() -> None:
    trace = _states(D7_S1)
    trace["#meta"]["paired-caches"]["config"]["sizes"][0][3] = 3
    with pytest.raises(NotDrivable, match="D9"):
        plan(trace, "planted")


def test_a_document_without_requests_is_not_a_witness() -> None:
    trace = _states(D7_S1)
    for state in trace["states"]:
        del state["requests"]
    with pytest.raises(NotAWitness):
        plan(trace, "planted")


def test_a_budget_of_b_units_holds_exactly_the_item_sets_of_at_most_b_units() -> None:
    for budget in range(1, 6):
        for sizes in ([1] * 6, [2, 1], [2, 2], [1, 1, 1], [3], [3, 1], [5], [2, 2, 1]):
            fits = sum(processed_bytes(u) for u in sizes) <= budget_bytes(budget)
            assert fits == (sum(sizes) <= budget), (budget, sizes)


def test_images_are_deterministic_and_differ_per_content() -> None:
    assert png("a", 0, 1) == png("a", 0, 1)
    assert png("a", 0, 1) != png("a", 1, 1) != png("b", 1, 1)
    assert width(1) == 32 and width(2) == 96
    with pytest.raises(ValueError):
        width(0)


def test_a_uuid_only_item_is_the_uuid_with_no_image_url() -> None:
    found = plan(read_trace(D7_S1), "V2_D7_S1")
    last = [s for s in found.steps if isinstance(s, Send)][-1]
    part = chat_body(last.items, "what?")["messages"][0]["content"][0]
    assert part == {"type": "image_url", "image_url": None, "uuid": "h"}
    first = chat_body(next(s for s in found.steps if isinstance(s, Send)).items, "what?")
    assert first["messages"][0]["content"][0]["image_url"]["url"].startswith("data:image/png")


@pytest.mark.parametrize("images", [1, 2, 3])
def test_a_rejected_request_fits_before_its_images_expand_and_not_after(images: int) -> None:
    before = TEMPLATE_TOKENS + IMAGE_TEXT_TOKENS * images + len(rejected_text(images))
    assert before == MAX_MODEL_LEN - 1
    smallest = 10  # a 32 x 32 image (the tiny model's fewest tokens)
    assert before - images + smallest * images > MAX_MODEL_LEN


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          ) -> None:
    from model_checks.server.command import main
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["--replay", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("server:") and "\n" not in err
    assert main(["--replay", str(SHM_WITNESSES[0])]) == 5


def test_an_undrivable_witness_exits_5_naming_its_step(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from model_checks.server.command import main
    out = tmp_path / "run.json"
    witness = RESULTS / "lattice" / "V2_D3_H1.json.gz"
    assert main(["--replay", str(witness), "--json", str(out)]) == 5
    assert "step 6 (p1_clear)" in capsys.readouterr().err
    written = json.loads(out.read_text())
    assert written[0]["driven"] is False and written[0]["action"] == "p1_clear"


def test_a_witness_of_another_design_is_refused_naming_it() -> None:
    trace = _states(D7_S1)
    trace["#meta"]["paired-caches"]["design"] = "encoder"
    with pytest.raises(NotDrivable, match=r"step 0 \(design\).*design encoder"):
        plan(trace, "planted")


def test_reference_uuids_are_one_per_item_even_for_a_repeated_identity() -> None:
    items = (Item("a", 0, 1, True), Item("a", 1, 1, True))
    parts = chat_body(items, "what?", ("r-0", "r-1"))["messages"][0]["content"]
    assert [part["uuid"] for part in parts[:2]] == ["r-0", "r-1"]
    assert [p["uuid"] for p in chat_body(items, "what?")["messages"][0]["content"][:2]] == [
        "a", "a"]
