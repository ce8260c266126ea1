"""Deterministic solver budgets: every query is bounded by z3's resource limit, never by seconds.

How the pinned z3 (5.4.1) counts it, as `tests/smt/test_smt_budget.py` shows:
- `solver.set("rlimit", N)` bounds each `check` on its own: a check may spend N units of the
  context's resource counter from where the counter stood when the check began. Repeated checks
  on one solver (incremental BMC) each get N again; the limit is not cumulative.
- The statistic "rlimit count" is the context's counter, cumulative over every solver of the
  context; the units one check spent are its difference across that check (`Bounded.check`).
- The units a query spends depend on the query and on what the context built before it (the
  ids z3 gives new terms): the same query after another one may spend a few hundred more.
  So a verdict is a function of the query only when each group of queries runs in a fresh
  process (`runner.run_cells` does that), whatever the machine's load or the worker that runs it.

A query that runs out answers unknown; `Bounded.check` says so with the units it spent, and the
checkers report the cell undecided with that figure.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

RLIMIT_STATISTIC = "rlimit count"

BMC_RLIMIT = 200_000_000
"""Per BMC query (one depth of one cell group). Calibrated on the main job's `prove` with no
limit (issue 12's report): the costliest query of the first 48 groups spent 109 million
units (V1 under D6, the depth of S3's 8-step counterexample), about 60 s of CPU at the 1.8
million units per CPU-second measured here, which is the 60 s timeout this limit replaces;
every other group stayed under 50 million. 200 million leaves that query a margin of 1.8."""

CERTIFICATE_RLIMIT = 300_000_000
"""Per query of an inductive certificate (initiation, consecution of one invariant,
implication) and of k-induction: V3's certificate under every drift source at once, the
largest, took 39 s (about 70 million units); single-source certificates spend under 10
million."""

DEEP_RLIMIT = 1_200_000_000
"""Per query of the deep searches outside the main job (the mutants' 14-15 step
counterexamples: `python -m model_checks mutants`, the slow mutant tests), which used to get
300 to 600 s per query."""

STEP_RLIMIT = 20_000_000
"""Per cross-check query (one concrete step of the spec against the relation): small, ground."""


def counter(solver: z3.Solver) -> int:
    """The context's cumulative resource counter (0 before z3 counted anything)."""
    stats = solver.statistics()
    names = stats.keys()  # a z3 Statistics object is not a mapping
    if RLIMIT_STATISTIC not in names:
        return 0
    return int(stats.get_key_value(RLIMIT_STATISTIC))


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

    def __init__(self, rlimit: int) -> None:
        if rlimit < 1:
            raise ValueError(f"got rlimit {rlimit}, expected at least 1")
        self.rlimit = rlimit
        self.solver = z3.Solver()
        self.solver.set("rlimit", rlimit)
        self.peak = 0

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
