"""The lean graph (fingerprints, flat arrays, states rebuilt along stored paths) gives the
results the explorer gave when it kept every state: recorded figures and verdicts, the same
states and edges whether the states are held or rebuilt, and a rebuilt state that differs
from the one the search stored is a loud error."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.explore.defects import RegenerationDiverged
from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import Judgement, Status, judge_all
from model_checks.kernel.instance import REUSED
from spec import Config, variant_named

# Recorded with the explorer that kept whole states in a dict and edges as lists of tuples
# (2 requests): states, steps, diameter, and per property "P" proved, "V" vacuous, "Cn" a
# counterexample of n steps (registry order, then the lemmas I1-I7, all proved here).
RECORDED = {
    "V2_D3": (472, 1871, 14, "V P P V C7 P P P P"),
    "V3_D7": (691, 1455, 9, "P P P C6 P V V V P"),
    "V1_D6": (2362, 5302, 17, "V P P V C6 P P P P"),
    "V2_D7_D10": (1883, 7467, 14, "P P P C6 C7 P P P P"),
    # re-recorded when the spec let a front end undo its update on a rejection (D2)
    "V0_D2_D4": (1096, 3151, 11, "V P C5 V C5 V V V C5"),
    "V3_D1_D5": (859, 1827, 13, "V P P V C5 P P P P"),
    "V2_D9_D11": (656, 1420, 9, "V P P V P V V V P"),
}


def _config(label: str) -> Config:
    """The cell's explorer instance as the figures were recorded: without D7's larger second
    content (`instance.REUSED`), which came later and breaks the identities' symmetry."""
    variant, *env = label.split("_")
    config = explore_config(variant_named(variant), tuple(env), max_requests=2)
    return replace(config, sizes=tuple(s for s in config.sizes if s != REUSED))


def _summary(judgements: list[Judgement]) -> str:
    def one(j: Judgement) -> str:
        if j.status is Status.COUNTEREXAMPLE:
            return f"C{len(j.actions)}"
        return {Status.PROVED: "P", Status.VACUOUS: "V"}.get(j.status, "?")

    return " ".join(one(j) for j in judgements)


@pytest.mark.parametrize("label", sorted(RECORDED))
def test_figures_and_verdicts_are_the_recorded_ones_held_or_lean(label: str) -> None:
    states, steps, diameter, verdicts = RECORDED[label]
    config = _config(label)
    for keep in (True, False):
        graph = build(config, GraphOptions(keep_states=keep))
        assert (len(graph.states), graph.steps_taken, graph.diameter) == (
            states, steps, diameter)
        assert _summary(judge_all(graph)) == verdicts + " P P P P P P P"


@pytest.mark.parametrize("label", ["V2_D7_D10", "V3_D1_D5"])
def test_rebuilt_states_and_edges_equal_the_held_ones(label: str) -> None:
    """Identity symmetry (D7+D10: two interchangeable identities) and a router (D5)."""
    held = build(_config(label))
    lean = build(_config(label), GraphOptions(keep_states=False))
    assert list(lean.states) == list(held.states)
    assert [lean.states[i] for i in range(len(held.states) - 1, -1, -37)] == [
        held.states[i] for i in range(len(held.states) - 1, -1, -37)]
    assert lean.states[::50] == held.states[::50]
    assert list(lean.edges) == list(held.edges)
    for index in range(0, len(held.states), 11):
        assert lean.path_to(index) == held.path_to(index)
        for position in range(len(held.edges[index])):
            assert lean.renaming(index, position) == held.renaming(index, position)
            assert lean.real_successor(index, position) == held.real_successor(index, position)
    held.release_states()
    assert list(held.states) == list(lean.states)


def test_the_lean_search_keeps_no_state_behind_its_frontier() -> None:
    graph = build(_config("V2_D7_D10"), GraphOptions(keep_states=False))
    assert graph._held is None and not graph._cache


def test_a_state_rebuilt_with_another_fingerprint_is_an_error() -> None:
    """Known-bad: a stored fingerprint that does not match what the path rebuilds (as if the
    spec or a reduction were not deterministic) stops the reader."""
    graph = build(_config("V2_D3"), GraphOptions(keep_states=False))
    graph.fingerprints[100] ^= 1
    with pytest.raises(RegenerationDiverged, match="state 100"):
        list(graph.states)
    with pytest.raises(RegenerationDiverged, match="state 100"):
        Graph.state(graph, 100)


def test_a_cut_search_keeps_the_edges_it_found() -> None:
    """On the state limit, the state being expanded keeps the edges found so far, as when
    the explorer kept edge lists; every later state has none."""
    graph = build(_config("V1_D6"), GraphOptions(max_states=300))
    assert not graph.complete and len(graph.states) == 300
    expanded = len(graph.edge_start) - 1
    assert all(graph.edges[i] == [] for i in range(expanded, 300))
    assert sum(len(graph.edges[i]) for i in range(300)) == graph.steps_taken - 1
