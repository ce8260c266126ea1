"""The design-generic simulate and prove over both built-in designs, on small instances:
prove's bounded counterexamples replay on the spec and are as short as the explorer's
witnesses, prove and explore agree on every verdict, a graph cut short proves nothing for
all depths, and a run that checks nothing (no state, depth 0, no step) is a failure."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import pytest

from model_checks.explore.exploration import explore, replay
from model_checks.explore.judgement import JudgedInstance
from model_checks.simulate.designs import NOT_FOUND, simulate
from spec.designs import Design
from spec.designs.lru_design import LRU
from spec.designs.shm.design import SHM
from tests.designs.design_prove import BOUNDED, BREAKS, HOLDS, NOT_RUN, UNKNOWN, ProofOptions, prove

Case = tuple[Design, str, frozenset[str], dict[str, Any]]
"""A design, variant, environment, and the configuration fields replaced in its instance."""

CASES: list[Case] = [  # each under 1000 states
    (SHM, "O1", frozenset({"D3"}), {"max_requests": 2, "readers": 1}),
    (SHM, "O1", frozenset({"D2"}), {"max_requests": 2, "readers": 1}),
    (SHM, "O1", frozenset(), {"max_requests": 2, "readers": 1}),
    (LRU, "V0", frozenset({"D1"}), {}),
    (LRU, "V1", frozenset({"D2"}), {}),
]


def _case_id(case: Case) -> str:
    design, variant, environment, _ = case
    return f"{design.name}-{variant}-{'+'.join(sorted(environment)) or 'none'}"


def _config(design: Design, variant: str, environment: frozenset[str],
            fields: dict[str, Any]) -> Any:
    return dataclasses.replace(design.instance(variant, environment), **fields)


@functools.cache
def _explored(case_id: str) -> JudgedInstance:
    """The explorer's verdicts on one case, searched once for every test that reads them."""
    case = next(c for c in CASES if _case_id(c) == case_id)
    return explore(case[0], _config(*case))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_prove_and_explore_agree_and_every_break_replays(
        case: Case) -> None:
    design, variant, environment, _ = case
    config = _config(*case)
    explored = _explored(_case_id(case))
    proved = prove(design, config,
                   ProofOptions(max_depth=10, variant=variant, environment=environment))
    assert explored.complete and proved.complete and not proved.failed
    assert proved.states == explored.states
    assert design.name in proved.instance and repr(config) in proved.instance
    for prop in design.properties:
        assert proved.verdict(prop.id) == explored.verdict(prop.id), prop.id
        if proved.verdict(prop.id) == BREAKS:
            path = proved.proof(prop.id).actions
            assert replay(design, config, path, prop)  # design.step accepts every action
            witness = explored.witness(prop.id)
            assert witness is not None and len(path) == len(witness.actions)


def test_the_cases_cover_breaks_and_holds_in_both_designs() -> None:
    verdicts = {(case[0].name, _explored(_case_id(case)).verdict(p.id))
                for case in CASES for p in case[0].properties}
    assert verdicts == {(d, v) for d in ("shm", "lru") for v in ("breaks", "holds")}


def test_a_graph_cut_short_decides_only_to_its_depth() -> None:
    config = _config(SHM, "O1", frozenset({"D3"}), {"max_requests": 2})
    proved = prove(SHM, config, ProofOptions(max_depth=10, max_states=200))
    assert not proved.complete
    assert 0 < proved.bound < 10
    assert {p.verdict for p in proved.proofs} == {BOUNDED}
    assert all(f"within {proved.bound} steps" in p.reason for p in proved.proofs)


def test_the_bound_stops_at_max_depth_and_a_deeper_break_is_not_a_hold() -> None:
    config = _config(SHM, "O1", frozenset({"D3"}), {"max_requests": 2, "readers": 1})
    proved = prove(SHM, config, ProofOptions(max_depth=3))
    assert proved.complete and proved.bound == 3
    assert proved.verdict("S3") == BOUNDED  # its shortest break takes 5 steps
    assert "a deeper state breaks it" in proved.proof("S3").reason
    assert proved.verdict("S2") == HOLDS


@pytest.mark.parametrize(("max_states", "max_depth"), [(0, 5), (1000, 0)])
def test_an_empty_state_space_or_depth_0_is_a_failure(max_states: int, max_depth: int
                                                       ) -> None:
    config = _config(SHM, "O1", frozenset(), {"max_requests": 1, "readers": 1})
    proved = prove(SHM, config, ProofOptions(max_states=max_states, max_depth=max_depth))
    assert proved.failed
    assert {p.verdict for p in proved.proofs} == {NOT_RUN}


def test_a_resource_limit_too_small_decides_nothing_rather_than_a_hold() -> None:
    config = _config(SHM, "O1", frozenset({"D3"}), {"max_requests": 2, "readers": 1})
    proved = prove(SHM, config, ProofOptions(rlimit=1))
    assert {p.verdict for p in proved.proofs} == {UNKNOWN}
    assert all("Z3 gave up" in p.reason for p in proved.proofs)


@pytest.mark.parametrize("case", [c for c in CASES if c[2]], ids=_case_id)
def test_simulate_finds_breaks_that_replay(
        case: Case) -> None:
    design, variant, environment, _ = case
    config = _config(*case)
    explored = _explored(_case_id(case))
    found = simulate(design, config, examples=100, steps=20, variant=variant,
                     environment=environment)
    assert not found.failed and found.steps > 0
    assert found.counterexamples
    for counterexample in found.counterexamples:
        prop = next(p for p in design.properties if p.id == counterexample.property_id)
        assert replay(design, config, counterexample.actions, prop)
        assert explored.verdict(prop.id) == "breaks"


def test_simulate_reports_not_found_with_its_steps_and_repeats_itself() -> None:
    config = _config(SHM, "O1", frozenset(), {"max_requests": 2, "readers": 1})
    first = simulate(SHM, config, examples=20, steps=10)
    assert not first.failed and first.steps > 0
    assert {first.verdict(p.id) for p in SHM.properties} == {NOT_FOUND}
    assert simulate(SHM, config, examples=20, steps=10) == first  # derandomized


@pytest.mark.parametrize(("examples", "steps"), [(0, 5), (5, 0)])
def test_simulate_with_no_step_is_a_failure(examples: int, steps: int) -> None:
    config = _config(SHM, "O1", frozenset(), {"max_requests": 1, "readers": 1})
    found = simulate(SHM, config, examples=examples, steps=steps)
    assert found.failed and found.steps == 0
    assert {found.verdict(p.id) for p in SHM.properties} == {NOT_RUN}
