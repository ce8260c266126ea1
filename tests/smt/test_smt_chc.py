"""Spacer (CHC) proofs for all depths: a proof is re-checked as a certificate, a mutant makes
it fail, a tampered invariant is rejected, and the runner lifts a bounded proof with it."""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3

from model_checks.kernel.matrix import Expectation
from model_checks.smt.budget import CERTIFICATE_RLIMIT, Answer
from model_checks.smt.decided_cells import SmtCell
from model_checks.smt.encode.symbols import Encoding
from model_checks.smt.limits import CHC_RLIMIT
from model_checks.smt.prove import chc
from model_checks.smt.prove.chc import (
    METHOD,
    ChcResult,
    Reachable,
    Undecided,
    as_invariant,
    chc_decide,
    spacer_invariant,
)
from model_checks.smt.prove.induction import k_induction
from model_checks.smt.prove.invariant import CertificateRejected, prove
from model_checks.smt.prove.proved_first import ProveOptions
from model_checks.smt.results import ProvedAllDepths, ProvedToBound, to_record
from model_checks.smt.runner import SmtRun, run_group
from spec import V1, V2, Drift, MissHandling


def chc_prove(
    enc: Encoding, prop: str, rlimit: int = CHC_RLIMIT,
    certificate_rlimit: int = CERTIFICATE_RLIMIT,
) -> ChcResult:
    """`prop` for all depths by Spacer, its invariant re-checked as a certificate; or why not.
    A verdict is a function of the encoding, the property and the two limits."""
    return chc_decide(enc, prop, rlimit, certificate_rlimit)[0]


D1 = frozenset({Drift.D1})


def test_spacer_proves_s3_of_v1_under_d1_and_the_record_says_how() -> None:
    enc = Encoding(V1, D1)
    proof = chc_prove(enc, "S3")
    assert isinstance(proof, ProvedAllDepths)
    assert proof.method == METHOD and proof.peak > 0
    record = to_record(enc, proof)
    assert record.checker == "z3-induction" and record.bound is None
    assert "Spacer CHC, invariant re-checked" in record.detail
    assert "Spacer's inductive invariant for S3" in record.detail


CRASHES = replace(V1, name="V1-crashes", miss_handling=MissHandling.CRASH)
"""V1 with V0's assertion on a miss: reordered delivery crashes it (S3 breaks at 5 steps)."""


def test_a_mutant_that_crashes_on_a_miss_is_not_proved() -> None:
    """Within the limit that proves V1's S3, the mutant's S3 is not proved."""
    found = chc_prove(Encoding(CRASHES, D1), "S3")
    assert isinstance(found, Reachable | Undecided)


@pytest.mark.slow
def test_spacer_derives_the_mutants_crash() -> None:
    """Given more units (24 million measured), Spacer derives the mutant's bad state."""
    found = chc_prove(Encoding(CRASHES, D1), "S3", 60_000_000)
    assert isinstance(found, Reachable)


def test_the_re_check_rejects_a_tampered_invariant() -> None:
    """The certificate check is independent of Spacer: the invariant without one of its
    clauses, or True, or False, is rejected by the fresh solvers."""
    enc = Encoding(V1, D1)
    formula, answer = spacer_invariant(enc, "S3")
    assert answer.result == z3.sat and formula is not None and z3.is_and(formula)
    prove(enc, (as_invariant(enc, "S3", formula),), ("S3",))  # the genuine one passes
    def rejected(dropped: int) -> bool:
        weaker = z3.And([c for i, c in enumerate(formula.children()) if i != dropped])
        try:
            prove(enc, (as_invariant(enc, "S3", weaker),), ("S3",))
        except CertificateRejected:
            return True
        return False

    assert any(rejected(i) for i in range(formula.num_args()))  # some clause is needed
    for vacuous in (z3.BoolVal(True), z3.BoolVal(False)):
        with pytest.raises(CertificateRejected):
            prove(enc, (as_invariant(enc, "S3", vacuous),), ("S3",))


def test_an_exhausted_rlimit_leaves_the_bounded_proof() -> None:
    cell = SmtCell(V2, ("D1",), "S3", Expectation.HOLDS, "matrix")
    lifted, _ = run_group([cell], SmtRun(2, 200_000_000))
    assert isinstance(lifted[0].result, ProvedAllDepths)
    assert lifted[0].result.method == METHOD
    bounded, _ = run_group([cell], SmtRun(2, 200_000_000, prove=ProveOptions(chc_rlimit=1)))
    assert isinstance(bounded[0].result, ProvedToBound)
    assert bounded[0].result.bound == 2


def test_a_bad_chc_property_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from model_checks.cli import main

    assert main(["prove", "--chc", "S2", "--variant", "V1"]) == 2
    assert "--chc: got 'S2'" in capsys.readouterr().err


def test_the_method_of_1_induction_without_lemmas_says_so() -> None:
    proof = k_induction(Encoding(V2, D1), "S1", 1, (), 2)
    assert proof is not None
    assert proof.method == "1-induction without lemmas (BMC base case to depth 2)"
    assert proof.certificate == "no lemma: S1 alone is 1-inductive"
    assert "with lemmas" not in to_record(Encoding(V2, D1), proof).detail


def test_an_undecided_spacer_says_why_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spacer giving up below its limit is not reported as the limit running out, and the
    limit running out says so: the undecided detail is the solver answer's own reason."""
    enc = Encoding(V1, D1)
    gave_up = Answer(z3.unknown, 39_151, CHC_RLIMIT, "incomplete")
    monkeypatch.setattr(chc, "spacer_invariant", lambda *_: (None, gave_up))
    found, _ = chc_decide(enc, "S3")
    assert isinstance(found, Undecided)
    assert found.reason == f"Spacer: solver: incomplete (used 39151 of rlimit {CHC_RLIMIT})"
    ran_out = Answer(z3.unknown, 500, 500)
    monkeypatch.setattr(chc, "spacer_invariant", lambda *_: (None, ran_out))
    found, _ = chc_decide(enc, "S3", rlimit=500)
    assert isinstance(found, Undecided)
    assert found.reason == "Spacer: rlimit 500 exhausted (used 500)"
