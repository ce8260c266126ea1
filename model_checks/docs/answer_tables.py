"""The per-property tables of docs/invariants.md: the project's answer for each variant
(columns) and environment of the expected matrix (rows), rendered from the answer store.

Every cell is `answers.render.cell` of `AnswerStore.answer`: a break with its shortest
witness inside the row's environment, a hold with its reach (every instance, or the named
instance of the page-wide legend), vacuous or undecided. No cell computes a verdict of its
own.
"""

from __future__ import annotations

from model_checks.answers import AnswerStore
from model_checks.answers.render import Legend, cell
from model_checks.docs.markdown import table
from model_checks.kernel.matrix import EXPECTED, PROPERTIES
from spec.drift import Environment

INTRO = (
    "The project's answer for each variant (columns) and environment (rows): every checker's "
    "evidence combined once (`model_checks/answers`; `docs/drift-combinations.md` gives the "
    "minimal breaking environments and the proofs behind them). A break names the shortest "
    "replayed witness found inside the environment (shortest on the instance that found it, "
    "not on every instance), and stands under every environment containing "
    "the witness's; \"every instance\" is an all-instance proof, which covers every "
    "environment inside its own; any other hold names its instance (the legend at the end of "
    "the page). Every checker's own result per cell: `docs/verdicts.md`."
)


def environments() -> list[tuple[str, ...]]:
    """The rows: the expected matrix's environments, in its order."""
    return list(dict.fromkeys(c.environment for c in EXPECTED))


def variants() -> list[str]:
    return sorted(dict.fromkeys(c.variant for c in EXPECTED))


def answer_table(store: AnswerStore, prop: str, legend: Legend) -> str:
    rows = [[Environment.of(env).text,
             *(cell(store.answer(v, env, prop), legend) for v in variants())]
            for env in environments()]
    return table(("environment", *variants()), rows)


def property_answers(store: AnswerStore) -> tuple[dict[str, list[str]], Legend]:
    """Per property id, the lines invariants.md adds after the scenario evidence; and the
    legend of the instances they name (to close the page)."""
    legend = Legend()
    evidence = {prop: ["", INTRO, "", answer_table(store, prop, legend)]
                for prop in PROPERTIES}
    return evidence, legend
