"""Every history mutant of the reference is caught by the conformance run, and
docs/kill-matrix.md is exactly what a fresh run of both modes produces."""

from __future__ import annotations

import json

import pytest

from model_checks.conform.adapter import load_adapter
from model_checks.mutant_run.killmatrix import (
    DEFAULT_PATH,
    default_rows,
    independent_rows,
    kill_rate,
    render,
    results_json,
)
from model_checks.mutant_run.reference_mutants import (
    adapter_path,
    history_mutants,
    reference_mutants,
    slip_mutants,
)
from model_checks.mutation.registry import Target, entries
from tests.conform.reference_named import by_name

HISTORY = history_mutants()
SLIPS = slip_mutants()
ARGUED_EQUIVALENT = {e.name for e in entries(Target.REFERENCE) if e.equivalent}


def test_conform_at_least_eight_mutants_each_loadable_by_path() -> None:
    assert len(HISTORY) >= 8
    for mutant in reference_mutants():
        assert load_adapter(adapter_path(mutant)).name == mutant.adapter.name


def test_conform_every_mutant_is_caught_and_the_kill_matrix_is_fresh() -> None:
    rows = default_rows()
    survivors = [r.mutant.name for r in rows if r.in_process.caught_by is None]
    assert not survivors, f"mutants not caught in one process: {survivors}"
    for row in rows:
        assert row.in_process.length is not None and row.in_process.length > 0
        assert row.two_processes is not None and row.two_processes.harness is None
        # the same bug is caught the same way across the process boundary (a false kill,
        # e.g. a serialisation error blamed on the implementation as S3, would differ)
        assert row.two_processes.caught_by == row.in_process.caught_by, row.mutant.name
    independent = independent_rows()
    killed, total = kill_rate(independent)
    assert total >= 20 and killed >= 0.95 * total, f"{killed} of {total}"
    survivors = {r.mutant.name for r in independent if r.in_process.caught_by is None}
    assert survivors == set(ARGUED_EQUIVALENT), "every survivor is argued equivalent, and "
    "every mutant argued equivalent survives"
    text = render(rows, independent=independent)
    assert DEFAULT_PATH.read_text() == text, (
        "docs/kill-matrix.md is stale: run python -m model_checks.mutant_run.killmatrix"
    )
    committed = json.loads((DEFAULT_PATH.parent / "results" / "kill-matrix.json").read_text())
    assert committed == results_json(rows, independent), (
        "docs/results/kill-matrix.json is stale: run python -m model_checks docs")


def test_conform_the_independent_set_is_disjoint_from_the_history_mutants() -> None:
    names = [m.name for m in SLIPS]
    assert len(set(names)) == len(names)
    assert not set(names) & {m.name for m in HISTORY}
    assert not {m.story for m in SLIPS} & {m.story for m in HISTORY}


def test_a_mutant_is_found_by_name_and_an_unknown_name_lists_the_known_ones() -> None:
    """Both reference sets look names up through one function; a wrong name is a `KeyError`
    naming every mutant of the set asked, and finds nothing of another set."""
    for mutant_set in (HISTORY, SLIPS):
        assert all(by_name(m.name) is m for m in mutant_set)
        assert all(by_name(m.name, mutant_set) is m for m in mutant_set)
        with pytest.raises(KeyError) as error:
            by_name("no-such-mutant", mutant_set)
        assert all(m.name in str(error.value) for m in mutant_set)
    with pytest.raises(KeyError):
        by_name(SLIPS[0].name, HISTORY)
