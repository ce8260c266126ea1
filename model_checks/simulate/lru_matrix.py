"""The LRU design's expected matrix as the one Hypothesis matrix reads it
(`simulate.matrix_design.MatrixDesign`): per design by nature, as its rules
(`simulate.lru_rules`) are.

The LRU design declares here: its cells and the selections `--cells` names
(`kernel.matrix`, `kernel.cell_sets`: expectations reasoned from its protocol), the
configuration of a cell (`kernel.instance.config_for`, at the matrix's or the wider number of
unfinished requests), how its counterexamples are written, replayed and printed
(`kernel.trace_file`), its explicit witnesses (`simulate.witnesses`) and its spec's mutants
(`mutation.spec_mutants`). `matrix_for` is the one table of the designs' matrices; a design
without one is searched by `simulate.designs`. Hypothesis and the mutants are imported when
a search asks for them, not to parse arguments.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from model_checks.kernel import cell_sets, trace_file
from model_checks.kernel.cells import Cell
from model_checks.kernel.environment_arg import MATRIX_SOURCES
from model_checks.kernel.instance import IN_FLIGHT, WIDER_IN_FLIGHT, config_for
from model_checks.kernel.matrix import PROPERTIES
from model_checks.simulate.matrix_design import MatrixDesign, MutantCase, Script, Witnessed
from spec import VARIANT_NAMES, Config, Trace, variant_named
from spec.designs.lru_design import LRU


@dataclass(frozen=True)
class LruMatrix:
    """The LRU design's expected matrix (`MatrixDesign`)."""

    name: str = LRU.name
    variants: Sequence[str] = VARIANT_NAMES
    properties: Sequence[str] = PROPERTIES
    sources: tuple[str, ...] = MATRIX_SOURCES
    wider_in_flight: int = WIDER_IN_FLIGHT

    @property
    def cell_sets(self) -> Mapping[str, tuple[Cell, ...]]:
        return cell_sets.CELL_SETS

    @property
    def all_cells(self) -> tuple[Cell, ...]:
        return cell_sets.ALL_EXPECTED

    def add_cells_argument(self, parser: argparse.ArgumentParser) -> None:
        cell_sets.add_cells_argument(parser)

    def config(self, cell: Cell, wider: bool = False) -> Config:
        return config_for(variant_named(cell.variant), cell.environment,
                          WIDER_IN_FLIGHT if wider else IN_FLIGHT)

    def trace_document(self, trace: Trace, property_id: str, step: int, reason: str,
                       fair_from: int) -> dict[str, Any]:
        return trace_file.trace_to_json(trace, property_id=property_id, step=step,
                                        reason=reason, fair_from=fair_from)

    def replayed_step(self, document: Mapping[str, Any]) -> int | None:
        return trace_file.replay_data(document).step

    def table(self, trace: Trace, property_id: str, step: int | None, reason: str,
              fair_from: int | None = None) -> str:
        return trace_file.table(trace, property_id, step, reason, fair_from)

    def witness(self, config: Config, environment: Sequence[str], property_id: str,
                extra: Sequence[Script] = ()) -> Witnessed | None:
        from model_checks.simulate.witnesses import shortest_witness

        found = shortest_witness(config, environment, property_id, extra)
        return None if found is None else Witnessed(*found)

    def mutants(self) -> Sequence[Any]:
        from model_checks.mutation.spec_mutants import spec_mutants

        return spec_mutants()

    def mutant_case(self, mutant: Any) -> MutantCase:
        """A spec mutant (`mutation.spec_mutants.Mutant`) as a cell: its witness's
        configuration for the mutated variant, the properties its witness breaks."""
        witness = mutant.witness
        return MutantCase(mutant.name, mutant.variant.name, witness.drift,
                          witness.config(mutant.variant), frozenset(mutant.breaks),
                          Script(f"mutant witness {witness.name}", frozenset(witness.drift),
                                 witness.script))


LRU_MATRIX = LruMatrix()

_MATRICES: dict[str, MatrixDesign] = {LRU_MATRIX.name: LRU_MATRIX}


def matrix_for(design: str) -> MatrixDesign | None:
    """The one table of the designs' expected matrices: the design's, None for a design
    that declares none (its search is `simulate.designs`)."""
    return _MATRICES.get(design)
