"""A new variant needs only the files docs/architecture.md's recipe names.

The fixture copies the sources to a scratch directory and adds "V2b" (V2's knobs under
another name) by editing exactly the recipe's files: `spec/variants.py` (the variant, joining
`VARIANTS`), `model_checks/kernel/matrix.py` (its expectation in every row),
`model_checks/scenarios/catalog.py` (its expected violations in every scenario) and
docs/conformance.md (its place in the deployments table, V2's row). A subprocess then
shows, on the copy, that every checker takes it up with no other edit: the scenario suite
judges it as expected; simulate, explore and Z3 judge one of its cells; the reference
adapter lists it as not supported with its reason (never `unknown variant`); the main job's
summary shows its rows; the pair reasoning gives it V2's expectations (derived from its
knobs, not from a table keyed by name: with `pair_reasons.PAIR_REASONS` keyed by variant
name, this test failed on D1+D7's S1); and the copy's deployments table agrees with the
copy's matrix.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NEW = "V2b"
RECIPE = ("spec/variants.py", "model_checks/kernel/matrix.py", "model_checks/scenarios/catalog.py",
          "docs/conformance.md")
"""The non-test files the recipe edits (docs/architecture.md, "A new variant")."""

_AFTER_V2 = re.compile(r'\bV2=("[^"]*"(?: \+ CRASH)?|CRASH)')
"""A row's V2 entry in the matrix and the scenario catalog (`V2="H1 L3"`, `V2=CRASH`, ...)."""


def _add_to_spec(text: str) -> str:
    declared = "VARIANTS: tuple[Variant, ...] = (V0, V1, V2, V3, V4)"
    assert declared in text, "spec/variants.py no longer declares VARIANTS as the recipe says"
    twin = f'{NEW} = Variant(**{{f.name: getattr(V2, f.name) for f in fields(V2)}} | ' \
        f'{{"name": "{NEW}"}})\n\n'
    return text.replace(declared, twin + declared.replace("V4)", f"V4, {NEW})"))


def _add_to_rows(text: str) -> str:
    edited, count = _AFTER_V2.subn(lambda m: f"{m.group(0)}, {NEW}={m.group(1)}", text)
    assert count, "no row names V2: the recipe's row shape changed"
    return edited


def _add_to_table(text: str) -> str:
    row = "| V1, V2 | D6, D7, D8"
    assert row in text, "docs/conformance.md's deployments table has no V1, V2 row"
    return text.replace(row, f"| V1, V2, {NEW} | D6, D7, D8")


EDITS = {RECIPE[0]: _add_to_spec, RECIPE[1]: _add_to_rows, RECIPE[2]: _add_to_rows,
         RECIPE[3]: _add_to_table}
TABLE_TEST = "tests/test_docs_conformance_table.py"
"""The check of docs/conformance.md's table, run on the copy."""


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of spec/, reference/ and model_checks/ with V2b added by the recipe only."""
    root = tmp_path_factory.mktemp("new_variant")
    skip = shutil.ignore_patterns("__pycache__", "*.so")
    for package in ("spec", "reference", "model_checks"):
        shutil.copytree(ROOT / package, root / package, ignore=skip)
    for path in (RECIPE[3], TABLE_TEST):
        (root / path).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / path, root / path)
    for path, edit in EDITS.items():
        target = root / path
        target.write_text(edit(target.read_text()))
    return root


CHECKS = '''
import sys
from model_checks.kernel.cell_sets import ALL_EXPECTED
from model_checks.kernel.instance import config_for
from spec import VARIANT_NAMES, variant_named
NEW = sys.argv[1]
CELLS = {(c.variant, c.environment): c for c in ALL_EXPECTED}
assert NEW in VARIANT_NAMES, VARIANT_NAMES
new = variant_named(NEW)

# the expected matrix, pairs included: V2b's cells are V2's (same knobs, same reasoning)
for cell in ALL_EXPECTED:
    if cell.variant == "V2":
        twin = CELLS[NEW, cell.environment]
        assert twin.expectations == cell.expectations, (cell.environment, twin.expectations)
        assert twin.unshown == cell.unshown, cell.environment
print("matrix ok")

# scenarios: every scenario judges V2b as its catalog expects
from model_checks.scenarios.run import replay_all
verdicts = [v for v in replay_all() if v.variant == NEW]
assert verdicts and all(v.as_expected for v in verdicts), verdicts
print("scenarios ok", len(verdicts))

# simulate: D7's cell, S4 found broken and S2 kept within the ci profile
from model_checks.kernel.matrix import Expectation
from model_checks.simulate.profiles import PROFILES
from model_checks.simulate.run import SimulatedCell, run_cell
cell = CELLS[NEW, ("D7",)]
result = run_cell(SimulatedCell("new", NEW, ("D7",), config_for(new, ("D7",)),
                                {p: cell.expectations[p] for p in ("S2", "S4")}),
                  PROFILES["ci"], None)
assert not result.mismatches and len(result.records) == 2, result.mismatches
print("simulate ok")

# explore: its smallest instance under D7, S4 broken and S1 kept
from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import Status, judge
from spec import by_id
graph = build(explore_config(new, ("D7",)))
assert judge(graph, by_id("S4")).status is Status.COUNTEREXAMPLE
assert judge(graph, by_id("S1")).status is not Status.COUNTEREXAMPLE
print("explore ok")

# prove (the cheap part): Z3 encodes the variant and finds D7's S4 break
from model_checks.smt.budget import BMC_RLIMIT
from model_checks.smt.decided_cells import SmtCell
from model_checks.smt.runner import SmtRun, run_group
from model_checks.smt.results import Violated
outcomes, line = run_group([SmtCell(new, ("D7",), "S4", Expectation.BREAKS, "matrix")],
                           SmtRun(6, BMC_RLIMIT))
assert [o.status for o in outcomes] == ["match"], line
assert isinstance(outcomes[0].result, Violated), line
print("prove ok")

# the reference adapter: not supported, with a reason, instead of `unknown variant`
from model_checks.conform.reference_adapter import ReferenceAdapter, factory
from model_checks.conform.profiles import PROFILES as CONFORM
from model_checks.conform.lru_lockstep.run import ConformRun, conform
adapter = factory()
assert not adapter.supports(NEW)
assert NEW in adapter.unsupported_reason(NEW)
checked = conform(adapter, CONFORM["ci"], ConformRun(variants=(NEW,)))
assert checked.not_checked == [NEW] and not checked.checked, checked
import subprocess
usage = subprocess.run([sys.executable, "-m", "model_checks", "conform", "--adapter",
                        "model_checks.conform.reference_adapter:factory", "--variant", NEW],
                       capture_output=True, text=True, check=False)
assert usage.returncode == 2 and "not supported" in usage.stderr, usage.stderr
assert "unknown variant" not in usage.stderr, usage.stderr
print("conform ok")

# the main job's summary: a row for V2b
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from model_checks.answers.summary import matrix_summary, summary
records = [VerdictRecord("explore", NEW, ("D7",), "S4", Verdict.COUNTEREXAMPLE, None,
                         "states", 0.0, counterexample_length=5)]
assert any(line.split()[:2] == ["D7", NEW] for line in summary(records).splitlines())
assert NEW in matrix_summary(records)
print("summary ok")

# docs/conformance.md's deployments table, checked against the copy's matrix
from tests.test_docs_conformance_table import PAGE, breaking, table_problems
assert table_problems(PAGE.read_text(), breaking()) == []
print("docs ok")
'''


def _run(scratch: Path, script: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(scratch)}
    return subprocess.run([sys.executable, "-c", script, NEW], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_arch_the_recipe_edits_only_its_files(scratch: Path) -> None:
    """The copy differs from the sources in the recipe's files only, and each of them was
    edited (a recipe file the edit no longer reaches fails here)."""
    changed = {
        str(path.relative_to(scratch)) for package in ("spec", "reference", "model_checks")
        for path in (scratch / package).rglob("*.py")
        if path.read_bytes() != (ROOT / path.relative_to(scratch)).read_bytes()
    } | {path for path in (RECIPE[3], TABLE_TEST)
         if (scratch / path).read_bytes() != (ROOT / path).read_bytes()}
    assert changed == set(RECIPE)


def test_arch_the_recipe_is_the_architecture_pages() -> None:
    """The files edited here are those docs/architecture.md lists for a new variant, as many
    as its heading says (at most 4: `tests/test_architecture_doc.py`)."""
    from tests.test_architecture_doc import PAGE, recipes

    _, count, listed = recipes(PAGE.read_text())["A new variant"]
    assert listed == list(RECIPE) and count == len(RECIPE) <= 4


def test_arch_a_new_variant_is_taken_up_with_no_other_edit(scratch: Path) -> None:
    done = _run(scratch, CHECKS)
    assert done.returncode == 0, done.stdout + done.stderr
    for step in ("matrix", "scenarios", "simulate", "explore", "prove", "conform", "summary",
                 "docs"):
        assert f"{step} " in done.stdout, done.stdout


def test_arch_a_variant_missing_from_a_row_fails_loudly(scratch: Path) -> None:
    """Known-bad: a matrix row without the new variant is an error naming it and its row."""
    matrix = scratch / "model_checks" / "kernel" / "matrix.py"
    text = matrix.read_text()
    broken = text.replace(f', {NEW}=""', "", 1)
    assert broken != text
    matrix.write_text(broken)
    try:
        done = _run(scratch, "import model_checks.kernel.matrix")
    finally:
        matrix.write_text(text)
    assert done.returncode != 0
    assert NEW in done.stderr and "no expectation" in done.stderr, done.stderr
