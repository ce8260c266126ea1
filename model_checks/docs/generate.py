"""Write the generated pages, or check that the committed ones are fresh.

Every page comes from the registry and from the results under `docs/results/`, read once
(`bundle.Bundle`): the results snapshot (see `snapshot`), the drift lattice and its long runs
(see `lattice_page`; it also fills a region of questions.md), the answer store built from
them (`model_checks.answers`, written beside the package as its data), the scenario suite's
verdicts and the conformance mutants' kill matrix. `write` runs the last two afresh (the
mutants through their cache) and keeps them under `docs/results/`; `check` runs no checker:
it renders from what is committed and compares (the test suite checks the committed kill
matrix and verdicts against fresh runs). `check` reports stale, missing and extra pages: an
extra page is a counterexample page, a snapshot trace or a lattice witness that nothing
generates or references any more.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.conform import api_page
from model_checks.docs import design_section, server_section
from model_checks.docs import lattice_page as lat
from model_checks.docs import results as res
from model_checks.docs import snapshot as snap
from model_checks.docs.answer_tables import property_answers
from model_checks.docs.bundle import KILL_MATRIX, SCENARIOS, Bundle
from model_checks.docs.lattice_nightly import long_run_section
from model_checks.docs.pages import (
    counterexample_pages,
    drift_page,
    invariants_page,
    notation_page,
    scenarios_page,
)
from model_checks.docs.requirements_page import requirements_page
from model_checks.docs.vllm_page import PAGE as VLLM_PAGE
from model_checks.docs.vllm_page import hand_written, vllm_page
from model_checks.mutant_run.killmatrix import render as render_kill_matrix
from model_checks.scenarios.run import (
    ScenarioVerdict,
    replay_all,
    verdicts_from_json,
    verdicts_json,
)
from spec import Drift

if TYPE_CHECKING:
    from model_checks.mutant_run.killmatrix import Row

MANAGED = ("counterexamples", res.VARIANT_PAGES)
"""The folders whose every page is generated: anything else in them is extra."""


@dataclass(frozen=True)
class Runs:
    """What two checkers found, which pages show: the scenario suite's verdicts and the
    conformance mutants' kill matrix (rows, independent rows)."""

    verdicts: list[ScenarioVerdict]
    rows: list[Row]
    independent: list[Row]

    @classmethod
    def fresh(cls) -> Runs:
        """Run both now (the kill matrix through its cache: `killmatrix.default_rows`)."""
        from model_checks.mutant_run.killmatrix import default_rows, independent_rows

        return cls(replay_all(), default_rows(), independent_rows())

    @classmethod
    def committed(cls, bundle: Bundle) -> Runs:
        """As `docs` last wrote them under docs/results/; `SnapshotError` where absent."""
        from model_checks.mutant_run.killmatrix import rows_from_json

        if bundle.kill_matrix is None or bundle.scenarios is None:
            raise snap.SnapshotError(f"{bundle.root / KILL_MATRIX} or {bundle.root / SCENARIOS} "
                                     "is missing: run `python -m model_checks docs`")
        try:
            rows, independent = rows_from_json(bundle.kill_matrix)
            verdicts = verdicts_from_json(bundle.scenarios)
        except ValueError as error:
            raise snap.SnapshotError(f"{error} (run `python -m model_checks docs`)") from None
        return cls(verdicts, rows, independent)

    def files(self) -> dict[str, str]:
        """The results files they are kept in."""
        from model_checks.mutant_run.killmatrix import results_json

        return {KILL_MATRIX: json.dumps(results_json(self.rows, self.independent), indent=1)
                + "\n",
                SCENARIOS: json.dumps(verdicts_json(self.verdicts), indent=1) + "\n"}


ANSWERS = "../model_checks/answers/answers.json"
DESIGN_ANSWERS = "../model_checks/answers/designs.json"
"""The other designs' answers (package data, for the doctor), generated with the pages."""
"""The answer store (package data), relative to the docs folder: generated with the pages."""


def pages(root: Path, bundle: Bundle | None = None, runs: Runs | None = None
          ) -> dict[str, str]:
    """Relative path -> content of every generated page (and of the answer store, the kill
    matrix and the scenario verdicts), from the results under `root` (read once, `Bundle`)
    and `runs` (None: as committed, so that no checker runs); deterministic. Raises
    snapshot.SnapshotError if the results cannot be read."""
    bundle = bundle or Bundle.load(root)
    runs = runs or Runs.committed(bundle)
    results = res.Results.of(bundle.snapshot)
    verdicts = runs.verdicts
    links = {drift: res.drift_links(results, drift) for drift in Drift}
    answered, legend = property_answers(bundle.answers)
    lattice = bundle.lattice
    sections = [line for d in bundle.long_runs
                for line in long_run_section(d.entries, d.outcomes, d.run)]
    return {
        ANSWERS: bundle.answers.to_json(),
        DESIGN_ANSWERS: design_section.answers_json(list(bundle.designs)),
        "drift-combinations.md": lat.lattice_page(
            lattice, bundle.outcomes, sections,
            design_section.sections(list(bundle.designs))),
        lat.QUESTIONS: lat.splice_questions(root, lattice),
        **res.verdicts_pages(results, bundle.answers),
        "invariants.md": invariants_page(verdicts, answered, legend.lines()),
        "drift.md": drift_page(verdicts, links,
                               {drift: res.kept_alone(bundle.answers, drift) for drift in Drift}),
        "scenarios.md": scenarios_page(verdicts),
        "notation.md": notation_page(),
        "kill-matrix.md": render_kill_matrix(runs.rows, independent=runs.independent),
        api_page.PAGE: api_page.splice((root / api_page.PAGE).read_text()),
        "requirements.md": requirements_page(runs.rows),
        VLLM_PAGE: vllm_page(bundle.vllm, server_section.splice_patched(
            hand_written(root), server_section.load_patched(root)), server_section.load(root)),
        **counterexample_pages(verdicts, res.trace_index(results)),
        **res.trace_pages(results),
        **runs.files(),
    }


@dataclass(frozen=True)
class Problem:
    kind: str  # "stale", "missing" or "extra"
    name: str  # relative to the docs folder


def _extra(bundle: Bundle, generated: dict[str, str]) -> list[str]:
    root = bundle.root
    names = [f"{managed}/{p.name}" for managed in MANAGED if (root / managed).is_dir()
             for p in sorted((root / managed).glob("*.md"))]
    return ([n for n in names if n not in generated] + snap.orphans(root, bundle.snapshot)
            + lat.orphans(root, bundle.lattice)
            + [name for d in bundle.long_runs
               for name in lat.orphans(root, d.entries or [], d.run.witnesses)])


def check(root: Path, bundle: Bundle | None = None) -> list[Problem]:
    """Pages that differ from what the code generates now, are missing, or are extra."""
    bundle = bundle or Bundle.load(root)
    generated = pages(root, bundle)
    problems = []
    for name, text in generated.items():
        path = root / name
        if not path.exists():
            problems.append(Problem("missing", name))
        elif path.read_text() != text:
            problems.append(Problem("stale", name))
    problems += [Problem("extra", name) for name in _extra(bundle, generated)]
    return problems


def write(root: Path) -> list[Path]:
    """Write every page under `root`, and remove the extra ones: regenerating twice gives an
    identical tree."""
    bundle = Bundle.load(root)
    generated = pages(root, bundle, Runs.fresh())
    for name in _extra(bundle, generated):
        (root / name).unlink()
    written = []
    for name, text in generated.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written
