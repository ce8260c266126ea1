"""What the one Hypothesis matrix (`simulate.run`, `simulate.command`) reads of a design whose
expected verdict matrix it checks: the interface a design declares its matrix through.

A design with an expected matrix declares (`MatrixDesign`): its variants, properties and
drift sources (the words a cell is spelled in: `kernel.cells`), its cells and the selections
of them `--cells` names, the configuration a cell is searched in (its own instance, or the
wider one its `Cell.wider` expectations are judged at), how a counterexample is written as a
trace document, replayed and printed, the explicit witnesses a must-break search falls back
on, and the mutants of its spec searched beside the cells. The search itself (the machine and
its rules: `simulate.machine`, the design's rules by `simulate.lru_rules.rules_for`) is every
design's. The LRU design's declaration is `simulate.lru_matrix` (`matrix_for`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from model_checks.kernel.cells import Cell


@dataclass(frozen=True)
class Script:
    """A hand-written run tried before (or after) a search: `script` (the design's actions)
    is a witness of the properties it breaks on a cell whose environment contains `drift`,
    found by trying it (`MatrixDesign.witness`); it names no property itself."""

    name: str
    drift: frozenset[str]
    script: tuple[Any, ...]


@dataclass(frozen=True)
class Witnessed:
    """The shortest explicit witness breaking a property on a configuration: its name, the
    trace (the fair tail included), the step the property broke at, the length of the
    shortened script (where the fair scheduler took over) and why it broke."""

    name: str
    trace: Any
    step: int
    script_length: int
    reason: str


@dataclass(frozen=True)
class MutantCase:
    """A mutant of a design's spec as a cell: its name, the variant (the mutated one's name)
    and environment of its witness, the configuration its witness runs in, the properties
    it must break there, and its witness, tried when the search finds nothing."""

    name: str
    variant: str
    environment: tuple[str, ...]
    config: Any
    breaks: frozenset[str]
    witness: Script


class MatrixDesign(Protocol):
    """A design's expected matrix, as the one Hypothesis matrix reads it: its `variants`, its
    `properties` (in the order tables print them) and the drift `sources` its environments
    are spelled in; the selections `--cells` names (`cell_sets`, `add_cells_argument`) among
    `all_cells` (a task names its cell by its index there); the configuration a cell is
    searched in (`config`: the matrix's instance, or the wider one of `wider_in_flight`
    unfinished requests that `Cell.wider` is judged at); a counterexample's trace document,
    the step its property breaks at when the document is replayed on the spec, and its step
    table; the shortest explicit witness (of `extra` and the design's own) breaking a property
    on a configuration; and the mutants of its spec, each as a cell (`mutant_case`)."""

    @property
    def name(self) -> str: ...
    @property
    def variants(self) -> Sequence[str]: ...
    @property
    def properties(self) -> Sequence[str]: ...
    @property
    def sources(self) -> tuple[str, ...]: ...
    @property
    def cell_sets(self) -> Mapping[str, tuple[Cell, ...]]: ...
    @property
    def all_cells(self) -> tuple[Cell, ...]: ...
    @property
    def wider_in_flight(self) -> int: ...
    def add_cells_argument(self, parser: argparse.ArgumentParser) -> None: ...
    def config(self, cell: Cell, wider: bool = False) -> Any: ...
    def trace_document(self, trace: Any, property_id: str, step: int, reason: str,
                       fair_from: int) -> dict[str, Any]: ...
    def replayed_step(self, document: Mapping[str, Any]) -> int | None: ...
    def table(self, trace: Any, property_id: str, step: int | None, reason: str,
              fair_from: int | None = None) -> str: ...
    def witness(self, config: Any, environment: Sequence[str], property_id: str,
                extra: Sequence[Script] = ()) -> Witnessed | None: ...
    def mutants(self) -> Sequence[Any]: ...
    def mutant_case(self, mutant: Any) -> MutantCase: ...
