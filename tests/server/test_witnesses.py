"""The witnesses written for the server are committed as their module builds them, break what
they say in the spec, and are planned as ordinary requests (rejections by length)."""

from __future__ import annotations

from pathlib import Path

from model_checks.kernel.itf import project, read_trace, text
from model_checks.server.plan import Send
from model_checks.server.plans import plan
from model_checks.server.witnesses import FOLDER, WITNESSES

ROOT = Path(__file__).resolve().parents[2]


def test_every_committed_server_witness_is_what_its_builder_writes() -> None:
    committed = sorted(p.name for p in (ROOT / FOLDER).glob("*.json"))
    assert committed == sorted(WITNESSES)
    for name, build in WITNESSES.items():
        assert (ROOT / FOLDER / name).read_text() == text(build()), name


def test_the_rejected_reuse_witness_breaks_s1_and_is_ordinary_requests() -> None:
    trace = read_trace(ROOT / FOLDER / "V2_D2+D7_S1.json")
    meta = project(trace)
    assert (meta["variant"], meta["environment"], meta["property"]) == ("V2", ["D2", "D7"], "S1")
    sends = [s for s in plan(trace, "V2_D2+D7_S1").steps if isinstance(s, Send)]
    assert [s.rejected for s in sends] == [False, True, True, False]
    assert not sends[-1].items[0].has_data
