"""What the one `explore` command (`model_checks.explore_command`) reads of a design whose
explorer has searches of its own beside the one search of its instances over the `Design`
interface (`design_search`): the interface such a design declares them through.

A design declares (`DesignExplorer`): the options its own searches read (added to the one
parser; given with another design, refused), its expected matrix's cells searched and judged
(`cells`: the command's default for the design), the one instance a user names on the
command line (`named`: its canonical text, the instance in one line, the cell it is of, and
its search, printed and judged by `instance_command`, whose exit rule is every design's
one-instance search's), and its lattice (`lattice_command.LatticeCommandDesign`). A design
without a declaration is explored by `design_search` and its lattice by the design-generic
one. The LRU design's declaration is `lru_explore` (`explorer_for`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from model_checks.explore.design_search import InstanceSearch
from model_checks.explore.lattice_command import LatticeCommandDesign


@dataclass(frozen=True)
class NamedSearch:
    """The instance a user names, ready to search: its canonical text, the instance in one
    line, its cell (variant and environment as a verdict line names them), its state limit,
    how its states are keyed (words after the states' count: empty for plain states), and
    the search (`search()`, its records and figures as `design_search.judged` sums them
    up)."""

    text: str
    description: str
    cell: str
    max_states: int
    keyed: str
    search: Callable[[], InstanceSearch]


@dataclass(frozen=True)
class DesignExplorer:
    """A design's searches of its own (module docstring): `sources`, the drift sources its
    environments are spelled in (another is refused before a search); `named` raises
    `ValueError` with a one-line message naming the fix where the options are bad, before
    anything is searched; `cells` returns the command's exit code (bad options: a one-line
    error, exit 2)."""

    sources: tuple[str, ...]
    add_arguments: Callable[[argparse.ArgumentParser], None]
    cells: Callable[[argparse.Namespace], int]
    named: Callable[[argparse.Namespace], NamedSearch]
    lattice: LatticeCommandDesign[Any]
