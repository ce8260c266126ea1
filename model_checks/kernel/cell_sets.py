"""The selections of the LRU design's expected matrix a sweep takes, and the `--cells` option
naming them (per design by nature: read by the Hypothesis matrix through
`simulate.lru_matrix`).

`ALL_EXPECTED` is the whole matrix (the main cells, `matrix.EXPECTED`, then the pair cells,
`pair_cells.PAIR_EXPECTED`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from model_checks.kernel.matrix import EXPECTED, Cell
from model_checks.kernel.pair_cells import PAIR_EXPECTED

ALL_EXPECTED: tuple[Cell, ...] = EXPECTED + PAIR_EXPECTED
"""The whole expected matrix: the main matrix, then every other pair of drift sources."""

CELL_SETS: Mapping[str, tuple[Cell, ...]] = {
    "matrix": EXPECTED, "pairs": PAIR_EXPECTED, "all": ALL_EXPECTED,
}
"""The cell selections a sweep takes (`--cells`). The main job runs `matrix` (its CI budget
cannot hold simulate and prove on 212 more cells); the nightly job runs `all`. A cell the
committed results snapshot has no record of is shown as "not run in this snapshot"."""


def add_cells_argument(parser: argparse.ArgumentParser) -> None:
    """`--cells matrix|pairs|all` (default matrix), read back with `cells_named`."""
    parser.add_argument("--cells", choices=sorted(CELL_SETS), default="matrix",
                        help="which cells of the expected matrix: matrix (the main job's "
                             "environments, default), pairs (every other pair of drift "
                             "sources: nightly), all")


def cells_named(name: str) -> tuple[Cell, ...]:
    """The cells of a selection (`CELL_SETS`); a KeyError names the choices."""
    try:
        return CELL_SETS[name]
    except KeyError:
        raise KeyError(f"unknown cell set {name!r}; expected one of "
                       f"{', '.join(sorted(CELL_SETS))}") from None
