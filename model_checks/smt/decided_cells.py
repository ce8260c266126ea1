"""Which cells the SMT checker decides, and what it expects of each.

The expected matrix (`model_checks.kernel.cell_sets.CELL_SETS`: the main matrix, the pairs of drift
sources, or both) is the authority; the SMT checker reads its safety cells (S1, S2, S3, H1).
Without a matrix it would use `own_expectation`, a
rule reasoned out from the protocol for a bounded configuration with one front end and one item
per request (budget 1..4, sizes 1..3), stated property by property below; it also decides how
deep to search a cell whose environment has drift sources the encoding leaves out.

Mutants: every spec mutant (`model_checks.mutation.spec_mutants`) that breaks a state property
under its witness's environment must yield a Z3 counterexample there too.
"""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.kernel import cell_sets, matrix
from model_checks.kernel.judged import judged_ids
from model_checks.kernel.matrix import Expectation
from model_checks.mutation.spec_mutants import spec_mutants
from model_checks.smt.judged import judged
from spec import VARIANTS, Variant, property_ids

SAFETY: tuple[str, ...] = judged_ids(judged(), property_ids())
"""The state properties the SMT checker decides (its table, `properties.judged`: S1-S3 and
H1; S4 is a documented limit; L1-L4 are traces)."""


def environments() -> tuple[tuple[str, ...], ...]:
    """The matrix's environments."""
    return matrix.ENVIRONMENTS


@dataclass(frozen=True)
class SmtCell:
    """One query: a variant (or mutant), an environment, a property, what must come out."""

    variant: Variant
    environment: tuple[str, ...]
    property: str
    expected: Expectation
    source: str  # "matrix", "smt-own", "mutant" or "store" (`smt.command.store_cells`)


_LOSES_KEYS = {"D1", "D2", "D3", "D4", "D9", "D10"}
"""Drift that, with one front end and one item per request, leaves P0 trusting a key P1 lacks
(D5's is listed apart; D6 and D8 need two items)."""
_CACHE_WINS_STALE = {"D1", "D2", "D3", "D4", "D9", "D10"}
"""With D7: drift that lets P0 send a new payload for a key P1 still holds (cache wins)."""
_PAYLOAD_WINS_STALE = {"D1", "D2", "D5"}
"""With D7: drift that lets P1 hold another processing than P0's entry under the same key
when P0 sends a reference (payload lost or overtaken, or another front end's payload), with
one item per request. The expected matrix's pair cells D1+D7, D2+D7 (and D5+D7) say the
same; with two items D6 and D8 join them (`model_checks.kernel.pair_reasons`)."""


def own_expectation(variant: Variant, env: tuple[str, ...], prop: str) -> Expectation:
    """The rule used until the expected matrix is filled.

    H1 breaks when some drift leaves P0 trusting a key P1 lacks. S3 breaks in V0 exactly
    then (the engine asserts on the miss); V1-V3 never fault with one item per request (the
    P0-side assertion needs D6 or D8). S2 holds in every variant (correct LRUs). S1 needs D7
    (otherwise an identity names one content): cache-wins variants break it as soon as P0 can
    miss a key P1 still holds; V2 when P1 can hold another processing than P0's entry; V3 never
    (tags).
    """
    drift = set(env)
    if prop == "H1":
        broken = bool(drift & (_LOSES_KEYS | {"D5"}))
    elif prop == "S3":
        broken = not variant.reports_misses and bool(drift & (_LOSES_KEYS | {"D5"}))
        broken = broken or (not variant.late_miss_reprocess and bool(drift & {"D6", "D8"}))
    elif prop == "S2":
        broken = False
    elif prop == "S1":
        if "D7" not in drift or variant.tagged:
            broken = False
        elif variant.payload_wins:
            broken = bool(drift & _PAYLOAD_WINS_STALE)
        else:
            broken = bool(drift & (_CACHE_WINS_STALE | {"D5"}))
    else:
        raise KeyError(prop)
    return Expectation.BREAKS if broken else Expectation.HOLDS


def _from_matrix(selection: str) -> list[SmtCell]:
    cells = []
    for cell in cell_sets.cells_named(selection):
        variant = next(v for v in VARIANTS if v.name == cell.variant)
        for prop in SAFETY:
            expected = cell.expectations.get(prop)
            if expected is not None and expected is not Expectation.NOT_JUDGED:
                cells.append(SmtCell(variant, tuple(cell.environment), prop, expected, "matrix"))
    return cells


def matrix_cells(selection: str = "matrix") -> list[SmtCell]:
    """The safety cells of a selection of the expected matrix (`cell_sets.CELL_SETS`: the main
    job's "matrix", the nightly "pairs" or "all"); without a matrix, `own_expectation`."""
    if matrix.EXPECTED:
        return _from_matrix(selection)
    return [
        SmtCell(v, env, prop, own_expectation(v, env, prop), "smt-own")
        for v in VARIANTS for env in environments() for prop in SAFETY
    ]


def mutant_cells() -> list[SmtCell]:
    """Each mutant, under its witness's environment, for every state property it breaks."""
    return [
        SmtCell(m.variant, tuple(m.witness.drift), prop, Expectation.BREAKS, "mutant")
        for m in spec_mutants() for prop in sorted(m.breaks & set(SAFETY))
    ]
