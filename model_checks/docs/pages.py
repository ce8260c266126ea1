"""The generated pages. Each function returns one page's Markdown; nothing here restates a
property, a drift source or an expectation: all of it is read from the registry, the spec's
transitions and the scenario suite, and every table of results comes from a run made now."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from model_checks.docs import mermaid
from model_checks.docs.markdown import GENERATED, table
from model_checks.kernel import lru_notation
from model_checks.scenarios import SCENARIOS, Scenario
from model_checks.scenarios.run import ScenarioVerdict
from spec import ACTION_TYPES, VARIANTS, Drift, lemmas, registry, safety_ids
from spec.drift import Environment
from spec.trace import Trace


def _violated_in(verdicts: list[ScenarioVerdict], prop: str, variant: str) -> list[str]:
    return [v.scenario for v in verdicts if v.variant == variant and prop in v.found]


def invariants_page(
    verdicts: list[ScenarioVerdict], evidence: Mapping[str, list[str]] | None = None,
    closing: Sequence[str] = (),
) -> str:
    """Every property with the scenario suite's evidence, then `evidence[property id]` (the
    lines the answer store adds); `closing` ends the page (the legend of the instances its
    tables name)."""
    parts = [GENERATED, "", "# Properties", ""]
    parts.append(
        "Every property of `spec.registry()`, with its statement, kind, the evidence for "
        "each variant from the scenario suite (`docs/scenarios.md`) and the project's answer "
        "for each variant and environment (every checker's evidence combined; each checker's "
        "own result: `docs/verdicts.md`)."
    )
    scenario_count = len(SCENARIOS)
    for prop in registry():
        parts += ["", f"## {prop.id}: {prop.title}", "", f"*Kind:* {prop.kind.value}.", ""]
        parts.append(prop.statement)
        if prop.fairness:
            parts += ["", f"*Fairness assumption:* {prop.fairness}."]
        rows = []
        for variant in VARIANTS:
            broken = _violated_in(verdicts, prop.id, variant.name)
            result = (
                "violated in " + ", ".join(f"`{s}`" for s in broken)
                if broken
                else f"held in all {scenario_count} scenarios"
            )
            rows.append((variant.name, result))
        parts += ["", "Scenario suite:", "", table(("variant", "scenarios"), rows)]
        parts += (evidence or {}).get(prop.id, [])
    parts += ["", "# Strengthening invariants", ""]
    parts.append(
        "The steps of the all-depth proof of S1-S3 for V3 (`spec.lemmas()`). The Z3 checker "
        "encodes each under its id and proves their conjunction inductive "
        "(`model_checks/smt/prove/invariant.py`, re-checked with fresh solvers); the tests "
        "check each on every state of random V3 walks under all drift and on a state that "
        "breaks it."
    )
    for lemma in lemmas():
        parts += ["", f"## {lemma.id}: {lemma.title}", "", lemma.statement]
    return "\n".join([*parts, *_relational_certificates(), *closing]) + "\n"


def _relational_certificates() -> list[str]:
    """The hand-written relational certificates of `model_checks/smt/prove/relational.py`, part by
    part, read from the code that the certificate check proves (names, statements, where they
    apply), so the page cannot drift from what is proved."""
    from model_checks.smt.prove import relational
    from model_checks.smt.prove.invariant import Invariant

    def drift(sources: frozenset[Drift]) -> str:
        return ", ".join(d.value for d in sorted(sources, key=lambda d: int(d.value[1:])))

    def parts_of(invariants: tuple[Invariant, ...]) -> list[str]:
        return [f"- `{inv.name}`: {' '.join(inv.statement.split())}" for inv in invariants]

    lines = ["", "# Relational certificates", ""]
    lines.append(
        "Two inductive invariants written by hand over the Z3 encoding "
        "(`model_checks/smt/prove/relational.py`) and checked by the same certificate check as "
        "V3's (initiation, non-vacuity, consecution of each part under every action, and the "
        "invariant implies the property, with fresh solvers under an rlimit). They prove "
        "properties for all depths, in Z3's instance, where bounded model checking alone "
        "could only bound them; a record proved by one names it as its method "
        "(`docs/verdicts.md`). `tests/smt/test_smt_relational.py` shows each rejected for "
        "mutants and environments where it must fail."
    )
    lines += ["", "## The mirror: the shadow mirrors the drained receiver", ""]
    lines.append(
        f"Proves {', '.join(relational.PROPERTIES)} where it applies (one front end, one "
        f"engine, messages delivered in the order sent, drift within "
        f"{{{drift(relational.MIRRORING)}}}) and they hold: under D8 only for V3, whose "
        "references go before its payloads. The drained receiver is the receiver once it "
        "has taken every pending message, oldest first, through P1's own step. Its parts:"
    )
    lines += ["", *parts_of(relational.mirror_invariants(relational.PROPERTIES))]
    lines += ["", "## The agreement: the shadow agrees with the latest payload or the receiver",
              ""]
    lines.append(
        "Proves S1 of the variants whose payload wins and whose receiver drops the old entry "
        "first, where H1 breaks: one front end, one engine, one item per request, messages "
        f"delivered in the order sent, drift within {{{drift(relational.AGREEING)}}}. "
        "Its parts:"
    )
    lines += ["", *parts_of(relational.agreement_invariants())]
    return lines


def drift_page(
    verdicts: list[ScenarioVerdict], links: Mapping[Drift, str] | None = None,
    kept_alone: Mapping[Drift, list[str]] | None = None,
) -> str:
    """Each drift source: transitions, scenarios, the variants keeping S1-S3 under it alone
    (`kept_alone[drift]`, from the answer store) and in every scenario exercising it, and
    `links[drift]` (the checker counterexamples of the environment with that source alone)."""
    parts = [GENERATED, "", "# Drift sources", ""]
    parts.append(
        "What each drift source does, which transitions represent it, and which variants keep "
        "S1-S3 (no stale pairing, budget, no crash): under the source alone, by the project's "
        "answers (`invariants.md`), and in every scenario that exercises it, "
        "alone or with other sources (a scenario combining it with identity reuse can break "
        "S1 where the source alone cannot)."
    )
    safety = set(safety_ids())
    for drift in sorted(Drift, key=lambda d: int(d.value[1:])):
        actions = [t.label for t in ACTION_TYPES if drift in t.exercised_drift()]
        scenarios = [s for s in SCENARIOS if drift.value in s.drift]
        survivors = [
            v.name for v in VARIANTS
            if not any(
                safety & x.found for x in verdicts
                if x.variant == v.name and drift.value in x.drift
            )
        ]
        effect = drift.effect[0].upper() + drift.effect[1:] + "."
        parts += ["", f"## {drift.value}: {drift.title}", "", effect]
        parts += [
            "",
            f"- transitions: {', '.join(f'`{a}`' for a in actions) or 'none'}"
            + (f"; configuration: {drift.needs.configured}" if drift.needs.configured else ""),
            f"- scenarios: {', '.join(f'[`{s.name}`](scenarios.md#{s.name})' for s in scenarios)}",
        ]
        if kept_alone is not None:
            parts.append(f"- variants keeping S1-S3 under {drift.value} alone (no known "
                         f"break): {', '.join(kept_alone[drift]) or 'none'}")
        parts.append(f"- variants keeping S1-S3 in every scenario exercising it: "
                     f"{', '.join(survivors) or 'none'}")
        if links is not None:
            parts.append(f"- checker counterexamples ({drift.value} alone): {links[drift]}")
    return "\n".join(parts) + "\n"


def step_table(trace: Trace, fair_from: int | None = None) -> str:
    """A labelled step table in the trace notation (`lru_notation`), then the processings line."""
    text = table(lru_notation.HEADERS, lru_notation.step_rows(trace, fair_from))
    line = lru_notation.processings(trace.final)
    return text + (f"\n\n{line}" if line else "")


NOTATION_LINK = "Notation: see [notation.md]({prefix}notation.md)."


def notation_page() -> str:
    """docs/notation.md: the legend of the one trace notation, with a worked example."""
    example = next(s for s in SCENARIOS if s.expected.get("V2"))
    shown = next(v for v in VARIANTS if v.name == "V2")
    return "\n".join([
        GENERATED, "", "# Trace notation", "",
        "Every trace this project shows is written in one notation: the step tables and "
        "sequence diagrams of the generated pages, `python -m model_checks replay FILE`, and "
        "conformance failures. It is defined once, in `model_checks/kernel/lru_notation.py`; "
        "this is its legend.", "", lru_notation.LEGEND, "",
        "Columns of a step table: `#` the step, `action` the transition taken (its label and "
        "arguments), then the state after it: `shadow` P0's shadow (one per front end), `P1` "
        "the receiver cache, `to P1` the messages in flight to P1, `to P0` the replies in "
        "flight to P0, `P1 did` what P1's last step did with a message. `(fair)` marks a "
        "step the fair scheduler took after the counterexample's prefix.", "",
        f"Example: the scenario [`{example.name}`](scenarios.md#{example.name}) on "
        f"{shown.name}.", "", step_table(example.run(shown)), "",
    ])


def _scenario_section(scenario: Scenario, verdicts: list[ScenarioVerdict]) -> list[str]:
    mine = [v for v in verdicts if v.scenario == scenario.name]
    shown = next((v for v in VARIANTS if v.name == "V2"), VARIANTS[0])
    rows = [(v.variant, " ".join(sorted(v.found)) or "none", v.steps) for v in mine]
    return [
        "",
        f"## {scenario.name}",
        "",
        f"Drift: {Environment.of(scenario.drift).text}. {scenario.story}",
        "",
        table(("variant", "violated", "steps"), rows),
        "",
        f"The run on {shown.name}:",
        "",
        step_table(scenario.run(shown)),
    ]


def scenarios_page(verdicts: list[ScenarioVerdict]) -> str:
    parts = [GENERATED, "", "# Scenario suite", ""]
    parts.append(
        "Hand-written traces, one or more per drift source, run on every variant; the "
        "expectations are in `model_checks/scenarios/catalog.py` and `python -m model_checks "
        "scenarios` fails when a run differs from them. " + NOTATION_LINK.format(prefix="")
    )
    for scenario in SCENARIOS:
        parts += _scenario_section(scenario, verdicts)
    return "\n".join(parts) + "\n"


def counterexample_pages(
    verdicts: list[ScenarioVerdict], more_index: list[str] | None = None
) -> dict[str, str]:
    """One page per scenario that breaks a property on some variant: for each such variant,
    where each property broke, the labelled step table and a Mermaid sequence diagram; and
    the README indexing them, followed by `more_index` (the checker counterexamples)."""
    pages: dict[str, str] = {}
    index = [GENERATED, "", "# Counterexamples", "",
             "Every scenario run that breaks a property, and every counterexample trace of "
             "the checkers' results snapshot, as a step table and a sequence diagram. " +
             NOTATION_LINK.format(prefix="../"), "", "## Scenarios", ""]
    for scenario in SCENARIOS:
        broken = [v for v in verdicts if v.scenario == scenario.name and v.found]
        if not broken:
            continue
        parts = [GENERATED, "", f"# {scenario.name}", "", scenario.story, "",
                 NOTATION_LINK.format(prefix="../")]
        for verdict in broken:
            variant = next(v for v in VARIANTS if v.name == verdict.variant)
            trace = scenario.run(variant)
            where = [
                f"{prop.id} at step {violation.step}: {violation.reason}"
                for prop in registry()
                if (violation := prop.check_trace(trace)) is not None
            ]
            parts += ["", f"## {variant.name}", ""]
            parts += [f"- {line}" for line in where]
            parts += ["", step_table(trace), "", mermaid.sequence_diagram(trace)]
        pages[f"counterexamples/{scenario.name}.md"] = "\n".join(parts) + "\n"
        found = ", ".join(f"{v.variant}: {' '.join(sorted(v.found))}" for v in broken)
        index.append(f"- [`{scenario.name}`]({scenario.name}.md): {found}")
    index += more_index or []
    pages["counterexamples/README.md"] = "\n".join(index) + "\n"
    return pages
