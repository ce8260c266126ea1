"""Deterministic solver budgets: every query is bounded by z3's resource limit, never by seconds.

How the pinned z3 (5.4.1) counts it, as `tests/smt/test_smt_budget.py` shows:
- `solver.set("rlimit", N)` bounds each `check` on its own: a check may spend N units of the
  context's resource counter from where the counter stood when the check began. Repeated checks
  on one solver (incremental BMC) each get N again; the limit is not cumulative.
- The statistic "rlimit count" is the context's counter, cumulative over every solver of the
  context; the units one check spent are its difference across that check (`Bounded.check`).
- The units a query spends depend on the query and on what the context built before it (the
  ids z3 gives new terms): the same query after other ones may spend tens of percent more or
  fewer units, and so run out where it would not alone. `runner.run_cells` runs each group of
  cells in a process forked for it (the same units whatever the machine or the worker), and a
  query rebuilt in a context of its own from its SMT-LIB text (`own_context`) spends the same
  units whatever ran before it in the process; `Term.translate` into a fresh context does not
  do that (the translated query's units still follow the process's history). Spacer, the
  certificates and 1-induction run so; BMC's incremental solver, the parametric models (their
  names are not unambiguous SMT-LIB) and the cross-check still run on the process's context.

A query that runs out answers unknown; `Bounded.check` says so with the units it spent, and the
checkers report the cell undecided with that figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import z3

from model_checks.smt.limits import BMC_RLIMIT, CERTIFICATE_RLIMIT, DEEP_RLIMIT, STEP_RLIMIT

__all__ = ["BMC_RLIMIT", "CERTIFICATE_RLIMIT", "DEEP_RLIMIT", "STEP_RLIMIT", "Answer", "Bounded",
           "counter", "own_context"]

RLIMIT_STATISTIC = "rlimit count"


def counter(solver: z3.Solver) -> int:
    """The context's cumulative resource counter (0 before z3 counted anything)."""
    stats = solver.statistics()
    names = stats.keys()  # a z3 Statistics object is not a mapping
    if RLIMIT_STATISTIC not in names:
        return 0
    return int(stats.get_key_value(RLIMIT_STATISTIC))


def own_context(facts: Sequence[z3.BoolRef]) -> tuple[z3.Context, list[z3.BoolRef]]:
    """`facts` rebuilt in a new z3 context from their SMT-LIB text, with that context: a query
    over them spends units that depend on the facts only, not on what the process's context
    built before (the text names terms, it does not carry z3's ids). `tests/smt/
    test_smt_query_history.py` shows it, and that the process's context does not. The facts'
    names must read back as one term each (z3 raises `Z3Exception` on a name two constants
    of different sorts share)."""
    text = z3.Solver()
    text.add(*facts)
    ctx = z3.Context()
    rebuilt = [fact for fact in z3.parse_smt2_string(text.to_smt2(), ctx=ctx)
               if isinstance(fact, z3.BoolRef)]
    if len(rebuilt) != len(facts):  # one assertion per fact, in order: callers rely on it
        raise ValueError(f"rebuilt {len(rebuilt)} facts from {len(facts)}")
    return ctx, rebuilt


@dataclass(frozen=True)
class Answer:
    """One check's result and the resource units it spent (`used`) out of `rlimit`."""

    result: z3.CheckSatResult
    used: int
    rlimit: int
    reason: str = ""

    @property
    def exhausted(self) -> bool:
        """Unknown because the query ran out of its resource limit."""
        return self.result == z3.unknown and self.used >= self.rlimit

    def why_unknown(self) -> str:
        """The reason of an unknown answer in words, with the units spent."""
        if self.exhausted:
            return f"rlimit {self.rlimit} exhausted (used {self.used})"
        return f"solver: {self.reason or 'unknown'} (used {self.used} of rlimit {self.rlimit})"


class Bounded:
    """A z3 solver whose every check is bounded by `rlimit` resource units; it remembers the
    most units one of its checks spent (`peak`), the figure to calibrate limits by."""

    def __init__(self, rlimit: int, solver: z3.Solver | None = None) -> None:
        """`solver`: the z3 solver to bound (default: z3's default solver), so that solver
        configurations (a logic, a tactic) are compared by the units they spend."""
        if rlimit < 1:
            raise ValueError(f"got rlimit {rlimit}, expected at least 1")
        self.rlimit = rlimit
        self.solver = z3.Solver() if solver is None else solver
        self.solver.set("rlimit", rlimit)
        self.peak = 0

    @classmethod
    def alone(cls, rlimit: int, *facts: z3.BoolRef) -> Bounded:
        """A default solver holding `facts`, in a z3 context of its own (`own_context`): its
        checks spend units that depend on `facts` and the assumptions only. Its model, if
        read, is in that context (`ModelRef.translate` brings it back)."""
        ctx, rebuilt = own_context(facts)
        bounded = cls(rlimit, z3.Solver(ctx=ctx))
        bounded.add(*rebuilt)
        return bounded

    def add(self, *facts: z3.BoolRef) -> None:
        self.solver.add(*facts)

    def check(self, *assumptions: z3.BoolRef) -> Answer:
        before = counter(self.solver)
        result = self.solver.check(*assumptions)
        used = counter(self.solver) - before
        self.peak = max(self.peak, used)
        reason = self.solver.reason_unknown() if result == z3.unknown else ""
        return Answer(result, used, self.rlimit, reason)

    def model(self) -> z3.ModelRef:
        return self.solver.model()
