"""A Spacer or certificate query spends the same units whatever the process ran before it.

The units a z3 query spends depend on the terms its context already holds, so a query on the
process's context after other cells' queries (the other properties of its cell group, the
tests a worker ran before) can run out where it would not alone. `chc.spacer_invariant` runs
its query in a context of its own, rebuilt from the clauses' SMT-LIB text
(`budget.own_context`), and so does every check of a certificate (`invariant.prove`) and of
1-induction (`Bounded.alone`): the same units and the same answer fresh and after other
cells. The planted variant (the same clauses on the
process's context, or translated into a new one) spends different units after the other
cells: the comparison can fail.

Each measurement runs in a spawned process (nothing of this test process's context)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import pytest
import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT, Bounded
from model_checks.smt.encode.symbols import encoding_for
from model_checks.smt.prove.chc import chc_decide, clauses, spacer_invariant
from model_checks.smt.prove.induction import k_induction
from model_checks.smt.prove.invariant import certificates, prove
from model_checks.smt.prove.proved_first import ProveOptions, prove_first
from spec import V1, V2, V3

RLIMIT = 20_000_000
Query = Callable[[], tuple[int, str]]


def _spacer() -> tuple[int, str]:
    """V2 under D1, S3: Spacer's units and answer (what the runner asks for that cell)."""
    _, answer = spacer_invariant(encoding_for(V2, ("D1",)), "S3", RLIMIT)
    return answer.used, str(answer.result)


def _spacer_on_the_process_context() -> tuple[int, str]:
    """The planted variant: the same clauses, checked on the process's own context."""
    solver = Bounded(RLIMIT, z3.SolverFor("HORN"))
    solver.add(*clauses(encoding_for(V2, ("D1",)), "S3").rules)
    answer = solver.check()
    return answer.used, str(answer.result)


def _certificates() -> tuple[int, str]:
    """V3 under D1: the most units one check of its certificates spent, and what they prove."""
    enc = encoding_for(V3, ("D1",))
    peak, proved = 0, list[str]()
    for invariants, proves in certificates(enc):
        for proof in prove(enc, invariants, tuple(proves), CERTIFICATE_RLIMIT):
            peak, proved = max(peak, proof.peak), [*proved, proof.property]
    return peak, ",".join(proved)


def _induction() -> tuple[int, str]:
    """V2 under D1, S1 by 1-induction: the units of its inductive step, and its method."""
    proof = k_induction(encoding_for(V2, ("D1",)), "S1", 1, (), 0, CERTIFICATE_RLIMIT)
    return (0, "none") if proof is None else (proof.peak, proof.method)


def _spacer_translated() -> tuple[int, str]:
    """The planted variant that `budget.own_context` is not: the clauses translated
    (`ExprRef.translate`) into a new context rather than rebuilt from their text."""
    ctx = z3.Context()
    solver = Bounded(RLIMIT, z3.SolverFor("HORN", ctx=ctx))
    solver.add(*(rule.translate(ctx) for rule in clauses(encoding_for(V2, ("D1",)), "S3").rules))
    answer = solver.check()
    return answer.used, str(answer.result)


def _other_cells() -> None:
    """What a process may have run before: the certificates of V2's S1 and S2 under D1 (the
    cell's group) and Spacer on another cell (V1 under D2, S3)."""
    prove_first(encoding_for(V2, ("D1",)), ("S1", "S2"), ("S1", "S2"),
                ProveOptions(chc_properties=(), mirror="none"))
    chc_decide(encoding_for(V1, ("D2",)), "S3", RLIMIT)


def _measure(query: Query, after_others: bool) -> tuple[int, str]:
    if after_others:
        _other_cells()
    return query()


def _in_fresh_process(query: Query, after_others: bool) -> tuple[int, str]:
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_measure, query, after_others).result()


def test_spacer_spends_the_same_units_fresh_and_after_other_cells() -> None:
    fresh = _in_fresh_process(_spacer, after_others=False)
    after = _in_fresh_process(_spacer, after_others=True)
    assert fresh[1] == "sat" and fresh[0] > 0
    assert after == fresh


def test_certificates_spend_the_same_units_fresh_and_after_other_cells() -> None:
    fresh = _in_fresh_process(_certificates, after_others=False)
    after = _in_fresh_process(_certificates, after_others=True)
    assert fresh[1] == "S1,S2,S3,S2" and fresh[0] > 0
    assert after == fresh


def test_induction_spends_the_same_units_fresh_and_after_other_cells() -> None:
    fresh = _in_fresh_process(_induction, after_others=False)
    after = _in_fresh_process(_induction, after_others=True)
    assert fresh[1].startswith("1-induction") and fresh[0] > 0
    assert after == fresh


@pytest.mark.parametrize("planted", [_spacer_on_the_process_context, _spacer_translated])
def test_planted_spacer_queries_depend_on_what_ran_before(planted: Query) -> None:
    fresh = _in_fresh_process(planted, after_others=False)
    after = _in_fresh_process(planted, after_others=True)
    assert fresh[1] == after[1] == "sat"
    assert fresh[0] != after[0]
