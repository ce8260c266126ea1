"""A made-up state graph for tests: states, depths, parents and edges given whole."""

from __future__ import annotations

from model_checks.explore.graph import Graph
from model_checks.explore.moves import GraphWriter
from spec import Action, Config, State


def given_graph(config: Config, states: list[State], depth: list[int], parent: list[int],
                via: list[Action | None], edges: list[list[tuple[Action, int]]]) -> Graph:
    """The graph with exactly these states and edges: its states are held, never
    regenerated, and have no identity renamings."""
    graph = Graph(config, True)
    writer = GraphWriter(graph)
    for number, state in enumerate(states):
        action = via[number]
        writer.add_state(hash(state), depth[number], parent[number],
                         -1 if action is None else writer.actions.code(action), 0)
        for edge_action, target in edges[number]:
            writer.add_edge(target, writer.actions.code(edge_action), 0)
        writer.end_edges()
    graph._held = list(states)
    return graph
