"""Pages and page parts rendered from the results snapshot (`snapshot.Snapshot`): the verdict
matrix, each property's strongest results, and one page per snapshot counterexample trace.

A cell's headline ("strongest") result is the main job's summary's (`summary.order`): a proof
for all depths, then a counterexample (never hidden behind a proof for a smaller instance),
then the explorer's proof for its instance or `vacuous`, then a bounded proof, then no
violation found, then undecided. Every proof is printed with the instance it holds for; the
explorer's also with the states it visited and the graph's diameter.

Nothing here runs a checker; every result is a record of the snapshot, every expectation comes
from the expected matrix (`cell_sets.ALL_EXPECTED`: the main matrix, then the pairs of drift
sources), every property from `spec.registry()`. A cell with no record in the snapshot is
shown as "not run in this snapshot", never as a pass.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from model_checks.answers import AnswerStore
from model_checks.answers.render import Legend
from model_checks.answers.render import cell as answer_cell
from model_checks.answers.summary import LEGEND, contradicts, summary
from model_checks.docs import mermaid
from model_checks.docs.markdown import GENERATED, table
from model_checks.docs.pages import NOTATION_LINK, step_table
from model_checks.docs.snapshot import (
    RECORDS,
    REFRESH,
    TRACE_CHECKERS,
    TRACES,
    Key,
    Snapshot,
    SnapshotError,
    key,
    label,
    trace_name,
)
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.matrix import EXPECTED, PROPERTIES, Cell, Expectation
from model_checks.kernel.pair_cells import PAIR_EXPECTED
from model_checks.kernel.trace_file import Replayed, replay_data
from model_checks.kernel.verdict_records import EXPLORE as EXPLORER
from model_checks.kernel.verdict_records import (
    HYPOTHESIS,
    Z3_BMC,
    Z3_INDUCTION,
    Verdict,
    VerdictRecord,
)
from model_checks.kernel.verdict_records import SCENARIOS as SCENARIO_CHECKER
from spec import Drift, by_id, safety_ids
from spec.drift import ROUTER, Environment


@dataclass(frozen=True)
class Results:
    """The snapshot indexed by cell, with its traces replayed on the spec."""

    snapshot: Snapshot
    by_cell: dict[Key, list[VerdictRecord]]
    replayed: dict[Key, Replayed]

    @classmethod
    def of(cls, snapshot: Snapshot) -> Results:
        by_cell: dict[Key, list[VerdictRecord]] = defaultdict(list)
        for record in snapshot.records:
            by_cell[key(record)].append(record)
        replayed = {
            key(r): _replay(snapshot, Path(r.counterexample_path).name)
            for r in snapshot.records if r.counterexample_path is not None
        }
        return cls(snapshot, dict(by_cell), replayed)

    def checked(
        self, cell: Key, checkers: tuple[str, ...] = TRACE_CHECKERS
    ) -> list[VerdictRecord]:
        return [r for r in self.by_cell.get(cell, []) if r.checker in checkers]

    def page(self, cell: Key) -> str | None:
        """The counterexample page of a cell (relative to docs/), if the snapshot has one."""
        return f"counterexamples/{trace_name(cell)}.md" if cell in self.replayed else None


def _replay(snapshot: Snapshot, name: str) -> Replayed:
    try:
        return replay_data(snapshot.traces[name])
    except (KeyError, TypeError, ValueError, AttributeError) as error:  # BadTraceFile too
        raise SnapshotError(f"snapshot trace {TRACES}/{name} does not replay: {error}") from None


# -- wording ---------------------------------------------------------------------------------


EXPLORE = EXPLORER.record
_SCOPE = "; instance: "
"""Where an explorer record's detail names its instance, states and diameter
(`model_checks/explore/cell_tasks.py`: "REASON; instance: INSTANCE; N states, diameter D")."""


def _explored(record: VerdictRecord) -> tuple[str, str]:
    """(reason, scope) of an explorer record: the detail's head without its verdict word,
    and its instance with the states visited and the diameter."""
    head, found, scope = record.detail.partition(_SCOPE)
    if not found:
        raise SnapshotError(f"explorer record of {label(key(record))} names no instance in "
                            f"its detail: {record.detail!r}")
    for word in ("vacuous: ", "undecided: "):
        head = head.removeprefix(word)
    return head, scope


def describe(record: VerdictRecord, page: str | None) -> str:
    """A record in words: verdict, bound and unit, or the counterexample's length and link;
    a proof or a vacuous verdict with the instance it holds for."""
    if record.checker == EXPLORE and record.verdict is not Verdict.COUNTEREXAMPLE:
        return _describe_explored(record)
    if record.verdict is Verdict.PROVED:
        scope = f", for {_instance(record)}" if record.instance else ""
        if record.bound is None:
            return f"proved for all depths{scope}"
        return f"proved to depth {record.bound} ({record.bound_unit}){scope}"
    if record.verdict is Verdict.COUNTEREXAMPLE:
        text = f"counterexample of {record.counterexample_length} steps"
        return f"[{text}]({page})" if page else text
    if record.verdict is Verdict.HOLDS:
        sampled = record.checker == HYPOTHESIS.record and record.detail
        extra = f" ({record.detail})" if sampled else ""
        return f"no violation in {record.bound} {record.bound_unit}{extra}"
    detail = record.detail if len(record.detail) <= 120 else record.detail[:119] + "…"
    return f"undecided ({record.bound} {record.bound_unit} explored): {detail}"


def _describe_explored(record: VerdictRecord) -> str:
    reason, scope = _explored(record)
    if record.verdict is Verdict.PROVED:
        return f"proved for its instance only (every reachable state judged): {scope}"
    if record.verdict is Verdict.VACUOUS:
        return f"vacuous: {reason}; for its instance: {scope}"
    return f"undecided ({reason}): {scope}"


def _instance(record: VerdictRecord) -> str:
    """The instance a proof holds for, in words ("any instance" for a parametric proof)."""
    return "any instance" if record.instance == "any" else record.instance


def _z3(results: Results, cell: Key, prefix: str = "") -> str:
    found = results.checked(cell, (Z3_INDUCTION.record, Z3_BMC.record))
    return "; ".join(describe(r, _linked(results, cell, prefix)) for r in found) or "-"


def _hypothesis(results: Results, cell: Key, prefix: str = "") -> str:
    found = results.checked(cell, (HYPOTHESIS.record,))
    return "; ".join(describe(r, _linked(results, cell, prefix)) for r in found) or "-"


def _explorer(results: Results, cell: Key, prefix: str = "") -> str:
    found = results.checked(cell, (EXPLORE,))
    return "; ".join(describe(r, _linked(results, cell, prefix)) for r in found) or "-"


def _linked(results: Results, cell: Key, prefix: str) -> str | None:
    page = results.page(cell)
    return None if page is None else prefix + page


def _scenarios(results: Results, cell: Key, prefix: str = "") -> str:
    found = results.checked(cell, (SCENARIO_CHECKER.record,))
    broken = [r for r in found if r.verdict is Verdict.COUNTEREXAMPLE]
    if broken:
        return ", ".join(
            f"[`{name}`]({prefix}counterexamples/{name}.md) ({r.counterexample_length} steps)"
            for r in broken if (name := r.detail.removeprefix("scenario "))
        )
    count = len(found)
    return f"held in {count} scenario{'' if count == 1 else 's'}" if found else "-"


def _contradiction(results: Results, cell: Key, expected: Expectation | None) -> bool:
    """Whether any checker's records of the cell (the scenarios included) contradict it."""
    return contradicts(expected, results.by_cell.get(cell, []))


# -- verdicts.md -----------------------------------------------------------------------------


def _legend() -> list[str]:
    return [
        "How to read: each row is one cell of the expected matrix "
        "(`model_checks/kernel/matrix.py`): a "
        "variant, an environment (the drift sources enabled) and a property. *expected* is "
        "what the matrix requires (holds: no checker may find a violation; breaks: a "
        "counterexample must be found; not judged: no claim). Each checker's column gives its "
        "verdict with how far it looked: Hypothesis explores random runs (steps and examples), "
        "Z3 bounded model checking proves a property for every trace up to a depth or finds "
        "the shortest counterexample, Z3 induction proves it for all depths; the explorer "
        "(`docs/explore.md`) visits every reachable state of a smaller instance, named with "
        "its states and diameter, and proves a property for that instance only (every "
        "reachable state judged; a larger instance may break it), finds its "
        "shortest counterexample there, or calls it vacuous (it cannot fail there); the "
        "scenario suite replays hand-written traces. A counterexample links to its page (the "
        "shortest trace across checkers, Z3 first on ties, then the explorer). *answer* is the "
        "project's answer for the cell, the same as on every page (`docs/invariants.md`): "
        "every checker's evidence combined once, the drift lattice's and the all-instance "
        "proofs' included, so it can be stronger than any column beside it; a break with its "
        "shortest witness inside the environment, or a hold with its reach (every instance, "
        "or the instance the legend at the end of the page names). **!** marks a cell whose "
        "checker results contradict its expectation.",
    ]


NOT_RUN = "not run in this snapshot"
"""What a cell with no record in the snapshot shows (never a pass)."""


def _rows(results: Results, cell: Cell, answers: AnswerStore, legend: Legend,
          prefix: str = "") -> list[tuple[str, ...]]:
    """One row per property of a cell; `prefix` makes its links relative to the page."""
    rows: list[tuple[str, ...]] = []
    for prop in PROPERTIES:
        at: Key = (cell.variant, cell.environment, prop)
        expected = cell.expectations.get(prop)
        mark = " **!**" if _contradiction(results, at, expected) else ""
        shown = answer_cell(answers.answer(cell.variant, cell.environment, prop), legend,
                            prefix)
        rows.append((
            cell.variant, prop, expected.value if expected else "-",
            _scenarios(results, at, prefix), _hypothesis(results, at, prefix),
            _z3(results, at, prefix), _explorer(results, at, prefix), shown + mark,
        ))
    return rows


def contradictions(results: Results) -> list[str]:
    return [
        label((c.variant, c.environment, p)) for c in ALL_EXPECTED for p in PROPERTIES
        if _contradiction(results, (c.variant, c.environment, p), c.expectations.get(p))
    ]


def _expected_text(cell: Cell, kind: Expectation) -> str:
    return " ".join(p for p in PROPERTIES if cell.expectations.get(p) is kind) or "-"


def _pair_result(results: Results, cell: Cell, answers: AnswerStore, legend: Legend) -> str:
    """A pair cell's answers, per property some record of the snapshot judges there (the
    page's answer cells), `!` on a contradiction; NOT_RUN without records."""
    parts = []
    for prop in PROPERTIES:
        at: Key = (cell.variant, cell.environment, prop)
        if not results.by_cell.get(at):
            continue
        mark = " **!**" if _contradiction(results, at, cell.expectations.get(prop)) else ""
        answer = answers.answer(cell.variant, cell.environment, prop)
        parts.append(f"{prop} {answer_cell(answer, legend)}{mark}")
    return "; ".join(parts) or NOT_RUN


def pairs_section(results: Results, answers: AnswerStore, legend: Legend) -> list[str]:
    """verdicts.md's part for the pair cells: one row per cell (expected to break, not
    judged, results or NOT_RUN), then the hand-written interactions."""
    rows = [
        (Environment.of(c.environment).text, c.variant, _expected_text(c, Expectation.BREAKS),
         _expected_text(c, Expectation.NOT_JUDGED),
         " ".join(p for p in PROPERTIES if p in c.unshown) or "-",
         _pair_result(results, c, answers, legend))
        for c in PAIR_EXPECTED
    ]
    parts = [
        "", "## Pairs of drift sources", "",
        "Every other pair of drift sources (`pair_cells.PAIR_ENVIRONMENTS`), with what the "
        "expected matrix requires: every property not listed must hold. A pair breaks at "
        "least what either source breaks alone: the behaviours only grow with the "
        "environment (tests/test_matrix_pairs.py replays every such source's counterexample "
        "of the snapshot, on its own instance, with the pair's environment); what it breaks "
        "beyond that is an interaction, reasoned below. *not shown at the instance*: breaks "
        "the matrix's instance of the pair cannot show (D11 makes c over the budget, D9 "
        "skews b and c: `pair_reasons.needs_c`), which Hypothesis does not judge there. The "
        "nightly job runs these cells (`python -m model_checks nightly`); the main job does "
        "not, so a cell without records says \"" + NOT_RUN + "\".", "",
        table(("environment", "variant", "expected to break", "not judged",
               "not shown at the instance", "results"), rows),
        "", "### Reasoning beyond the union", "",
    ]
    seen: set[tuple[str, ...]] = set()
    for cell in PAIR_EXPECTED:
        if cell.interaction and cell.environment not in seen:
            seen.add(cell.environment)
            parts.append(f"- **{Environment.of(cell.environment).text}**: {cell.interaction}")
    return parts


def _title(env_id: str) -> str:
    """A drift source's title, or the router configuration's (`environment_arg.ROUTER`)."""
    if env_id == ROUTER:
        return "one front end, two engines behind a router"
    return Drift(env_id).title


VARIANT_PAGES = "verdicts"
"""The folder of the per-variant verdict pages (`verdicts/V0.md`, ...), every page in it
generated."""


def variant_page_name(variant: str) -> str:
    return f"{VARIANT_PAGES}/{variant}.md"


def verdicts_pages(results: Results, answers: AnswerStore) -> dict[str, str]:
    """verdicts.md (the overview: the summary, the contradictions, the pair cells) and one
    page per variant (every checker on each of its cells), each readable alone."""
    variants = sorted(dict.fromkeys(c.variant for c in EXPECTED))
    pages = {variant_page_name(v): variant_page(results, answers, v) for v in variants}
    return {"verdicts.md": overview_page(results, answers, variants), **pages}


def _provenance(results: Results) -> list[str]:
    return [
        "", "## Where these results come from", "",
        "Rendered from the results snapshot `docs/" + RECORDS + "` (the verdict records of "
        "main-job runs, `python -m model_checks`), taken with `"
        + (results.snapshot.command or REFRESH) + "`. A main job takes minutes and its records' "
        "times vary from run to run; the snapshot keeps the pages deterministic. The main job "
        "prints whether the snapshot still matches its verdicts."]


def overview_page(results: Results, answers: AnswerStore, variants: list[str]) -> str:
    parts = [GENERATED, "", "# Verdicts: every checker on every cell", ""]
    parts.append("One page per variant, every checker on each of its cells: "
                 + ", ".join(f"[{v}]({variant_page_name(v)})" for v in variants)
                 + ". Each property alone, with the project's answer per variant and "
                 "environment: `invariants.md`.")
    wrong = contradictions(results)
    parts += ["", "Cells contradicting their expectation: "
              + (", ".join(wrong) if wrong else "none") + "."]
    parts += ["", "## Overview", "",
              "The main job's summary of the snapshot, as it prints it:", "", "```text",
              *LEGEND, "", summary(results.snapshot.records, answers), "```"]
    legend = Legend()
    parts += pairs_section(results, answers, legend)
    return "\n".join([*parts, *_provenance(results), *legend.lines()]) + "\n"


def variant_page(results: Results, answers: AnswerStore, variant: str) -> str:
    """Every checker on each cell of `variant`: one table per environment, rows by property."""
    parts = [GENERATED, "", f"# Verdicts of {variant}: every checker on every cell", ""]
    parts += _legend()
    headers = ("variant", "property", "expected", "scenarios", "Hypothesis", "Z3", "explorer",
               "answer")
    legend = Legend()
    for cell in (c for c in EXPECTED if c.variant == variant):
        env = cell.environment
        titles = ", ".join(_title(d) for d in env) if len(env) <= 2 else ""
        heading = Environment.of(env).text + (f" ({titles})" if titles else "")
        rows = _rows(results, cell, answers, legend, prefix="../")
        parts += ["", f"## {heading}", "", table(headers, rows)]
    return "\n".join([*parts, *_provenance(results), *legend.lines()]) + "\n"


# -- one page per snapshot trace -------------------------------------------------------------


def _config_text(replayed: Replayed) -> str:
    config = replayed.trace.config
    sizes = ", ".join(
        f"{s.content.identity}{'@' + str(s.content.version) if s.content.version else ''}: "
        f"{s.shadow_bytes} B at P0, {s.receiver_bytes} B at P1" for s in config.sizes
    )
    return (
        f"identities {', '.join(config.identities)}; budget {config.budget} B; sizes: "
        f"{sizes or 'every item 1 B'}; versions {config.versions}; front ends "
        f"{config.front_ends}; at most {config.max_requests} requests, {config.max_in_flight} "
        f"unfinished, {config.max_items} items each, {config.max_retries} retries"
    )


def trace_page(results: Results, cell: Key, record: VerdictRecord) -> str:
    replayed = results.replayed[cell]
    variant, env, prop = cell
    expected = next(
        (c.expectations.get(prop) for c in ALL_EXPECTED
         if c.variant == variant and c.environment == env), None,
    )
    others = [
        f"{r.checker}: {r.counterexample_length} steps" for r in results.checked(cell)
        if r.verdict is Verdict.COUNTEREXAMPLE and r is not record
    ]
    path = f"docs/{TRACES}/{trace_name(cell)}.json"
    parts = [GENERATED, "", f"# {variant} under {Environment.of(env).text}: {prop} breaks", ""]
    parts += [
        f"- property: {prop} ({by_id(prop).title}), broken at step {replayed.step}: "
        f"{replayed.reason}",
        f"- found by: {record.checker}, {record.counterexample_length} steps to the violation"
        + (f" (also: {'; '.join(others)})" if others else ""),
        f"- expected: {expected.value if expected else 'not in the matrix'}",
        f"- configuration: {_config_text(replayed)}",
        f"- replay: `python -m model_checks replay {path}`",
    ]
    if replayed.fair_from is not None:
        parts.append(f"- steps after {replayed.fair_from} were taken by the fair scheduler")
    parts += ["", NOTATION_LINK.format(prefix="../"), "",
              step_table(replayed.trace, replayed.fair_from), "",
              mermaid.sequence_diagram(replayed.trace)]
    return "\n".join(parts) + "\n"


def trace_pages(results: Results) -> dict[str, str]:
    """counterexamples/<variant>_<environment>_<property>.md for every snapshot trace."""
    pages = {}
    for record in results.snapshot.records:
        if record.counterexample_path is not None:
            cell = key(record)
            pages[f"counterexamples/{trace_name(cell)}.md"] = trace_page(results, cell, record)
    return pages


def trace_index(results: Results) -> list[str]:
    """The README's section listing the checker counterexamples."""
    rows = [
        (r.variant, Environment.of(r.environment).text, r.property, r.checker,
         r.counterexample_length,
         f"[{trace_name(key(r))}]({trace_name(key(r))}.md)")
        for r in results.snapshot.records if r.counterexample_path is not None
    ]
    return ["", "## Checker counterexamples", "",
            "Per cell of the matrix, the shortest trace Hypothesis, Z3 or the explorer found (Z3 "
            "first on ties, then the explorer), from the results snapshot (`../verdicts.md`).",
            "",
            table(("variant", "environment", "property", "checker", "steps", "page"), rows)]


def drift_links(results: Results, drift: Drift) -> str:
    """The checker counterexamples of the environment with this drift source alone."""
    env = (drift.value,)
    links = []
    for variant in sorted(dict.fromkeys(c.variant for c in EXPECTED)):
        props = [p for p in PROPERTIES if (variant, env, p) in results.replayed]
        if props:
            pages = " ".join(f"[{p}](counterexamples/{trace_name((variant, env, p))}.md)"
                             for p in props)
            links.append(f"{variant} {pages}")
    return "; ".join(links) or "none"


def kept_alone(answers: AnswerStore, drift: Drift) -> list[str]:
    """The variants the project's answers keep S1, S2 and S3 for under this drift source
    alone (held or vacuous: no known break)."""
    env = (drift.value,)
    variants = sorted(dict.fromkeys(c.variant for c in EXPECTED if c.environment == env))
    return [v for v in variants if all(answers.answer(v, env, p).kept for p in safety_ids())]
