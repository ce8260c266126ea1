"""Unrolling and iterative deepening: exactly k transitions, shortest counterexamples, and a
faulted state with no successor (the off-by-one trap: an unrolling one transition too long
hides a violation with no successor)."""

from __future__ import annotations

from dataclasses import dataclass

import z3

from model_checks.smt.encode.actions import args_at, initial, transition
from model_checks.smt.encode.symbols import (
    Encoding,
    FaultCode,
    Params,
    SymState,
    at,
    params,
    params_constraint,
    state_at,
)
from model_checks.smt.results import ProvedToBound, Violated
from model_checks.smt.search.bmc import BmcOptions, bmc, bmc_many
from spec import V0, V2, V3, environment


@dataclass(frozen=True)
class Unrolling:
    states: tuple[SymState, ...]
    formula: z3.BoolRef

    @property
    def transitions(self) -> int:
        return len(self.states) - 1


def unroll(enc: Encoding, p: Params, k: int) -> Unrolling:
    """The initial state, the parameter ranges and exactly k transitions."""
    states = [state_at(enc, t) for t in range(k + 1)]
    facts = [params_constraint(enc, p), initial(enc, states[0])]
    facts += [transition(enc, p, states[t], states[t + 1], args_at(t)) for t in range(k)]
    return Unrolling(tuple(states), z3.And(facts))


def _acts(formula: z3.ExprRef) -> set[str]:
    found: set[str] = set()
    todo = [formula]
    seen: set[int] = set()
    while todo:
        expr = todo.pop()
        if expr.get_id() in seen:
            continue
        seen.add(expr.get_id())
        if z3.is_const(expr) and expr.decl().name().startswith("act@"):
            found.add(expr.decl().name())
        todo.extend(expr.children())
    return found


def test_unroll_builds_exactly_k_transitions() -> None:
    enc = Encoding(V3, environment("D3"))
    p = params(enc)
    for k in (0, 1, 3):
        unrolled = unroll(enc, p, k)
        assert unrolled.transitions == k
        assert len(unrolled.states) == k + 1
        assert _acts(unrolled.formula) == {at("act", t) for t in range(k)}


def test_a_depth_k_violation_is_not_found_at_k_minus_1_but_at_k() -> None:
    enc = Encoding(V0, environment("D1"))  # the reordered-delivery crash takes 5 steps
    assert isinstance(bmc(enc, "S3", 4), ProvedToBound)
    found = bmc(enc, "S3", 5)
    assert isinstance(found, Violated)
    assert found.depth == len(found.trace.steps) == 5


def test_an_unrolling_reaches_the_violation_at_its_last_state() -> None:
    enc = Encoding(V0, environment("D1"))
    p = params(enc)
    unrolled = unroll(enc, p, 5)
    solver = z3.Solver()
    solver.add(unrolled.formula, unrolled.states[-1]["fault"] != FaultCode.NONE)
    assert solver.check() == z3.sat


def test_a_faulted_state_has_no_successor() -> None:
    enc = Encoding(V0, environment("D3", "D4", "D10"))
    p = params(enc)
    s, n = state_at(enc, 0), state_at(enc, 1)
    solver = z3.Solver()
    solver.add(params_constraint(enc, p), s["fault"] == FaultCode.ENGINE_CRASH)
    solver.add(transition(enc, p, s, n, args_at(0)))
    assert solver.check() == z3.unsat


def test_the_initial_state_is_the_specs() -> None:
    enc = Encoding(V3, environment())
    s = state_at(enc, 0)
    solver = z3.Solver()
    solver.add(initial(enc, s), s["nreq"] != 0)
    assert solver.check() == z3.unsat


def test_fresh_and_incremental_deepening_agree() -> None:
    """A fresh solver per depth finds the same shortest counterexample and proves the same
    bound as one incremental solver."""
    for incremental in (True, False):
        broken = bmc_many(Encoding(V0, environment("D1")), ("S3", "S1"), 5,
                          BmcOptions(incremental=incremental))
        assert isinstance(broken["S3"], Violated) and broken["S3"].depth == 5
        assert isinstance(broken["S1"], ProvedToBound) and broken["S1"].bound == 5
        held = bmc_many(Encoding(V2, environment()), ("H1",), 4,
                        BmcOptions(incremental=incremental))
        assert isinstance(held["H1"], ProvedToBound) and held["H1"].bound == 4
