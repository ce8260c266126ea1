"""The search core every search shares: its successor function is `spec.step` followed by
both reductions, its tables intern in order of first use, and its writer writes the rows
and edges a search reads back."""

from __future__ import annotations

import pytest

from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_reductions.canonical import canonical
from model_checks.explore.lru_reductions.symmetry import canonical_identities, interchangeable
from model_checks.explore.moves import GraphWriter, Interned
from model_checks.explore.search_core import Reductions
from spec import V1, enabled, step


def test_the_successors_are_the_step_then_both_reductions() -> None:
    config = explore_config(V1, ("D6",), max_requests=2)
    groups = interchangeable(config)
    assert groups, "the instance has interchangeable identities: both reductions apply"
    reductions = Reductions.of(config, True, None)
    graph = build(config, GraphOptions(max_states=300))
    for state in graph.states:
        expected = [(action, *canonical_identities(canonical(step(config, state, action)),
                                                   groups))
                    for action in enabled(config, state)]
        assert reductions.expand(state) == expected


@pytest.mark.parametrize(("forget", "slots"), [(False, False), (True, False), (True, True)])
def test_the_successors_handed_to_the_product_are_the_search_s(forget: bool, slots: bool
                                                               ) -> None:
    """`successors_and_reals` (what a search hands the monitors' product) gives the same
    successors and renamings as `successors`, under every key: a copy that drifted (the
    identity renaming not read off the key under forgetting) would number other states."""
    config = explore_config(V1, ("D6",), max_requests=2)
    reductions = Reductions.of(config, True, None, forget, slots)
    assert reductions.groups, "the instance has interchangeable identities"
    graph = build(config, GraphOptions(max_states=300))
    for state in graph.states:
        actions = enabled(config, state)
        found, reals = reductions.successors_and_reals(state, actions)
        assert found == reductions.successors(state, actions)
        assert reals == [reductions.renamed_step(state, action) for action in actions]


def test_without_reductions_the_successors_are_the_steps() -> None:
    config = explore_config(V1, ("D6",), max_requests=2)
    reductions = Reductions.of(config, False, None)
    assert reductions.groups == ()
    state = reductions.start()
    assert reductions.expand(state) == [(action, step(config, state, action), None)
                                        for action in enabled(config, state)]


def test_an_interned_table_codes_values_in_order_of_first_use() -> None:
    shared: list[str | None] = [None]
    table = Interned(shared)
    assert [table.code(v) for v in ("b", None, "a", "b")] == [1, 0, 2, 1]
    assert shared == [None, "b", "a"]
    assert table.codes == {None: 0, "b": 1, "a": 2}


def test_the_writer_writes_what_the_graph_reads() -> None:
    config = explore_config(V1, ("D6",), max_requests=2)
    reductions = Reductions.of(config, True, False)
    writer = GraphWriter(Graph.empty(reductions, max_states=10))
    start = reductions.start()
    (action, successor, _), *_ = reductions.expand(start)
    code = writer.actions.code(action)
    writer.add_state(hash(start), 0, -1, -1, 0)
    assert writer.add_state(hash(successor), 1, 0, code, 0) == 1
    writer.add_edge(1, code, 0)
    writer.end_edges()
    graph = writer.finish(1, True, [start, successor])
    assert graph.out_edges(0) == [(action, 1)] and graph.path_to(1) == [action]
    assert graph.steps_taken == 1 and graph.complete and graph.edge_renaming.tolist() == []
