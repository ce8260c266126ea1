"""Every proved record carries the instance it holds for, and the pages print it."""

from __future__ import annotations

from model_checks.docs.results import describe
from model_checks.kernel.verdict_records import VerdictRecord
from model_checks.smt.encode.symbols import Encoding
from model_checks.smt.results import ProvedAllDepths, ProvedToBound, instance, to_record
from spec import V2, V3, Drift


def test_bounded_and_inductive_proofs_carry_their_instance() -> None:
    one = Encoding(V2, frozenset({Drift.D1}))
    bounded = to_record(one, ProvedToBound("H1", 6, 1.0))
    assert bounded.instance == instance(one)
    assert bounded.instance.startswith("3 identities, 4 requests (2 unfinished), 1 item per "
                                       "request, 1 front end")
    two = Encoding(V3, frozenset({Drift.D5, Drift.D8}))
    proof = to_record(two, ProvedAllDepths("S1", "inductive invariant", "I1", 1.0))
    assert "2 items per request, 2 front ends" in proof.instance
    assert "budget 1..4, sizes 1..3" in proof.instance


def test_pages_print_the_instance_next_to_each_proof() -> None:
    record = to_record(Encoding(V3, frozenset()), ProvedAllDepths("S1", "m", "c", 1.0))
    assert describe(record, None) == f"proved for all depths, for {record.instance}"
    anywhere = VerdictRecord("z3-parametric", "V3", (), "S1", record.verdict, None, "depth",
                             1.0, instance="any")
    assert describe(anywhere, None) == "proved for all depths, for any instance"


def test_records_written_before_the_instance_field_still_read() -> None:
    record = to_record(Encoding(V2, frozenset()), ProvedToBound("H1", 6, 1.0))
    data = record.to_json()
    del data["instance"]
    assert VerdictRecord.from_json(data).instance == ""


def test_a_proof_under_d7_names_its_contents_and_items_per_request() -> None:
    """Under D7 the instance names the contents per identity, each sized on its own, and the
    items per request the encoding has (two under D7: a reused identity's larger content
    can overflow a request); with one content per identity neither phrase appears."""
    reuse = to_record(Encoding(V2, frozenset({Drift.D7})),
                      ProvedAllDepths("S3", "inductive invariant", "I1", 1.0))
    assert reuse.instance.startswith("3 identities, 2 contents per identity, 4 requests")
    assert "2 items per request" in reuse.instance
    assert reuse.instance.endswith("sizes 1..3 per content")
    plain = instance(Encoding(V2, frozenset({Drift.D1})))
    assert "contents per identity" not in plain and not plain.endswith("per content")
