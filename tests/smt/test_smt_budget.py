"""How the pinned z3 counts its resource limit (`rlimit`), which `smt.budget` builds on.

The facts under test: the limit bounds each check on its own (not the solver's or context's
total), the "rlimit count" statistic is cumulative over the context, a query that runs out is
unknown having spent its limit, and the units a query spends do not depend on the process,
its hash seed or the machine's load, only on the query (and what the context built before).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import z3

from model_checks.smt.budget import Bounded, counter


def pigeons(holes: int) -> list[z3.BoolRef]:
    """holes + 1 pigeons in `holes` holes, one per hole: unsatisfiable, and hard for a SAT
    solver (resolution needs exponentially many steps)."""
    sits = [[z3.Bool(f"pigeon{i}_hole{j}") for j in range(holes)] for i in range(holes + 1)]
    facts: list[z3.BoolRef] = [z3.Or(row) for row in sits]
    for j in range(holes):
        for i in range(holes + 1):
            facts += [z3.Not(z3.And(sits[i][j], sits[k][j])) for k in range(i + 1, holes + 1)]
    return facts


def units(holes: int) -> int:
    solver = Bounded(10**9)
    solver.add(*pigeons(holes))
    answer = solver.check()
    assert answer.result == z3.unsat
    return answer.used


def test_the_limit_bounds_each_check_not_the_solver_total() -> None:
    need = units(6)
    solver = Bounded(need * 3 // 2)
    solver.add(*pigeons(6))
    answers = [solver.check() for _ in range(4)]
    assert [a.result for a in answers] == [z3.unsat] * 4
    assert sum(a.used for a in answers) > solver.rlimit  # cumulative counting would fail here


def test_a_query_that_runs_out_is_unknown_having_spent_its_limit() -> None:
    need = units(7)
    solver = Bounded(need // 2)
    solver.add(*pigeons(7))
    answer = solver.check()
    assert answer.result == z3.unknown
    assert answer.exhausted
    assert solver.rlimit <= answer.used < need
    assert "rlimit" in answer.why_unknown() and str(answer.used) in answer.why_unknown()


def test_the_counter_is_cumulative_over_the_context() -> None:
    first = Bounded(10**9)
    before = counter(first.solver)
    units(6)
    units(6)
    second = Bounded(10**9)
    assert counter(second.solver) >= before + 2 * units(6) // 2


def test_a_bad_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="rlimit"):
        Bounded(0)


_CHILD = (
    "from tests.smt.test_smt_budget import units; print(units(7))"
)


def _units_in_child(seed: str, busy: int) -> int:
    """The units of the same query in a fresh process with hash seed `seed`, while `busy`
    CPU-bound processes run beside it."""
    env = dict(os.environ, PYTHONHASHSEED=seed)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                             text=True, check=True, cwd=os.getcwd())
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return int(out.stdout.strip())


def test_units_spent_are_the_same_in_any_process_and_under_load() -> None:
    idle, loaded = _units_in_child("1", 0), _units_in_child("2", 2)
    assert idle == loaded > 0
