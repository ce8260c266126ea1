"""The runner's fallback: a counterexample the two-item instance could not reach in time is
searched again with one item per request, and its record says where it is shortest."""

from __future__ import annotations

from model_checks.kernel.matrix import Expectation
from model_checks.smt.budget import BMC_RLIMIT
from model_checks.smt.decided_cells import SmtCell
from model_checks.smt.encode.symbols import Encoding
from model_checks.smt.results import Unknown, Violated, to_record
from model_checks.smt.runner import _in_smaller_instance
from spec import V0, V3, Drift


def test_a_timed_out_search_is_retried_with_one_item_per_request() -> None:
    enc = Encoding(V0, frozenset({Drift.D1, Drift.D8}))
    assert enc.m == 2
    cell = SmtCell(V0, ("D1", "D8"), "S3", Expectation.BREAKS, "matrix")
    timed_out = Unknown("S3", 3, "solver: canceled", 1.0)
    found = _in_smaller_instance(enc, [cell], {"S3": timed_out}, 6, BMC_RLIMIT)
    result = found["S3"]
    assert isinstance(result, Violated)
    assert result.depth == 5
    assert result.config.max_items == 1
    detail = to_record(enc, result).detail
    assert "shortest with one item per request" in detail and "none within 3 steps" in detail


def test_no_retry_for_cells_expected_to_hold_or_already_decided() -> None:
    enc = Encoding(V3, frozenset({Drift.D1, Drift.D8}))
    holds = SmtCell(V3, ("D1", "D8"), "S1", Expectation.HOLDS, "matrix")
    unknown = Unknown("S1", 3, "solver: canceled", 1.0)
    assert _in_smaller_instance(enc, [holds], {"S1": unknown}, 6, BMC_RLIMIT) == {}
    one_item = Encoding(V0, frozenset({Drift.D1}))
    breaks = SmtCell(V0, ("D1",), "S3", Expectation.BREAKS, "matrix")
    assert _in_smaller_instance(one_item, [breaks], {"S3": unknown}, 6, BMC_RLIMIT) == {}
