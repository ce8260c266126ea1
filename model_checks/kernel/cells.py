"""The words every checker uses for its cells: what a cell of an expected matrix is, how it is
named, and how a verdict compares with the matrix.

A *cell* is a variant (or a mutant) under an environment (a tuple of drift ids), searched in
some instance; a checker's task judges one cell, or one cell's property, and its *outcome* is
the verdict records it wrote (`model_checks.kernel.verdict_records.VerdictRecord`) with whatever
figures the checker reports besides. A design's expected matrix is its cells (`Cell`: per
property an `Expectation`); the LRU design's is `model_checks.kernel.matrix`. These words read
no design's spec: a design's variants and properties are handed to them. Three rules are
stated here once:

- an environment is spelled by `spec.Environment.text` (`D1+D7`, `none`, `D5-router`);
- `cell_label`: the one spelling of a cell, in task labels, trace file names and progress
  lines (`V1_D1+D7`, `V1_none`, `V1_D5-router`; with a property, `V1_D1+D7_S1`); an older
  spelling (`V1_D1_D7`, `V1-D1+D7-S1`, `V1_ROUTER`) is an error that names it
  (`older_cell`); `cell_identifier` is the same made a Python identifier, only where one is
  required (Hypothesis names a state machine class after its cell);
- `agreement`: what a verdict on a cell says about the matrix's expectation for it: a
  match, a mismatch (a finding), undecided, unshown (a smaller instance than the matrix's
  showing no counterexample contradicts nothing), or not judged.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from model_checks.kernel.environment_arg import MATRIX_SOURCES
from model_checks.kernel.verdict_records import Checker, Verdict
from spec.drift import ROUTER, BadEnvironment, Environment


class Expectation(enum.Enum):
    HOLDS = "holds"  # no checker may find a violation
    BREAKS = "breaks"  # a counterexample must be found
    NOT_JUDGED = "not judged"  # not meaningful here (say why in the cell)

    def __repr__(self) -> str:
        return f"Expectation.{self.name}"


@dataclass(frozen=True)
class Cell:
    """One row of an expected matrix: a variant, an environment (drift ids), and per property
    id the expectation in the matrix's instance, with the reasoning in `why`, and the
    expectation of the properties also judged in a wider instance (`wider`)."""

    variant: str
    environment: tuple[str, ...]
    expectations: Mapping[str, Expectation]
    why: str
    wider: Mapping[str, Expectation] = field(default_factory=dict)
    """The properties judged at the wider instance (the LRU design's: L3 and L4 at
    `instance.WIDER_IN_FLIGHT` unfinished requests), the same as `expectations` unless the
    verdict depends on the bound."""
    interaction: str = ""
    """A pair cell's hand-written reasoning where its expectation is not the union of its two
    drift sources' (an interaction: a property broken only with both); empty otherwise."""
    unshown: frozenset[str] = frozenset()
    """Properties expected to break under the environment that the matrix's instance of this
    cell need not show: they break only through a drift source whose own instance this one
    does not contain (the LRU design's: `instance.instance_contains`, D11 makes c oversized,
    D9 skews b and c). A search of exactly that instance (Hypothesis) judges them as not
    judged (`at_instance`); Z3 (its own sizes) and the explorer (a proof there contradicts
    nothing) judge `expectations`."""

    @property
    def at_instance(self) -> dict[str, Expectation]:
        """The expectations a search of the matrix's own instance is held to."""
        return {p: Expectation.NOT_JUDGED if p in self.unshown else e
                for p, e in self.expectations.items()}


def cell_label(variant: str, environment: Iterable[str], prop: str | None = None) -> str:
    """The one spelling of a cell: the variant and `Environment.text`, joined by `_`
    (`V2_D2+D7`, `V1_none`, `V1_D5-router`), then `_` and the property where one is named
    (`V2_D2+D7_S1`). Task names, trace files and progress lines print it."""
    label = f"{variant}_{Environment.of(environment).text}"
    return label if prop is None else f"{label}_{prop}"


def identifier(text: str) -> str:
    """`text` as a Python identifier: every run of other characters becomes one `_`."""
    return re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_")


def cell_identifier(variant: str, environment: Iterable[str]) -> str:
    """`cell_label` made a Python identifier, for what must be one (Hypothesis names a state
    machine class after its cell): `V1_D5-router` becomes `V1_D5_router`, `V2_D2+D7`
    becomes `V2_D2_D7`."""
    return identifier(cell_label(variant, environment))


def older_cell(text: str, variants: Sequence[str], properties: Sequence[str]) -> str | None:
    """`cell_label`'s spelling of `text` where it is an older spelling of a cell of a matrix
    over `variants` and `properties`, else None: environments joined by `_` (`V2_D2_D7`, as
    task labels and class names once wrote them), `-` between the parts (`V2-D2+D7-S1`),
    spaces (`V2 D2+D7 S1`), and `D5_router` or `ROUTER` for `D5-router`; any case."""
    words = re.sub(r"d5[-_]router|(?<![a-z])router(?![a-z])", "ROUTER", text.strip(),
                   flags=re.IGNORECASE)
    tokens = [w for w in re.split(r"[\s_+-]+", words) if w]
    by_name = {v.upper(): v for v in variants}
    if len(tokens) < 2 or tokens[0].upper() not in by_name:
        return None
    by_id = {p.upper(): p for p in properties}
    prop = by_id.get(tokens[-1].upper()) if len(tokens) > 2 else None
    env = [ROUTER if t.upper() == "ROUTER" else t for t in
           (tokens[1:-1] if prop is not None else tokens[1:])]
    try:
        drift = Environment.parse("+".join(env), MATRIX_SOURCES).sources
    except BadEnvironment:
        return None
    label = cell_label(by_name[tokens[0].upper()], drift, prop)
    return None if label.lower() == text.strip().lower() else label


def cell_matches(text: str, variant: str, environment: Iterable[str]) -> bool:
    """Whether a cell filter (`simulate --only`) selects a cell: `text` is part of the cell's
    label (`cell_label`), in any case (`V2_D1+D7`; `V0_` selects every V0 cell)."""
    return text.lower() in cell_label(variant, environment).lower()


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
