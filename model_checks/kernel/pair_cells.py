"""The pair cells of the expected matrix, derived from the main matrix's single-source rows.

A pair's expectation is the union of its two sources' (`union`: the environment's behaviours
only grow, so the pair breaks what either breaks alone) plus its interactions, the reasoned
`pair_reasons.PAIR_REASONS`; the properties the matrix's instance of the pair cannot show
(`instance.instance_contains`, `pair_reasons.needs_c`) are its `unshown`. Every pair cell's
`why` is generated from those parts.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

from model_checks.kernel.instance import instance_contains
from model_checks.kernel.matrix import (
    ALWAYS,
    ENVIRONMENTS,
    PROPERTIES,
    WIDER_PROPERTIES,
    Cell,
    Expectation,
    single,
)
from model_checks.kernel.pair_reasons import PAIR_REASONS, PairReason, needs_c
from spec import DRIFT_IDS, VARIANT_NAMES, Drift, variant_named

PAIR_ENVIRONMENTS: tuple[tuple[str, ...], ...] = tuple(
    pair for pair in combinations(DRIFT_IDS, 2) if pair not in ENVIRONMENTS
)
"""Every other pair of drift sources (53 of the 55; D5+D7 and D7+D10 are in ENVIRONMENTS).
Run by the nightly job (`--cells pairs` / `all`), not by the main job (`cell_sets.CELL_SETS`)."""

def union(variant: str, pair: tuple[str, ...]) -> dict[str, Expectation]:
    """Per property, what monotonicity alone says of a pair: it breaks what either source
    breaks alone, is not judged where one leaves it unjudged and neither breaks it, and holds
    otherwise (unless an interaction breaks it: `PairReason.breaks`)."""
    found = [single(variant, d).expectations for d in pair]
    return {
        p: Expectation.BREAKS if any(e[p] is Expectation.BREAKS for e in found)
        else Expectation.NOT_JUDGED if any(e[p] is Expectation.NOT_JUDGED for e in found)
        else Expectation.HOLDS
        for p in PROPERTIES
    }


def _broken(cell: Cell) -> set[str]:
    return {p for p, e in cell.expectations.items() if e is Expectation.BREAKS}


def _names(props: set[str]) -> str:
    return " ".join(p for p in PROPERTIES if p in props) or "nothing"


def _pair_why(variant: str, pair: tuple[str, ...], reason: PairReason | None,
              expectations: Mapping[str, Expectation], unshown: frozenset[str]) -> str:
    """The generated part of a pair cell's `why` (what each source breaks alone and the
    union), then the hand-written reasoning of its interactions, if any."""
    alone = "; ".join(
        f"{d} ({Drift(d).title}) alone breaks {_names(_broken(single(variant, d)))}"
        for d in pair
    )
    broken = {p for p, e in expectations.items() if e is Expectation.BREAKS}
    unjudged = {p for p, e in expectations.items() if e is Expectation.NOT_JUDGED}
    lost = [d for d in pair if not instance_contains(pair, (d,))]
    text = (
        f"Pair {'+'.join(pair)}, {variant}. {alone}. Behaviours only grow with the "
        "environment (a trace under one source is a trace, on the same instance, under both: "
        "tests/test_matrix_pairs.py replays each source's snapshot counterexample with the "
        "pair's environment), so the pair breaks at least the union. "
        + f"Expected to break: {_names(broken)}"
        + (f"; not judged: {_names(unjudged)}" if unjudged else "") + "."
    )
    if lost:
        text += (
            f" The matrix's instance for this pair does not contain {' or '.join(lost)}'s "
            "(`instance_contains`: D11 makes c over the budget, D9 skews b and c), so a "
            "search of it need not show " + _names(set(unshown)) + " (`needs_c`; "
            "Hypothesis judges them as not judged there; Z3, with sizes of its own, and the "
            "lifted traces judge them)."
            if unshown else
            f" The matrix's instance for this pair does not contain {' or '.join(lost)}'s "
            "(`instance_contains`), but every break of the union also comes from a source "
            "whose instance it contains."
        )
    if reason is None:
        return text + " No interaction: nothing breaks with both that neither breaks alone."
    return f"{text} {reason.why}"


def _shown(variant: str, pair: tuple[str, ...], drift: str, prop: str) -> bool:
    """Whether the matrix's instance of `pair` can show a break `drift` has alone: it
    contains `drift`'s instance, or differs from it only in c's size and the break does not
    need c (`needs_c`)."""
    if instance_contains(pair, (drift,)):
        return True
    return instance_contains(pair, (drift,), frozenset({"c"})) and prop not in needs_c(
        drift, variant_named(variant))


def _pair_cell(variant: str, pair: tuple[str, ...]) -> Cell:
    reason = PAIR_REASONS.get(pair)
    expectations = union(variant, pair)
    interactions = set(reason.breaks_in(variant_named(variant))) if reason is not None else set()
    for prop in interactions:
        expectations[prop] = Expectation.BREAKS
    unshown = frozenset(
        p for p, e in expectations.items()
        if e is Expectation.BREAKS and p not in interactions and not any(
            single(variant, d).expectations[p] is Expectation.BREAKS
            and _shown(variant, pair, d, p) for d in pair)
    )
    why = _pair_why(variant, pair, reason, expectations, unshown)
    wider = {p: Expectation.NOT_JUDGED if p in unshown else expectations[p]
             for p in WIDER_PROPERTIES}
    return Cell(variant, pair, expectations, f"{why} {ALWAYS}", wider,
                reason.why if reason is not None else "", unshown)


PAIR_EXPECTED: tuple[Cell, ...] = tuple(
    _pair_cell(variant, pair) for pair in PAIR_ENVIRONMENTS for variant in VARIANT_NAMES
)
"""The pair cells (PAIR_ENVIRONMENTS x every variant): the nightly job's addition."""
