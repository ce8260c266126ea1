"""Write the generated pages, or check that the committed ones are fresh.

Every page comes from the registry, the scenario suite (deterministic runs made now), the
results snapshot under `docs/results/` (see `snapshot`), the committed drift lattice
(`docs/results/lattice.json`, see `lattice_page`; it also fills a region of questions.md)
and the kill matrix (the conformance mutants, run now: about 15 s, derandomized). `check`
reports stale, missing and extra pages: an extra page is a counterexample page, a snapshot
trace or a lattice witness that nothing generates or references any more.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.conform import api_page
from model_checks.docs import lattice_page as lat
from model_checks.docs import results as res
from model_checks.docs import snapshot as snap
from model_checks.docs.answer_tables import property_answers
from model_checks.docs.bundle import Bundle
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
from model_checks.docs.vllm_page import vllm_page
from model_checks.scenario_run import replay_all
from spec import Drift

if TYPE_CHECKING:
    from model_checks.conform.killmatrix import Row

MANAGED = "counterexamples"
"""The folder whose every page is generated: anything else in it is extra."""


@functools.cache
def kill_matrix_page() -> str:
    """docs/kill-matrix.md from a fresh run of the conformance mutants (once per process)."""
    from model_checks.conform.killmatrix import page

    return page()


def _kill_rows() -> list[Row]:
    """The kill matrix's rows (the same cached run as kill-matrix.md)."""
    from model_checks.conform.killmatrix import default_rows

    return default_rows()


ANSWERS = "../model_checks/answers/answers.json"
"""The answer store (package data), relative to the docs folder: generated with the pages."""


def pages(root: Path, bundle: Bundle | None = None) -> dict[str, str]:
    """Relative path -> content of every generated page (and of the answer store), from the
    results under `root` (read once, `Bundle`); deterministic. Raises snapshot.SnapshotError
    if the results cannot be read."""
    bundle = bundle or Bundle.load(root)
    results = res.Results.of(bundle.snapshot)
    verdicts = replay_all()
    links = {drift: res.drift_links(results, drift) for drift in Drift}
    answered, legend = property_answers(bundle.answers)
    lattice = bundle.lattice
    sections = [line for d in bundle.long_runs
                for line in long_run_section(d.entries, d.outcomes, d.run)]
    return {
        ANSWERS: bundle.answers.to_json(),
        "drift-combinations.md": lat.lattice_page(lattice, bundle.outcomes, sections),
        lat.QUESTIONS: lat.splice_questions(root, lattice),
        "verdicts.md": res.verdicts_page(results, bundle.answers),
        "invariants.md": invariants_page(verdicts, answered, legend.lines()),
        "drift.md": drift_page(verdicts, links,
                               {drift: res.kept_alone(bundle.answers, drift) for drift in Drift}),
        "scenarios.md": scenarios_page(verdicts),
        "notation.md": notation_page(),
        "kill-matrix.md": kill_matrix_page(),
        api_page.PAGE: api_page.splice((root / api_page.PAGE).read_text()),
        "requirements.md": requirements_page(_kill_rows()),
        VLLM_PAGE: vllm_page(bundle.vllm),
        **counterexample_pages(verdicts, res.trace_index(results)),
        **res.trace_pages(results),
    }


@dataclass(frozen=True)
class Problem:
    kind: str  # "stale", "missing" or "extra"
    name: str  # relative to the docs folder


def _extra(bundle: Bundle, generated: dict[str, str]) -> list[str]:
    root = bundle.root
    folder = root / MANAGED
    found = sorted(folder.glob("*.md")) if folder.is_dir() else []
    names = [f"{MANAGED}/{p.name}" for p in found]
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


def stale(root: Path) -> list[str]:
    """The names of every stale, missing or extra page (see `check`)."""
    return [p.name for p in check(root)]


def write(root: Path) -> list[Path]:
    """Write every page under `root`, and remove the extra ones: regenerating twice gives an
    identical tree."""
    bundle = Bundle.load(root)
    generated = pages(root, bundle)
    for name in _extra(bundle, generated):
        (root / name).unlink()
    written = []
    for name, text in generated.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written
