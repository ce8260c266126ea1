"""Partial-order reduction (`explore.lru_judging.reduction`) keeps every verdict: on small
instances the reduced search, with its counterexamples minimised by the unreduced search,
judges every property and lemma as the unreduced search does (same status, same shortest
counterexample length) with no more states; the reduced graph alone gives the same
statuses. The independence relation itself is checked against the spec: footprints that do
not conflict belong to steps that commute, and a disabled step is enabled only by its
necessary enabling set. A wrong independence is caught by the comparison."""

from __future__ import annotations

from dataclasses import replace

import pytest
from given_graph import given_graph

from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import judge_all
from model_checks.explore.lru_judging.reduction import Reducer, build_reduced
from model_checks.explore.lru_judging.reduction.footprint import conflict
from model_checks.explore.lru_judging.reduction.judging import judge_reduced
from model_checks.explore.lru_judging.reduction.rules import (
    footprint,
    groups,
    necessary_enabling,
    universe,
)
from model_checks.explore.lru_judging.reduction.stubborn import ProgressBroken, check_progress
from spec import (
    V0,
    V1,
    V2,
    V3,
    Config,
    Stage,
    State,
    Variant,
    enabled,
    is_enabled,
    is_quiescent,
    step,
)
from spec.transitions import Action, ClearBoth, P0Handle, P1Receive

CASES = [
    (V2, ()), (V0, ("D1",)), (V2, ("D1",)), (V1, ("D2",)), (V1, ("D3",)), (V3, ("D3",)),
    (V2, ("D4",)), (V1, ("D5",)), (V2, ("D6",)), (V3, ("D7",)), (V2, ("D9",)),
    (V2, ("D11",)), (V2, ("D1", "D7")), (V1, ("D7", "D10")), (V0, ("D3", "D7")),
]


def _small(variant: Variant, env: tuple[str, ...]) -> Config:
    return explore_config(variant, env, max_requests=2)


def _name(case: object) -> str:
    return getattr(case, "name", None) or "+".join(case) or "none"  # type: ignore[arg-type]


@pytest.mark.parametrize(("variant", "env"), CASES, ids=_name)
def test_reduced_search_judges_as_the_unreduced_one(variant: Variant,
                                                     env: tuple[str, ...]) -> None:
    _reduction_keeps_the_verdicts(_small(variant, env))


DUPLICATE_CASES = [(V3, ()), (V1, ("D7",)), (V2, ("D9",)), (V3, ("D6",))]


@pytest.mark.parametrize(("variant", "env"), DUPLICATE_CASES, ids=_name)
def test_with_duplicates_the_reduced_search_judges_as_the_unreduced_one(
        variant: Variant, env: tuple[str, ...]) -> None:
    """Requests that name one identity twice (`Config.duplicates`) change no footprint."""
    config = replace(_small(variant, env), duplicates=True, max_items=2)
    _reduction_keeps_the_verdicts(config)


def _reduction_keeps_the_verdicts(config: Config) -> None:
    plain = build(config)
    expected = judge_all(plain)
    reduced = judge_reduced(config)
    assert plain.complete and reduced.graph.complete
    assert len(reduced.graph.states) <= len(plain.states)
    assert reduced.graph.diameter == plain.diameter
    for want, got in zip(expected, reduced.judgements, strict=True):
        assert (got.property_id, got.status, len(got.actions)) == (
            want.property_id, want.status, len(want.actions))
    # The reduced graph alone: the same statuses, counterexamples never shorter.
    for want, got in zip(expected, judge_all(reduced.graph), strict=True):
        assert got.status is want.status
        assert len(got.actions) >= len(want.actions)
    # Every quiescent state (where L4 is judged), at its breadth-first depth.
    assert _quiescent(reduced.graph) == _quiescent(plain)


def _quiescent(graph: Graph) -> dict[State, int]:
    return {state: depth for state, depth in zip(graph.states, graph.depth, strict=True)
            if is_quiescent(graph.config, state)}


def test_the_reduction_prunes() -> None:
    """A reduction that never reduces would pass every comparison: it must cut states."""
    config = _small(V2, ("D1", "D7"))
    assert len(build_reduced(config).states) < 0.8 * len(build(config).states)


def test_the_breadth_first_cycle_proviso_also_keeps_the_verdicts() -> None:
    config = _small(V1, ("D7", "D10"))
    reduced = build(config, GraphOptions(expand=Reducer(config).ample))
    for want, got in zip(judge_all(build(config)), judge_all(reduced), strict=True):
        assert got.status is want.status


def _graph_states(config: Config, limit: int = 1500) -> list[State]:
    return build(config, GraphOptions(reduce=False, max_states=limit)).states


def _cleared(state: State) -> State:
    return replace(state, last_delivery=None)


@pytest.mark.parametrize(("variant", "env"), [
    (V2, ("D1", "D7")), (V1, ("D2", "D3")), (V3, ("D4", "D6")), (V2, ("D5",)),
    (V1, ("D7", "D10")), (V0, ("D1",)),
], ids=_name)
def test_steps_whose_footprints_do_not_conflict_commute(variant: Variant,
                                                        env: tuple[str, ...]) -> None:
    """For every pair of enabled steps whose footprints do not conflict: neither disables
    the other and both orders reach the same state (up to the last delivery, the label of
    the step that set it)."""
    config = _small(variant, env)
    checked = 0
    for state in _graph_states(config):
        actions = enabled(config, state)
        for i, a in enumerate(actions):
            for b in actions[i + 1:]:
                if conflict(footprint(config, state, a), footprint(config, state, b)):
                    continue
                after_a, after_b = step(config, state, a), step(config, state, b)
                assert is_enabled(config, after_a, b) and is_enabled(config, after_b, a)
                assert _cleared(step(config, after_a, b)) == _cleared(step(config, after_b, a))
                checked += 1
    assert checked > 0


@pytest.mark.parametrize(("variant", "env"), [
    (V2, ("D1", "D7")), (V1, ("D2", "D3")), (V3, ("D4", "D6")), (V2, ("D5",)),
], ids=_name)
def test_disabled_steps_are_enabled_only_by_their_necessary_enabling_sets(
        variant: Variant, env: tuple[str, ...]) -> None:
    config = _small(variant, env)
    actions = universe(config)
    for state in _graph_states(config, 600):
        on = enabled(config, state)
        for action in actions:
            if action in on or state.fault is not None:
                continue
            needed = set(necessary_enabling(config, state, action))
            for other in on:
                if is_enabled(config, step(config, state, other), action):
                    assert needed.intersection(groups(other)), (action, other)


def test_every_enabled_step_is_in_the_universe() -> None:
    for variant, env in CASES:
        config = _small(variant, env)
        known = set(universe(config))
        for state in _graph_states(config, 400):
            assert set(enabled(config, state)) <= known


@pytest.mark.parametrize(("variant", "env"), CASES, ids=_name)
def test_messages_and_replies_belong_to_requests_in_flight(variant: Variant,
                                                           env: tuple[str, ...]) -> None:
    """What leaves P1's receive out of the footprints of steps on requests: a message or a
    reply in flight belongs to an in-flight request, and a request has at most one."""
    config = _small(variant, env)
    for state in _graph_states(config):
        pending = [m.rid for m in state.to_engine] + [r.rid for r in state.to_front_end]
        assert len(pending) == len(set(pending))
        assert all(state.requests[rid].stage is Stage.IN_FLIGHT for rid in pending)


@pytest.mark.parametrize(("variant", "env"), [*CASES, (V1, ("D8",))],
                         ids=_name)
def test_every_step_but_the_clears_makes_progress(variant: Variant,
                                                  env: tuple[str, ...]) -> None:
    """The cycle proviso's premise, on the unreduced graph (also what makes L4's fair
    cycles reduce to its stuck states: `docs/explore.md`)."""
    check_progress(build(_small(variant, env)))


def test_a_step_that_makes_no_progress_breaks_the_proviso() -> None:
    config = _small(V2, ("D10",))
    built = build(config, GraphOptions(max_states=50))
    edges = [list(out) for out in built.edges]
    edges[0].append((P1Receive(0), 0))  # a made-up edge back to the initial state
    graph = given_graph(config, list(built.states), list(built.depth), list(built.parent),
                     list(built.via), edges)
    check_progress(given_graph(config, list(built.states), list(built.depth), list(built.parent),
                            list(built.via), [list(out) for out in built.edges]))
    with pytest.raises(ProgressBroken):
        check_progress(graph)


def test_declaring_two_dependent_steps_independent_is_caught() -> None:
    """The mutant of the independence relation: P0's handling declared independent of the
    synchronised clear (both write the shadow; the handling's message disables the clear).
    The reduction then handles a request before P1 drains its queue and the clear runs, and
    the comparison with the unreduced search fails: quiescent states are lost."""
    config = _small(V2, ("D1", "D7"))
    wrong = Reducer(config, frozenset({(P0Handle, ClearBoth)}))
    lost = _quiescent(build(config)).keys() - _quiescent(build_reduced(config, reducer=wrong))
    assert lost
    assert not _quiescent(build(config)).keys() - _quiescent(build_reduced(config)).keys()


def test_a_footprint_is_required_for_every_action_class() -> None:
    class Unknown(Action):
        pass

    config = _small(V2, ())
    with pytest.raises(KeyError, match="Unknown has no entry in RULES: add its instances, "
                       "footprint"):
        footprint(config, build(config, GraphOptions(max_states=1)).states[0], Unknown())
