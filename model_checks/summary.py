"""The main job's summary: every checker's verdict records merged into one table and one file.

One row per (variant, environment) of the matrix, one column per property. A cell lists each
checker's strongest result, most decisive first: `P*` proved for all depths (Z3 induction),
`xN` a counterexample of N steps (`Z` Z3, `H` Hypothesis), `Pk` proved to depth k (Z3 BMC),
`ok` no violation in the examples explored (Hypothesis), `?` undecided (Z3, not encoded or
timed out), `-` not checked. The explorer (`E`) adds `xNE` (a shortest counterexample in its
instance), `Pi` (proved for its instance, all depths: every reachable state judged) and `vac`
(vacuous: the property cannot fail there); where it has `Pi` or `vac`, the bounded `Pk` and
sampled `ok` are left out. A `!` marks a cell whose results contradict the expected matrix
(a proof by the explorer, whose instance is smaller than the matrix's, contradicts nothing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from model_checks.matrix import EXPECTED, Expectation
from model_checks.records import Verdict, VerdictRecord

LETTER = {"hypothesis": "H", "z3-bmc": "Z", "z3-induction": "Z", "explore": "E"}
EXPLORE = "explore"
PROPERTIES = ("S1", "S2", "S3", "S4", "H1", "L1", "L2", "L3", "L4")

Key = tuple[str, tuple[str, ...], str]


def code(record: VerdictRecord) -> tuple[int, str]:
    """(rank, code) of a hypothesis or Z3 record: lower rank is more decisive."""
    letter = LETTER.get(record.checker, "?")
    if record.checker == EXPLORE and record.verdict is Verdict.PROVED:
        return 0, "Pi"
    if record.verdict is Verdict.VACUOUS:
        return 0, "vac"
    if record.verdict is Verdict.PROVED and record.bound is None:
        return 0, "P*"
    if record.verdict is Verdict.COUNTEREXAMPLE:
        return 1, f"x{record.counterexample_length}{letter}"
    if record.verdict is Verdict.PROVED:
        return 2, f"P{record.bound}"
    if record.verdict is Verdict.HOLDS:
        return 3, "ok"
    return 4, "?"


def contradicts(expected: Expectation | None, records: list[VerdictRecord]) -> bool:
    """Whether a cell's records contradict its expectation: a counterexample where the
    property must hold, or a proof (and no counterexample) where it must break."""
    broke = any(r.verdict is Verdict.COUNTEREXAMPLE for r in records)
    proved = any(r.verdict is Verdict.PROVED and r.checker != EXPLORE for r in records)
    return (expected is Expectation.HOLDS and broke) or (
        expected is Expectation.BREAKS and proved and not broke
    )


def _cell(records: list[VerdictRecord], expected: Expectation | None) -> str:
    codes = sorted({code(r) for r in records})
    if any(r.checker == EXPLORE and r.verdict in (Verdict.PROVED, Verdict.VACUOUS)
           for r in records):
        codes = [(rank, text) for rank, text in codes if rank not in (2, 3)]
    text = " ".join(text for _, text in codes) or "-"
    return text + ("!" if contradicts(expected, records) else "")


def matrix_summary(records: Iterable[VerdictRecord]) -> str:
    by_key: dict[Key, list[VerdictRecord]] = defaultdict(list)
    for record in records:
        if record.checker in LETTER:
            by_key[(record.variant, tuple(record.environment), record.property)].append(record)
    header = ["variant", "environment", *PROPERTIES]
    rows = [header]
    for cell in EXPECTED:
        env = tuple(cell.environment)
        row = [cell.variant, "+".join(env) or "none"]
        for prop in PROPERTIES:
            found = by_key.get((cell.variant, env, prop), [])
            row.append(_cell(found, cell.expectations.get(prop)))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
