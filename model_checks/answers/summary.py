"""The main job's summary: every checker's verdict records merged into one table and one file.

One row per (environment, variant) of the main matrix (`matrix.EXPECTED`), and of every pair
cell (`pair_cells.PAIR_EXPECTED`) the records judge (the nightly job runs them; the main job does
not, so its summary keeps the main matrix's rows), one column per property of
`spec.registry()` (read when the table is made). `summary` (what the main job prints, at
most 100 columns wide) gives each cell the most decisive result of any checker;
`matrix_summary` (the details file) lists each checker's strongest result, most decisive
first. Codes: `P*` proved for all depths (Z3 induction), `xN` a counterexample of N
steps (`Z` Z3, `H` Hypothesis), `Pk` proved to depth k (Z3 BMC), `ok` no violation in the
examples explored (Hypothesis), `?` undecided (Z3, not encoded or timed out), `-` not
checked. The explorer (`E`) adds `xNE` (a shortest counterexample in its instance), `Pi`
(proved for its instance only: every reachable state judged) and `vac` (vacuous: the
property cannot fail there); where it has `Pi` or `vac`, the bounded `Pk` and sampled `ok`
are left out, and a counterexample of another checker (found in the matrix's larger instance)
comes first. A `!` marks a cell whose results contradict the expected matrix (a proof by the
explorer, whose instance is smaller than the matrix's, contradicts nothing); an `x` without
`!` is a property the matrix expects to break, found broken: the check passed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from model_checks.answers import Answer, AnswerStore
from model_checks.answers import Verdict as AnswerVerdict
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.matrix import EXPECTED, Cell, Expectation
from model_checks.kernel.verdict_records import (
    CHECKERS,
    EXPLORE_LATTICE,
    PAIR_WITNESS,
    SCENARIOS,
    Verdict,
    VerdictRecord,
)
from model_checks.kernel.verdict_records import EXPLORE as EXPLORER
from spec import property_ids
from spec.drift import Environment

LETTER = {c.record: c.letter for c in CHECKERS if c.letter}
EXPLORE = EXPLORER.record

Key = tuple[str, tuple[str, ...], str]


def code(record: VerdictRecord) -> tuple[int, str]:
    """(rank, code) of a checker's record: lower rank is more decisive. A counterexample
    outranks the explorer's `Pi` and `vac`: they hold for the explorer's smaller instance only,
    so a break found in the matrix's instance must never be hidden behind them."""
    letter = LETTER.get(record.checker, "?")
    if record.verdict is Verdict.PROVED and record.bound is None and record.checker != EXPLORE:
        return 0, "P*"
    if record.verdict is Verdict.COUNTEREXAMPLE:
        return 1, f"x{record.counterexample_length}{letter}"
    if record.checker == EXPLORE and record.verdict is Verdict.PROVED:
        return 2, "Pi"
    if record.verdict is Verdict.VACUOUS:
        return 2, "vac"
    if record.verdict is Verdict.PROVED:
        return 3, f"P{record.bound}"
    if record.verdict is Verdict.HOLDS:
        return 4, "ok"
    return 5, "?"


def order(record: VerdictRecord) -> tuple[int, int, int, str]:
    """Sort key, most decisive first: `code`'s rank, then the shorter counterexample (x5
    before x14) or the deeper bound (P12 before P6), then Z3 before Hypothesis."""
    rank, text = code(record)
    if record.verdict is Verdict.COUNTEREXAMPLE:
        size = record.counterexample_length or 0
    else:
        size = -(record.bound or 0) if record.verdict is Verdict.PROVED else 0
    return rank, size, 0 if record.checker.startswith("z3") else 1, text


def contradicts(expected: Expectation | None, records: list[VerdictRecord]) -> bool:
    """Whether a cell's records contradict its expectation: a counterexample where the
    property must hold, or a proof (and no counterexample) where it must break."""
    broke = any(r.verdict is Verdict.COUNTEREXAMPLE for r in records)
    proved = any(r.verdict is Verdict.PROVED and r.checker != EXPLORE for r in records)
    return (expected is Expectation.HOLDS and broke) or (
        expected is Expectation.BREAKS and proved and not broke
    )


def _cell(records: list[VerdictRecord], expected: Expectation | None) -> str:
    ranked = sorted(records, key=order)
    if any(r.checker == EXPLORE and r.verdict in (Verdict.PROVED, Verdict.VACUOUS)
           for r in records):  # a complete verdict: bounded and sampled ones add nothing
        ranked = [r for r in ranked if code(r)[0] not in (3, 4)]
    codes = dict.fromkeys(code(r)[1] for r in ranked)
    text = " ".join(codes) or "-"
    return text + ("!" if contradicts(expected, records) else "")


def _by_key(records: Iterable[VerdictRecord]) -> dict[Key, list[VerdictRecord]]:
    by_key: dict[Key, list[VerdictRecord]] = defaultdict(list)
    for record in records:
        if record.checker in LETTER:
            by_key[(record.variant, tuple(record.environment), record.property)].append(record)
    return by_key


def shown(by_key: dict[Key, list[VerdictRecord]]) -> list[Cell]:
    """The cells a summary shows: the main matrix's, then the pair cells with a record."""
    judged = {(variant, env) for variant, env, _ in by_key}
    judged |= {(c.variant, tuple(c.environment)) for c in EXPECTED}
    return [c for c in ALL_EXPECTED if (c.variant, tuple(c.environment)) in judged]


def matrix_summary(records: Iterable[VerdictRecord]) -> str:
    """Every checker's strongest result per cell (the details file: wide)."""
    by_key = _by_key(records)
    properties = property_ids()
    header = ["variant", "environment", *properties]
    rows = [header]
    for cell in shown(by_key):
        env = tuple(cell.environment)
        row = [cell.variant, Environment.of(env).text]
        for prop in properties:
            found = by_key.get((cell.variant, env, prop), [])
            row.append(_cell(found, cell.expectations.get(prop)))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


LEGEND = (
    "legend: each cell is the project's answer (model_checks/answers: the committed evidence",
    "  and this run's records, combined once; docs/invariants.md shows the same answers):",
    "  Pe   holds for every instance (all-instance proof)   vac  vacuous: cannot fail at all",
    "  Pi   holds for all depths of one named instance      Pb   holds to a bound",
    "  xNC  breaks: shortest witness C found on its instance, N steps inside the environment",
    "       (Z Z3, H Hypothesis, E explorer, L the lattice, S a scenario, W a pair witness)",
    "  ok   no violation in the runs sampled   ?  undecided   -  not checked",
    "  !    this run's records contradict the expected matrix (model_checks/kernel/matrix.py):",
    "       the only failure mark. An x without ! is a break the matrix expects or allows.",
)
"""The summary's legend, printed with it (every line under 100 columns)."""

WITNESS_LETTER = {c.record: c.letter for c in CHECKERS if c.letter} | {
    EXPLORE_LATTICE.record: "L", SCENARIOS.record: "S", PAIR_WITNESS.record: "W"}
"""The letter of the checker that found a break's witness."""


def short_environment(env: tuple[str, ...]) -> str:
    """`none`, `D1`, `D5,7`, `D3-5,7-11`: drift ids with runs of consecutive ids as ranges.
    A configuration's name that is no drift id (`D5-router`) is printed as it is."""
    names = [d for d in env if not d[1:].isdigit()]
    if names:
        rest = tuple(d for d in env if d[1:].isdigit())
        return "+".join([*names, *([short_environment(rest)] if rest else [])])
    numbers = sorted(int(d[1:]) for d in env)
    if not numbers:
        return "none"
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [f"{r[0]}-{r[-1]}" if len(r) > 2 else ",".join(map(str, r)) for r in runs]
    return "D" + ",".join(parts)


def answer_mark(answer: Answer, records: list[VerdictRecord]) -> str:
    """A cell of the summary: the answer's mark (`Answer.mark`), a break's with the letter of
    the checker that found its witness; `-` where nothing answers it and no record of this
    run judged it."""
    if answer.verdict is AnswerVerdict.UNDECIDED and not records:
        return "-"
    mark = answer.mark()
    if answer.witness is not None:
        mark += WITNESS_LETTER.get(answer.witness.checker, "")
    return mark


def answers_of(records: Iterable[VerdictRecord], store: AnswerStore | None) -> AnswerStore:
    """The answers a summary shows: `store` (the committed evidence, None: none) with the
    records' own evidence merged in."""
    from model_checks.answers.build import record_facts

    return (store or AnswerStore({})).with_facts(record_facts(records, {}))


def contradiction_count(records: Iterable[VerdictRecord]) -> tuple[int, int]:
    """(cells contradicting the expected matrix, cells with a result)."""
    by_key = _by_key(records)
    judged = wrong = 0
    for cell in ALL_EXPECTED:
        for prop in property_ids():
            found = by_key.get((cell.variant, tuple(cell.environment), prop), [])
            judged += bool(found)
            wrong += contradicts(cell.expectations.get(prop), found)
    return wrong, judged


def summary(records: Iterable[VerdictRecord], store: AnswerStore | None = None) -> str:
    """The main job's table: one row per environment and variant, one mark per property (the
    project's answer: `store` with the records' evidence merged in, `answer_mark`), `!`
    where the records contradict the expected matrix; under 100 columns."""
    records = list(records)
    answers = answers_of(records, store)
    by_key = _by_key(records)
    properties = property_ids()
    header = ["environment", "var", *properties]
    rows = [header]
    cells = shown(by_key)
    for env in dict.fromkeys(tuple(c.environment) for c in cells):
        for cell in (c for c in cells if tuple(c.environment) == env):
            row = [short_environment(env), cell.variant]
            for prop in properties:
                found = by_key.get((cell.variant, env, prop), [])
                mark = answer_mark(answers.answer(cell.variant, env, prop), found)
                row.append(mark + ("!" if contradicts(cell.expectations.get(prop), found)
                                   else ""))
            rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
