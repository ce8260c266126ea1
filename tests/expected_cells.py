"""One cell of the expected matrix by variant and environment, for the tests that read its
expectations (`model_checks.kernel.cell_sets.ALL_EXPECTED`, pairs included)."""

from __future__ import annotations

from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.matrix import Cell


def expected_cell(variant: str, env: tuple[str, ...]) -> Cell:
    """The cell for a variant and environment (drift ids in numeric order), pairs included."""
    for cell in ALL_EXPECTED:
        if cell.variant == variant and cell.environment == env:
            return cell
    raise KeyError(f"no expected cell for {variant} under {'+'.join(env) or 'no drift'}")
