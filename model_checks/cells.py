"""The words every checker uses for its cells: how a cell is named, and how a verdict compares
with the expected matrix.

A *cell* is a variant (or a mutant) under an environment (a tuple of drift ids), searched in
some instance; a checker's job judges one cell, or one cell's property, and its *outcome* is
the verdict records it wrote (`model_checks.records.VerdictRecord`) with whatever figures the
checker reports besides. Three rules are stated here once:

- `environment_text`: an environment in prose, tables and progress lines (`D1+D7`, `none`);
- `cell_label`: a cell in job names and trace file names (`V1_D1_D7`, `V1_none`), and
  `cell_identifier`, the same made a Python identifier (Hypothesis names a state machine
  class after its cell, and prints that name in the traces it reports);
- `agreement`: what a verdict on a cell says about the matrix's expectation for it: a
  match, a mismatch (a finding), undecided, unshown (a smaller instance than the matrix's
  showing no counterexample contradicts nothing), or not judged.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable

from model_checks.matrix import Expectation
from model_checks.records import Checker, Verdict


def environment_text(environment: Iterable[str]) -> str:
    """An environment as prose and tables write it: drift ids joined by `+`, or `none`."""
    return "+".join(environment) or "none"


def cell_label(variant: str, environment: Iterable[str]) -> str:
    """A cell as job names and trace files name it: the variant and the drift ids joined by
    `_`, or `<variant>_none`."""
    return f"{variant}_{'_'.join(environment) or 'none'}"


def identifier(text: str) -> str:
    """`text` as a Python identifier: every run of other characters becomes one `_`."""
    return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_")


def cell_identifier(variant: str, environment: Iterable[str]) -> str:
    """`cell_label` made a Python identifier (`V1_D5-router` becomes `V1_D5_router`)."""
    return identifier(cell_label(variant, environment))


class Agreement(enum.Enum):
    MATCH = "match"  # the verdict shows what the matrix expects
    MISMATCH = "mismatch"  # the verdict contradicts the matrix: a finding
    UNDECIDED = "undecided"  # the checker could not decide (outside its encoding or budget)
    UNSHOWN = "unshown"  # no counterexample in an instance smaller than the matrix's
    NOT_JUDGED = "not judged"  # the matrix expects nothing of the property here

    def __repr__(self) -> str:
        return f"Agreement.{self.name}"


def agreement(checker: Checker, expected: Expectation | None, verdict: Verdict) -> Agreement:
    """What `verdict`, by `checker`, says about a cell the matrix expects `expected` of (None
    where the matrix has no such cell or property).

    A counterexample where the matrix expects the property to hold is always a mismatch:
    every checker's instance is contained in the matrix's, so its trace is one there too. A
    verdict without one where a break is expected is a mismatch only for a checker that
    searched the matrix's own instance (`Checker.matrix_instance`); a smaller instance need
    not show the break (`UNSHOWN`)."""
    if expected is None or expected is Expectation.NOT_JUDGED:
        return Agreement.NOT_JUDGED
    if verdict is Verdict.COUNTEREXAMPLE:
        return Agreement.MATCH if expected is Expectation.BREAKS else Agreement.MISMATCH
    if verdict is Verdict.UNKNOWN:
        return Agreement.UNDECIDED
    if expected is Expectation.HOLDS:
        return Agreement.MATCH
    return Agreement.MISMATCH if checker.matrix_instance else Agreement.UNSHOWN
