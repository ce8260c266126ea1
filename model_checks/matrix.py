"""The expected verdict matrix: for each variant and environment, what every property must do.

Expectations are data, reasoned out from the protocol (each cell's `why`), never copied from a
checker's output. A checker compares its results with `EXPECTED`; a must-hold property that
fails, or a must-break property whose counterexample is not found within budget, is a mismatch.

(The cells are filled in by the Hypothesis issue; this module fixes their types.)
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


class Expectation(enum.Enum):
    HOLDS = "holds"  # no checker may find a violation
    BREAKS = "breaks"  # a counterexample must be found
    NOT_JUDGED = "not judged"  # not meaningful here (say why in the cell)

    def __repr__(self) -> str:
        return f"Expectation.{self.name}"


@dataclass(frozen=True)
class Cell:
    """One row of the matrix: a variant, an environment (drift ids), and per property id the
    expectation, with the reasoning in `why`."""

    variant: str
    environment: tuple[str, ...]
    expectations: Mapping[str, Expectation]
    why: str


EXPECTED: tuple[Cell, ...] = ()
