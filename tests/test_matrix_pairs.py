"""The expected matrix's pair cells: every pair of drift sources present, every cell judging
every property, and every expectation that is not the union of the two sources' backed by a
hand-written reason (an interaction, or an instance that does not contain a source's)."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import pytest

from model_checks import cli
from model_checks.docs.snapshot import trace_name
from model_checks.explore.cell_tasks import CellTask, explore_cell
from model_checks.jobs import phases
from model_checks.jobs import run as job_run
from model_checks.jobs.run import PhaseRun
from model_checks.kernel.cell_sets import (
    ALL_EXPECTED,
    CELL_SETS,
    add_cells_argument,
    cells_named,
)
from model_checks.kernel.instance import config_for, instance_contains
from model_checks.kernel.matrix import (
    ENVIRONMENTS,
    EXPECTED,
    PROPERTIES,
    ROUTER_ENVIRONMENTS,
    WIDER_PROPERTIES,
    Expectation,
)
from model_checks.kernel.pair_cells import PAIR_ENVIRONMENTS, PAIR_EXPECTED, union
from model_checks.kernel.pair_reasons import PAIR_REASONS
from model_checks.kernel.pair_witnesses import WITNESSES
from model_checks.kernel.trace_file import actions_of, config_of
from model_checks.kernel.verdict_records import Verdict
from spec import DRIFT_IDS, VARIANTS, by_id, environment, run, variant_named
from tests.expected_cells import expected_cell

VARIANT_NAMES = [v.name for v in VARIANTS]


def test_every_pair_of_drift_sources_has_a_cell_per_variant() -> None:
    pairs = set(combinations(DRIFT_IDS, 2))
    assert len(pairs) == math.comb(len(DRIFT_IDS), 2)
    environments = {c.environment for c in ALL_EXPECTED}
    assert pairs <= environments
    assert not set(PAIR_ENVIRONMENTS) & set(ENVIRONMENTS)
    assert set(PAIR_ENVIRONMENTS) | (pairs & set(ENVIRONMENTS)) == pairs
    keys = [(c.variant, c.environment) for c in ALL_EXPECTED]
    assert len(keys) == len(set(keys)) == len(VARIANT_NAMES) * (
        len(ENVIRONMENTS) + len(ROUTER_ENVIRONMENTS) + len(PAIR_ENVIRONMENTS))
    assert ALL_EXPECTED == EXPECTED + PAIR_EXPECTED


def test_every_pair_cell_judges_every_property_with_a_reason() -> None:
    for cell in PAIR_EXPECTED:
        assert set(cell.expectations) == set(PROPERTIES)
        assert set(cell.wider) == set(WIDER_PROPERTIES)
        assert cell.why.startswith(f"Pair {'+'.join(cell.environment)}, {cell.variant}.")
        config_for(variant_named(cell.variant), cell.environment)  # a valid configuration


def _departures(variant: str, pair: tuple[str, ...]) -> dict[str, tuple[Expectation, Expectation]]:
    cell = expected_cell(variant, pair)
    base = union(variant, pair)
    return {p: (base[p], cell.expectations[p]) for p in PROPERTIES
            if base[p] is not cell.expectations[p]}


def test_every_departure_from_the_union_has_a_hand_written_reason() -> None:
    for cell in PAIR_EXPECTED:
        departures = _departures(cell.variant, cell.environment)
        if not departures:
            continue
        assert cell.interaction, (cell.variant, cell.environment, departures)
        assert cell.interaction in cell.why
        for prop, (_, expected) in departures.items():
            assert expected is Expectation.BREAKS  # never weaker than the union
            assert prop in cell.interaction, (cell.variant, cell.environment, prop)


def test_every_pair_reason_changes_some_cell() -> None:
    # A reason that changes nothing is a stale reason: remove it or fix it.
    for pair, reason in PAIR_REASONS.items():
        assert pair in PAIR_ENVIRONMENTS, pair
        assert reason.why.strip()
        assert reason.breaks, pair
        assert all(set(props.split()) <= set(PROPERTIES) for _, props in reason.breaks)
        assert any(_departures(v, pair) for v in VARIANT_NAMES), pair


def test_monotone_where_the_instance_contains_the_smaller() -> None:
    # Every trace of a contained instance is a trace of the larger one, so a property broken
    # or not judged under the smaller environment is never expected to hold under the larger.
    for small in ALL_EXPECTED:
        for large in ALL_EXPECTED:
            if large.variant != small.variant or not set(small.environment) < set(
                large.environment
            ) or not instance_contains(large.environment, small.environment):
                continue
            for prop, expected in small.expectations.items():
                if expected is not Expectation.HOLDS:
                    assert large.expectations[prop] is not Expectation.HOLDS, (
                        small.variant, small.environment, large.environment, prop)


def test_instance_containment() -> None:
    assert instance_contains(("D1", "D2"), ("D1",))
    assert instance_contains(("D5", "D7"), ("D5",))
    assert not instance_contains(("D1", "D11"), ("D1",))  # c over the budget
    assert not instance_contains(("D1", "D9"), ("D1",))  # b skewed
    assert not instance_contains(("D1",), ("D1", "D2"))


def test_pair_safety_sanity() -> None:
    for cell in PAIR_EXPECTED:
        assert cell.expectations["S2"] is Expectation.HOLDS
        assert (cell.expectations["S4"] is Expectation.BREAKS) is ("D7" in cell.environment)
        if cell.variant == "V3":
            assert {cell.expectations[p] for p in ("S1", "S2", "S3")} == {Expectation.HOLDS}
        if "D7" not in cell.environment:
            assert cell.expectations["S1"] is Expectation.HOLDS


def test_cell_sets_and_the_cells_argument() -> None:
    assert cells_named("matrix") == EXPECTED and cells_named("all") == ALL_EXPECTED
    assert set(CELL_SETS) == {"matrix", "pairs", "all"}
    with pytest.raises(KeyError, match="expected one of all, matrix, pairs"):
        cells_named("everything")
    parser = argparse.ArgumentParser()
    add_cells_argument(parser)
    assert parser.parse_args([]).cells == "matrix"
    assert parser.parse_args(["--cells", "pairs"]).cells == "pairs"


# -- the union's evidence, and the checkers on interaction cells ------------------------------

TRACES = Path(__file__).resolve().parent.parent / "docs" / "results" / "traces"


def _lifted(variant: str, pair: tuple[str, ...], prop: str) -> bool | None:
    """Whether a snapshot counterexample of one of the pair's sources, replayed on its own
    instance with the pair's environment, still breaks `prop` (None: the snapshot has no
    trace of either source for it)."""
    found = None
    for drift in pair:
        path = TRACES / f"{trace_name((variant, (drift,), prop))}.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text())
        actions = actions_of(data)
        lifted = replace(config_of(data), environment=environment(*pair))
        if by_id(prop).check_trace(run(lifted, actions)) is not None:
            return True
        found = False
    return found


def test_every_union_break_is_witnessed_by_a_lifted_single_source_trace() -> None:
    # Behaviours only grow with the environment: a single source's counterexample is, on
    # the same instance, a counterexample under the pair. Every break a pair cell inherits
    # from a source alone is backed by such a replay (the spec's monotonicity, per cell).
    claims = [(c.variant, c.environment, p) for c in PAIR_EXPECTED
              for p in PROPERTIES if union(c.variant, c.environment)[p] is Expectation.BREAKS]
    results = {claim: _lifted(*claim) for claim in claims}
    assert not [claim for claim, lifted in results.items() if lifted is False]
    witnessed = sum(lifted is True for lifted in results.values())
    assert witnessed >= 0.9 * len(claims), (witnessed, len(claims))


def _explored(variant: str, pair: tuple[str, ...], tmp_path: Path) -> dict[str, Verdict]:
    outcome = explore_cell(CellTask(variant_named(variant), pair, tmp_path, 30_000))
    assert outcome.complete and outcome.states > 0
    return {r.property: r.verdict for r in outcome.records}


@pytest.mark.parametrize("pair", [("D3", "D7")])
def test_explore_finds_the_cache_wins_interaction_and_v2_keeps_s1(
    pair: tuple[str, ...], tmp_path: Path
) -> None:
    # S1 breaks with identity reuse where the cache wins (V1: D7's larger content already
    # makes P0 forget what P1 keeps); V2 replaces the old entry with the payload in order
    # and keeps S1 with a one-sided forgetting of P0 too, in the explorer's instance: its S1
    # breaks with D7 alone only past the main job's bounds, so the matrix does not judge it.
    for variant in ("V1", "V2"):
        cell = expected_cell(variant, pair)
        assert (union(variant, pair)["S1"] is Expectation.NOT_JUDGED) is (variant == "V2")
        verdicts = _explored(variant, pair, tmp_path)
        assert (verdicts["S1"] is Verdict.COUNTEREXAMPLE) is (
            cell.expectations["S1"] is Expectation.BREAKS), (variant, pair)
        for prop, expected in cell.expectations.items():
            if expected is Expectation.HOLDS:
                assert verdicts[prop] is not Verdict.COUNTEREXAMPLE, (variant, pair, prop)


def test_breaks_the_instance_cannot_show_are_not_judged_at_it() -> None:
    # D11 makes c oversized, so a and b fill the budget and nothing is evicted: D5's H1
    # (the other front end's payloads evict from P1) cannot show in D5+D11's instance.
    cell = expected_cell("V1", ("D5", "D11"))
    assert cell.expectations["H1"] is Expectation.BREAKS and "H1" in cell.unshown
    assert cell.at_instance["H1"] is Expectation.NOT_JUDGED
    assert not expected_cell("V1", ("D2", "D11")).unshown  # rejections need no eviction
    for cell in EXPECTED:
        assert not cell.unshown and cell.at_instance == dict(cell.expectations)
    for cell in PAIR_EXPECTED:
        assert cell.unshown <= {p for p, e in cell.expectations.items()
                                if e is Expectation.BREAKS}
        if cell.unshown:
            assert not all(instance_contains(cell.environment, (d,)) for d in cell.environment)
            assert "need not show" in cell.why


def test_the_nightly_runs_the_pair_cells() -> None:
    assert phases.PAIRS[-1].argv[:3] == ("explore", "--profile", "ci")
    assert all(part in phases.NIGHTLY for part in phases.PAIRS)
    assert len(phases.PAIR_ENV_ARGUMENTS) == 2 * len(PAIR_ENVIRONMENTS)
    label = PhaseRun(1, phases.PAIRS[-1], Path("build")).label
    assert label == "explore --profile ci (every pair cell)"


@pytest.mark.slow  # the scenario suite runs first: about 20 s, 50 s on a loaded machine
def test_the_nightly_fails_on_a_contradiction(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # explore checks its verdicts against the main matrix only: the nightly's summary, over
    # every cell, pairs included, is what fails it on a pair cell's contradiction.
    one_cell = ("prove", "--variant", "V3", "--environment", "none", "--property", "S2",
                "--depth", "1", "--jobs", "1")
    monkeypatch.setattr(phases, "NIGHTLY", (phases.checker(*one_cell),))
    monkeypatch.setattr(job_run, "contradiction_count", lambda records: (1, 1))
    assert cli.main(["nightly", "--json", str(tmp_path / "records.json")]) == 1
    capsys.readouterr()





@pytest.mark.parametrize("cell", sorted(WITNESSES), ids=lambda c: f"{'+'.join(c[0])}-{c[1]}")
def test_the_reasoned_interactions_break_s1_on_the_matrix_instance(
    cell: tuple[tuple[str, ...], str]
) -> None:
    pair, variants = cell
    for variant in variants.split():
        assert expected_cell(variant, pair).expectations["S1"] is Expectation.BREAKS
        if union(variant, pair)["S1"] is Expectation.HOLDS:  # an interaction (else D7 alone)
            assert "S1" in PAIR_REASONS[pair].breaks_in(variant_named(variant)), variant
        trace = run(config_for(variant_named(variant), pair), WITNESSES[cell])
        violation = by_id("S1").check_trace(trace)
        assert violation is not None and violation.step == len(WITNESSES[cell]), variant


LATTICE = Path(__file__).resolve().parent.parent / "docs" / "results" / "lattice.json"


def test_no_pair_cell_expects_to_hold_what_the_drift_lattice_breaks() -> None:
    # The lattice's minimal breaking environments come with replayed counterexamples, so a
    # pair containing one breaks the property: the matrix must not expect it to hold. (The
    # converse is not checked: the lattice's instance is smaller, its "holds" is for it.)
    entries = json.loads(LATTICE.read_text())
    assert entries
    for entry in entries:
        minimal = [set(m) for m in entry["minimal_breaking"]]
        for cell in PAIR_EXPECTED + tuple(c for c in EXPECTED if len(c.environment) <= 2):
            if cell.variant != entry["variant"]:
                continue
            if any(m <= set(cell.environment) for m in minimal):
                assert cell.expectations[entry["property"]] is not Expectation.HOLDS, (
                    cell.variant, cell.environment, entry["property"])


def test_the_drift_lattice_answers_every_break_the_matrix_expects_of_two_sources() -> None:
    # The converse of the test above: every cell of at most two sources where the matrix
    # expects H1 to break (every variant), or S1 to break for V1 or V2 (the seed and its
    # predecessor), has, in the committed lattice, a minimal breaking set inside its
    # environment (found by the lattice's explorer or by another checker, replayed), so the
    # lattice never answers "no breaking environment found" where the matrix holds a break.
    # (V0's S1 under D6+D7 is expected by the pair reasoning, but no checker's evidence in
    # the snapshot shows it and the committed lattice did not explore V0's pairs.)
    entries = {(e["variant"], e["property"]): e for e in json.loads(LATTICE.read_text())}
    missing = []
    for cell in PAIR_EXPECTED + tuple(c for c in EXPECTED if len(c.environment) <= 2):
        if any(not d.startswith("D") or not d[1:].isdigit() for d in cell.environment):
            continue  # D5-router is not a drift source of the lattice
        for prop in ("S1", "H1"):
            entry = entries.get((cell.variant, prop))
            if entry is None or cell.expectations.get(prop) is not Expectation.BREAKS:
                continue
            if prop == "S1" and cell.variant not in ("V1", "V2"):
                continue
            sets = [set(m) for m in entry["minimal_breaking"] + entry["unsettled_breaking"]]
            if not any(m <= set(cell.environment) for m in sets):
                missing.append((cell.variant, "+".join(cell.environment), prop))
    assert not missing, missing
