"""Identity symmetry (`model_checks.explore.lru_reductions.symmetry`) is sound: on small instances
the graph reduced by it and the one without it give the same verdict for every property and lemma,
the same diameter and the same shortest counterexample lengths, with no more states; every
counterexample found on the reduced graph replays on the unreduced spec (the judge replays each
one); and grouping identities the configuration tells apart makes the check fail."""

from __future__ import annotations

import dataclasses
import itertools
import typing

import pytest

from model_checks.explore import search_core
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lattice_instance import Rung, lattice_config
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.explore.lru_reductions.canonical import canonical
from model_checks.explore.lru_reductions.symmetry import (
    canonical_identities,
    concrete_actions,
    interchangeable,
    rename_action,
    rename_state,
)
from spec import V0, V1, V2, V3, ClientItem, Config, enabled, run, step, variant_named
from spec.transitions import ACTION_TYPES, Submit

PER_CELL = [
    (V2, ("D3", "D10")), (V1, ("D1",)), (V3, ("D3",)), (V1, ("D8",)), (V0, ("D3", "D5")),
    (V2, ("D6",)), (V0, ("D2",)),
]
LATTICE = [(V1, ("D6", "D9")), (V0, ("D7", "D10"))]
SLOW_LATTICE = [(V2, ("D3", "D6")), (V3, ("D8",))]  # 40 s together on a loaded machine
DUPLICATES = [(V3, ()), (V1, ("D9",))]


def _cases() -> list[typing.Any]:
    cases: list[typing.Any] = [
        pytest.param(explore_config(v, env, max_requests=2, max_items=2),
                     id=f"{v.name}_{'+'.join(env)}")
        for v, env in PER_CELL
    ]
    cases += [pytest.param(lattice_config(v, env, Rung()),
                           id=f"lattice_{v.name}_{'+'.join(env)}") for v, env in LATTICE]
    cases += [pytest.param(lattice_config(v, env, Rung()), marks=pytest.mark.slow,
                           id=f"lattice_{v.name}_{'+'.join(env)}") for v, env in SLOW_LATTICE]
    # requests that name one identity twice: the renaming maps both items alike
    cases += [pytest.param(lattice_config(v, env, Rung(duplicates=True)),
                           id=f"duplicates_{v.name}_{'+'.join(env) or 'none'}")
              for v, env in DUPLICATES]
    return cases


@pytest.mark.parametrize("config", _cases())
def test_reduced_and_unreduced_agree(config: Config) -> None:
    reduced, plain = build(config), build(config, GraphOptions(symmetry=False))
    assert reduced.symmetric and not plain.symmetric
    assert reduced.complete and plain.complete
    assert len(reduced.states) < len(plain.states)
    assert reduced.diameter == plain.diameter
    for a, b in zip(judge_all(reduced), judge_all(plain), strict=True):
        assert (a.property_id, a.status, len(a.actions)) == (b.property_id, b.status,
                                                             len(b.actions))
        if a.status is Status.COUNTEREXAMPLE:  # replayed on the unreduced spec by the judge
            assert a.trace is not None and len(a.trace.steps) == len(a.actions)


def test_every_reduced_path_replays_on_the_unreduced_spec() -> None:
    """path_to maps each shortest path back through the renamings: replayed on the spec it
    reaches a state whose representative is the graph's state."""
    config = explore_config(V1, ("D8",), max_requests=2)
    graph = build(config)
    groups = interchangeable(config)
    for index in range(0, len(graph.states), 97):
        trace = run(config, graph.path_to(index))
        assert len(trace.steps) == graph.depth[index]
        real = trace.final
        assert canonical_identities(canonical(real), groups)[0] == graph.states[index]


def test_the_representative_is_the_same_for_every_permutation() -> None:
    config = explore_config(V2, ("D8",), max_requests=2)
    groups = interchangeable(config)
    assert groups == (("a", "b", "c"),)
    graph = build(config, GraphOptions(reduce=False, max_states=6000))
    for state in graph.states[::60]:
        rep, _ = canonical_identities(state, groups)
        for order in itertools.permutations(groups[0]):
            names = dict(zip(groups[0], order, strict=True))
            assert canonical_identities(rename_state(state, names), groups)[0] == rep
            actions = enabled(config, state)
            moved = rename_state(state, names)
            assert {rename_action(a, names) for a in actions} == set(enabled(config, moved))
            for action in actions[:3]:
                assert rename_state(step(config, state, action), names) == step(
                    config, moved, rename_action(action, names))


def test_identities_the_configuration_tells_apart_are_not_grouped() -> None:
    skewed = lattice_config(V1, ("D9", "D11"), Rung())
    assert interchangeable(skewed) == (("a", "b"),)
    assert interchangeable(explore_config(V1, ("D9",))) == ()  # b is skewed
    assert interchangeable(explore_config(V1, ("D11",))) == (("a", "b"),)  # c oversized


def test_grouping_a_skewed_identity_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: treating D9's skewed identity as interchangeable with a and b
    merges states that differ, and the reduced search then misses H1's counterexample."""
    config = lattice_config(V1, ("D9",), Rung())
    plain = {j.property_id: j.status for j in judge_all(build(config,
                                                              GraphOptions(symmetry=False)))}
    monkeypatch.setattr(search_core, "interchangeable", lambda c: (c.identities,))
    wrong = {j.property_id: j.status for j in judge_all(build(config))}
    assert plain["H1"] is Status.COUNTEREXAMPLE
    assert wrong["H1"] is not Status.COUNTEREXAMPLE


def test_only_submit_names_identities() -> None:
    """rename_action renames Submit's items only: no other action class has a field that
    could hold an identity (a str or a client item)."""
    for action_type in ACTION_TYPES:
        hints = typing.get_type_hints(action_type)
        for field in dataclasses.fields(action_type):
            text = str(hints[field.name])
            if action_type is not Submit:
                assert "str" not in text and "ClientItem" not in text, (action_type, field)


def test_concrete_actions_compose_renamings() -> None:
    """Two renamings in a row: the third action is renamed back through both."""
    a, b, c = (Submit((ClientItem(x),)) for x in "abc")
    steps = [(a, (("a", "b"), ("b", "a"))), (a, (("a", "c"), ("c", "a"))), (a, None)]
    assert concrete_actions(steps) == [a, b, c]


@pytest.mark.parametrize("variant", ["V0", "V3"])
def test_the_fast_step_is_spec_step(variant: str) -> None:
    """The inner loop's `action.apply(config, cleared)` equals `spec.step` on every enabled
    action (cleared: the state with its last delivery dropped, once per state)."""
    config = explore_config(variant_named(variant), ("D1", "D7"), max_requests=2)
    graph = build(config, GraphOptions(reduce=False, max_states=1500))
    for state in graph.states:
        cleared = dataclasses.replace(state, last_delivery=None)
        for action in enabled(config, state):
            assert action.apply(config, cleared) == step(config, state, action)
