"""Every checker's table of the properties it judges (`model_checks.kernel.judged`), by
checker name.

Kept apart from `judged`, which every checker imports for its own table: this module reads
the checkers, so it sits above them, and `judged` below them, with no import between the two
directions.
"""

from __future__ import annotations

from collections.abc import Callable

from model_checks.conform.lru_lockstep.judged import judged as conform
from model_checks.explore.lru_judging.judge import judged as explore
from model_checks.kernel.judged import Table
from model_checks.kernel.verdict_records import CONFORMANCE, EXPLORE, HYPOTHESIS, Z3_BMC
from model_checks.simulate.lru_rules import judged as simulate
from model_checks.smt.judged import judged as z3


def checker_tables() -> dict[str, Callable[[], Table]]:
    """Every checker's table, by checker name (`records.Checker.name`: Z3's stands for both
    of its record names, conformance's for its safety records too)."""
    return {HYPOTHESIS.name: simulate, EXPLORE.name: explore, Z3_BMC.name: z3,
            CONFORMANCE.name: conform}
