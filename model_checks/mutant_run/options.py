"""The budgets of `python -m model_checks mutants`, importable without any checker (the
command line reads their defaults before it imports one)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.smt.limits import DEEP_RLIMIT

if TYPE_CHECKING:
    from model_checks.executor import Backend


@dataclass(frozen=True)
class Options:
    """Budgets: Z3's two depths (steps), its per-query resource limit (z3 rlimit units, the
    same on every machine: `smt.budget`), worker processes for the
    Hypothesis and Z3 checkers, conformance's process count (1 or 2), where Hypothesis
    writes its counterexample traces (None: nowhere), and where the Hypothesis and Z3 tasks run
    (None: `jobs` local processes)."""

    z3_depth: int = 10
    z3_deep_depth: int = 16
    z3_rlimit: int = DEEP_RLIMIT
    jobs: int = 2
    processes: int = 1
    traces: Path | None = None
    backend: Backend | None = None
