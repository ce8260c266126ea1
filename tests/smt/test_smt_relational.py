"""The mirror certificate (`smt.prove.relational`): it proves H1 (with S1, S3) for all depths
where the shadow mirrors the receiver, the record says how, and every known-bad design makes it
fail: a receiver or a sender that evicts differently, reordered delivery, and the certificate
without its recency-order lemma."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.kernel.matrix import Expectation
from model_checks.mutation.spec_mutants import spec_mutants
from model_checks.scenarios import Scenario, violated
from model_checks.scenarios.base import every_variant, item
from model_checks.scenarios.catalog import configured, round_trip
from model_checks.smt.command import MIRROR_MODES
from model_checks.smt.decided_cells import SmtCell
from model_checks.smt.encode.symbols import Encoding, encoding_for
from model_checks.smt.prove.invariant import CertificateRejected, prove
from model_checks.smt.prove.proved_first import ProveOptions
from model_checks.smt.prove.relational import (
    METHOD,
    MODES,
    agreement_applies,
    agreement_invariants,
    applies,
    mirror_invariants,
    mirror_proofs,
    wanted,
)
from model_checks.smt.results import ProvedAllDepths, ProvedToBound, to_record
from model_checks.smt.runner import SmtRun, run_group
from spec import V0, V1, V2, V3, Drift, LruFlaw

NONE: frozenset[Drift] = frozenset()


def test_the_mirror_proves_h1_of_v1_and_the_record_says_how() -> None:
    enc = Encoding(V1, NONE)
    (proof,) = mirror_proofs(enc, ("H1",))
    assert proof.property == "H1" and proof.method == METHOD and proof.peak > 0
    record = to_record(enc, proof)
    assert record.checker == "z3-induction" and record.bound is None
    assert record.detail.startswith("inductive invariant (hand-written lemmas")
    assert "re-checked" in record.detail
    assert "drained-receiver-orders-as-the-shadow" in record.detail
    assert record.instance.startswith("3 identities, 4 requests (2 unfinished)")


@pytest.mark.slow
def test_the_mirror_proves_s1_and_s3_of_v0_under_identity_reuse() -> None:
    """V0 crashes on a miss, so its S3 rests on H1; under D7 its S1 rests on the mirror."""
    proofs = mirror_proofs(encoding_for(V0, ("D7",)), ("H1", "S1", "S3"))
    assert [p.property for p in proofs] == ["H1", "S1", "S3"]


RECEIVER_EVICTS_NEWEST = next(m for m in spec_mutants() if m.name == "evicts-most-recent").variant
"""The spec mutant whose receiver evicts its most recent entry (its witness breaks H1 with no
drift: `tests/test_spec_mutants.py`)."""
SENDER_EVICTS_NEWEST = replace(V1, name="V1-shadow-evicts-most-recent",
                               shadow_lru=LruFlaw.EVICT_MOST_RECENT)
"""A sender whose shadow evicts its most recent entry: it keeps what the receiver evicted."""


def test_the_sender_mutant_breaks_h1_on_the_spec() -> None:
    """a, b, c through a 2-byte budget: the mutant's shadow keeps a (it evicts b), the receiver
    evicts a; the next request for a is a shadow hit that P1 misses. V1 keeps mirrored."""
    witness = Scenario(
        "sender-evicts-newest", (), "a, b, c, then a again, nothing drifting", configured(),
        tuple(a for rid, name in enumerate("abca") for a in round_trip(rid, item(name))),
        every_variant(""),
    )
    assert "H1" in violated(witness.run(SENDER_EVICTS_NEWEST))
    assert not violated(witness.run(V1))


@pytest.mark.parametrize("mutant", [RECEIVER_EVICTS_NEWEST, SENDER_EVICTS_NEWEST],
                         ids=lambda v: v.name)
def test_a_side_that_evicts_differently_makes_the_certificate_fail(mutant: object) -> None:
    enc = Encoding(mutant, NONE)  # type: ignore[arg-type]
    assert applies(enc)
    with pytest.raises(CertificateRejected, match="consecution of drained-receiver"):
        prove(enc, mirror_invariants(("H1",)), ("H1",))
    assert mirror_proofs(enc, ("H1",)) == []


def test_reordered_delivery_makes_the_certificate_fail() -> None:
    """Under D1 (which breaks H1) the certificate, forced, is rejected; `applies` refuses it."""
    enc = encoding_for(V1, ("D1",))
    assert not applies(enc)
    with pytest.raises(CertificateRejected, match="consecution"):
        prove(enc, mirror_invariants(("H1",)), ("H1",))


def test_the_recency_order_lemma_is_needed() -> None:
    """Without the order lemma the presence lemma is not inductive: eviction picks by order."""
    enc = Encoding(V1, NONE)
    without = tuple(inv for inv in mirror_invariants(("H1",))
                    if inv.name != "drained-receiver-orders-as-the-shadow")
    with pytest.raises(CertificateRejected, match="consecution of drained-receiver-holds"):
        prove(enc, without, ("H1",))


def test_where_the_runner_tries_the_mirror() -> None:
    assert MIRROR_MODES == MODES
    d8 = encoding_for(V3, ("D8",))
    assert wanted(d8, "all") and not wanted(d8, "one-item") and not wanted(d8, "none")
    assert wanted(encoding_for(V1, ("D11",)), "one-item")
    assert not wanted(encoding_for(V1, ("D7", "D11")), "one-item")  # two items under D7
    assert not wanted(encoding_for(V1, ("D10",)), "all")
    with pytest.raises(ValueError, match="mirror mode 'some'"):
        wanted(d8, "some")
    with pytest.raises(ValueError, match="expected some of H1, S1, S3"):
        mirror_proofs(Encoding(V1, NONE), ("S2",))


def test_the_runner_lifts_h1_and_s3_of_v0_and_mirror_none_leaves_them_bounded() -> None:
    cells = [SmtCell(V0, (), prop, Expectation.HOLDS, "matrix") for prop in ("H1", "S3")]
    lifted, _ = run_group(cells, SmtRun(2, 200_000_000, prove=ProveOptions(chc_rlimit=1)))
    for outcome in lifted:
        assert isinstance(outcome.result, ProvedAllDepths)
        assert outcome.result.method == METHOD and outcome.record.bound is None
    bounded_run = SmtRun(2, 200_000_000, prove=ProveOptions(chc_rlimit=1, mirror="none"))
    bounded, _ = run_group(cells, bounded_run)
    assert all(isinstance(o.result, ProvedToBound) and o.result.bound == 2 for o in bounded)


def test_a_bad_mirror_mode_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from model_checks.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["prove", "--mirror", "some", "--variant", "V1"])
    assert exit_info.value.code == 2
    assert "--mirror: invalid choice: 'some'" in capsys.readouterr().err


STALE_ON_RESEND = next(m for m in spec_mutants() if m.name == "keeps-stale-on-resend")
"""V2 whose receiver keeps the old entry when the new payload does not fit (its witness breaks
S1 under D3+D7+D9+D11: `tests/test_scenarios.py`)."""


@pytest.mark.parametrize("variant", [STALE_ON_RESEND.variant, V1], ids=lambda v: v.name)
def test_a_receiver_that_keeps_a_stale_entry_makes_the_agreement_fail(variant: object) -> None:
    """The mutant keeps the old tensor when the new payload does not fit; V1 (the cache wins)
    keeps it whenever it holds one. Both break S1 under D3+D7+D9+D11; the agreement, forced,
    is rejected, and `agreement_applies` refuses them."""
    enc = encoding_for(variant, ("D3", "D7", "D9", "D11"))  # type: ignore[arg-type]
    assert not agreement_applies(enc)
    with pytest.raises(CertificateRejected, match="consecution of "):
        prove(enc, agreement_invariants(), ("S1",))


def test_the_agreement_does_not_apply_once_reuse_brings_two_items_per_request() -> None:
    """Under D7 the encoding has two items per request (a reused identity's larger content
    can overflow a request), where the agreement's certificate is not claimed: V2's S1 under
    D7+D10 is then proved to the BMC bound only, and the record says so."""
    enc = encoding_for(V2, ("D7", "D10"))
    assert enc.m == 2 and not agreement_applies(enc) and not applies(enc)
