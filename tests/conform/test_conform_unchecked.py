"""Every unchecked part named: the report (text and `--json`) lists each optional adapter
interface the implementation lacks and what that leaves unverified, and `--require` of a
property whose check needs a missing one is a usage error naming the method."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from model_checks.cli import main
from model_checks.conform.lru_lockstep.unchecked import LOCKSTEP_PARTS, absent
from model_checks.conform.reference_adapter import factory
from tests.conform.seed_pair import factory as seed_factory

SEED_PAIR = "tests.conform.seed_pair:factory"  # no retry_loop, no retry_items, no serve
REFERENCE = "model_checks.conform.reference_adapter:factory"


def _conform(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["conform", *argv])
    return code, out.getvalue(), err.getvalue()


def test_the_reference_offers_every_optional_part() -> None:
    assert absent(factory(), ["V3"]) == ()


def test_a_pair_without_the_client_loop_has_it_named(tmp_path: Path) -> None:
    assert [p.hook for p in absent(seed_factory(), ["V2"])] == ["retry_loop", "retry_items",
                                                                 "serve"]
    records = tmp_path / "records.json"
    code, out, _ = _conform("--adapter", SEED_PAIR, "--variant", "V2", "--json", str(records))
    assert code == 0, out
    assert "unchecked parts" in out and "the client's retry loop (ClientLoop.retry_loop)" in out
    assert "L1, L3 and L4 are judged on the harness's resends" in " ".join(out.split())
    written = json.loads(records.read_text())["unchecked"]
    assert [p["hook"] for p in written] == ["retry_loop", "retry_items", "serve"]
    assert written[0]["properties"] == ["L1", "L3", "L4"] and written[0]["unverified"]


def test_requiring_a_property_whose_check_needs_a_missing_part_is_a_usage_error() -> None:
    code, out, err = _conform("--adapter", SEED_PAIR, "--variant", "V2", "--require", "S1,L1")
    assert code == 2 and not out
    assert err.startswith("error: --require L1:") and "retry_loop" in err
    assert len(err.strip().splitlines()) == 1


def test_the_reference_is_not_refused() -> None:
    assert all(p.hook for p in LOCKSTEP_PARTS)
    code, out, _ = _conform("--adapter", REFERENCE, "--variant", "V3", "--require", "L1")
    assert code in (0, 4), out  # judged (V3 breaks L1 under some drift, as its spec does)
    assert "unchecked parts: none" in out
    text = " ".join(out.split())
    assert "not tested by lockstep:" in text  # even where every optional part is offered
    assert "a pass says the sequential protocol is right, not that the pair is thread-safe" \
        in text
    assert "the engine's refusal" in text and "(float32, int16, uint8)" in text


def test_a_history_judges_s1_and_s3_only() -> None:
    code, _, err = _conform("--adapter", REFERENCE, "--threads", "2", "--require", "L1")
    assert code == 2 and "--require L1: a history judges S1 and S3 only" in err
