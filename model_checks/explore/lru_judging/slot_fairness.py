"""L4's fair cycles ruled out on the keys with request slots renumbered, where that is sound.

On a graph whose key renumbers the live requests' slots (`Graph.slots`, `slots.py`), the
judge looks for L4's fair cycles on the keys with ended requests forgotten only (the second
search, `judge._eventual_completion`), since fairness compares owed steps by their labels,
which name rids. This module settles L4 from the slots graph alone where an argument from it
is sound, so that the second search runs only where one is not: it says whether every
*candidate* (a drift-free strongly connected component with a cycle and an unfinished
request, `liveness.candidates`) is *ruled out*: no fair component of the second search's
graph lies in it. When every candidate is, that search would find no fair cycle and L4 holds
(stuck states were judged on the slots graph already, which the second search would only
meet again), whether or not that search would fit in the state limit.

Why a component of the second search lies in one candidate. Write G_f for the graph on the
forgetting keys (rids are concrete names there: the unfinished requests keep theirs) and G_s
for the slots graph. Every state x of G_f has a slots key, whose stored state pi(x) of G_s is
x related by an isomorphism: a bijection of the live rids, an identity renaming (only
`Submit` names an identity, and it is never owed, so no owed label changes under it) and the
forgetting of what neither key keeps. Related states enable the related actions, and their
successors are related again (`slots.py`, `forgetting.py`). So an edge x -b-> y of G_f is the
edge of G_s from pi(x) labelled b's image, leading to pi(y), with a rid map (`slots.slot_map`)
that carries the isomorphism across: r's slot in pi(x), mapped, is r's slot in pi(y) under
an isomorphism of y again. A drift-free component D of G_f with a cycle and an unfinished
request thus maps into one candidate C of G_s. Inside D no request is submitted (`Submit`
grows the request count, which a cycle keeps) and none ends (ending is for good), so D's
live rids are the same set in all of its states, and so are C's live slots in number.

What a component owes. G_f judges D fair when every label owed (`is_obligation`) in all of
D's states is the label of one of its edges (`liveness._fair`). A candidate C is ruled out
when, whatever D lies in it, some label D owes everywhere is taken nowhere inside D, by
either of two rules.

1. A label naming no request (e.g. `P0ReceiveReply()`) owed in every state of C and carried
   by none of C's drift-free edges: every isomorphism keeps such a label, so D's states all
   owe it, and an edge of D taking it would be an edge of C carrying it.
2. Labels naming a request, followed through the rid maps. The *tracking graph* of C has a
   node (s, P) per state s of C and *placing* P of its live requests (an order of s's live
   slots: request i at slot P[i]), and per drift-free edge s -a-> t inside C with rid map m
   an edge (s, P) -> (t, m(P)) (m the identity where it moves nothing). Number D's live
   requests r_1..r_k and follow them along a closed walk through all of D's edges: their
   slots form a walk of the tracking graph that returns to its first placing, possibly
   moved by an automorphism of the stored state; repeated as often as that automorphism's
   order, the walk closes, so it lies in one strongly connected component K of the tracking
   graph, and every state of D appears on it as some (s, P) of K with r_i at slot P[i]. A
   *shape* is a label with its rid left open; at (s, P) it is read at request i's slot P[i]
   (the labels naming no request, or naming P[i]). If for some i a shape is owed at P[i] at
   every node of K and no edge inside K from a node (s, P) carries it at P[i], then D owes
   that shape at r_i in all its states (by the isomorphisms) and takes it nowhere: an edge
   of D taking it would be an edge of K carrying it. So C is ruled out when every component
   of its tracking graph with a cycle is unfair so. (Without live requests only labels naming
   no request count: rule 1 on the components of C's own graph.)

Where the rules apply. The graph must hold every enabled edge (`Graph.partial` 0: a pruned
edge could be the one taking an owed step) and be complete. A faulted state keeps its rids
(its key is the forgetting key); the tracking graph reads its live slots as `slots` does.

`tests/explore/test_explore_slot_fairness.py` compares L4's judgement with and without these
rules (the second search forced) on the slots tests' instances, every spec mutant's witness
instance and, under planted fairness (some owed steps left unowed), instances where L4 breaks
by a lasso, and plants an unsound rule (a candidate with a step naming a request dropped,
whether or not a tracked request owes it and never takes it) that the comparison catches.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, cast

from model_checks.explore.graph import Graph
from model_checks.explore.lru_judging.liveness import (
    candidates,
    is_drift,
    is_owed,
    strongly_connected,
)
from model_checks.explore.lru_reductions.slots import rename_action, slot_map, slot_order
from model_checks.explore.lru_reductions.symmetry import rename_state
from spec import Action

if TYPE_CHECKING:
    from model_checks.explore.search_core import Reductions

OPEN_RID = -1
"""The rid a shape names in place of the request's (no real rid is negative)."""

Members = set[int]


def every_candidate_ruled_out(graph: Graph) -> bool:
    """True when no fair component of the graph on the forgetting keys can lie in any of this
    complete slots graph's candidates (module docstring): L4's fair cycles are then settled.
    Without any candidate that holds on any graph (a fair cycle's keys would form one)."""
    found = list(candidates(graph))
    if not found:
        return True
    if graph.partial or not graph.complete or not graph.slots:
        return False
    labels = _Labels(graph)
    return all(labels.owes_untaken(members) or _tracking_unfair(graph, labels, members)
               for members in found)


class _Labels:
    """Per action code of the graph: whether it is owed, drift, the rid it names (None: none)
    and its shape's code (the action with that rid left open: `OPEN_RID`)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.owed = graph.action_flags(is_owed)
        self.drift = graph.action_flags(is_drift)
        self.rid: list[int | None] = [_named_rid(action) for action in graph.actions]
        shapes: dict[Action, int] = {}
        self.shape = [shapes.setdefault(_shape(action), len(shapes))
                      for action in graph.actions]

    def owes_untaken(self, members: Members) -> bool:
        """Rule 1: a label naming no request, owed in every state of `members` and carried by
        none of their drift-free edges inside them."""
        graph, codes, targets = self.graph, self.graph.edge_action, self.graph.edge_target
        everywhere: set[int] | None = None
        taken: set[int] = set()
        for node in members:
            edges = graph.edge_range(node)
            owed = {codes[k] for k in edges if self.owed[codes[k]] and self.rid[codes[k]] is None}
            everywhere = owed if everywhere is None else everywhere & owed
            taken |= {codes[k] for k in edges
                      if targets[k] in members and not self.drift[codes[k]]}
        return bool(everywhere and everywhere - taken)

    def at_slot(self, code: int, slot: int | None) -> int | None:
        """The shape of action `code` read at live slot `slot` (None: no live request): its
        shape where it names no request or that one, else None (it concerns another)."""
        rid = self.rid[code]
        return self.shape[code] if rid is None or rid == slot else None


def _named_rid(action: Action) -> int | None:
    rid = getattr(action, "rid", None)  # as `slots.rename_action` reads it
    return rid if isinstance(rid, int) else None


def _shape(action: Action) -> Action:
    rid = _named_rid(action)
    return action if rid is None else rename_action(action, {rid: OPEN_RID})


Placing = tuple[int | None, ...]
"""Where a fair cycle's live requests sit in a stored state: request i at slot
`placing[i]` (`(None,)` where there is no live request: only labels naming none count)."""
TrackingNode = tuple[int, Placing]
"""A state of the candidate and a placing of its live requests."""
Moves = list[list[tuple[int, int]]]
"""Per tracking node, its edges inside the candidate: the target node and the action code."""


def _tracking_unfair(graph: Graph, labels: _Labels, members: Members) -> bool:
    """Rule 2: every component of the candidate's tracking graph with a cycle has a request
    i and a shape owed at i's slot at every node, which none of its edges takes there."""
    nodes, moves = _tracking_graph(graph, labels, members)
    successors = [[target for target, _ in out] for out in moves]
    for component in strongly_connected(successors):
        if len(component) == 1 and component[0] not in successors[component[0]]:
            continue  # no cycle
        if not _owes_untaken_at_a_slot(graph, labels, nodes, moves, component):
            return False  # a fair cycle's requests might be tracked here
    return True


def _owes_untaken_at_a_slot(graph: Graph, labels: _Labels, nodes: list[TrackingNode],
                            moves: Moves, component: list[int]) -> bool:
    """Some request i of the component's placings, and a shape owed at i's slot at every
    node of the component that none of its edges inside it takes at i's slot."""
    codes, inside = graph.edge_action, set(component)
    for i in range(len(nodes[component[0]][1])):
        everywhere: set[int] | None = None
        for n in component:
            state, placing = nodes[n]
            owed = {shape for k in graph.edge_range(state) if labels.owed[codes[k]]
                    and (shape := labels.at_slot(codes[k], placing[i])) is not None}
            everywhere = owed if everywhere is None else everywhere & owed
            if not everywhere:
                break
        if not everywhere:
            continue
        taken = {shape for n in component for target, code in moves[n]
                 if target in inside and (shape := labels.at_slot(code, nodes[n][1][i]))
                 is not None}
        if everywhere - taken:
            return True
    return False


def _tracking_graph(graph: Graph, labels: _Labels, members: Members
                    ) -> tuple[list[TrackingNode], Moves]:
    """The tracking graph: a node per state of the candidate and placing of its live
    requests (every order of its live slots), an edge per drift-free edge inside the
    candidate, moving each request along the edge's rid map."""
    config, states = graph.config, graph.states
    nodes: list[TrackingNode] = []
    number: dict[TrackingNode, int] = {}
    placings: dict[int, list[Placing]] = {}
    for state in sorted(members):
        live = slot_order(config, states[state])
        placings[state] = list(itertools.permutations(live)) if live else [(None,)]
        for placing in placings[state]:
            number[(state, placing)] = len(nodes)
            nodes.append((state, placing))
    moves: Moves = [[] for _ in nodes]
    for state in sorted(members):
        edges = _rid_maps(graph, labels, members, state)
        for placing in placings[state]:
            out = moves[number[(state, placing)]]
            for code, target, moved in edges:
                image = tuple(None if p is None else moved.get(p) for p in placing)
                goal = number.get((target, image))
                if goal is not None:
                    out.append((goal, code))
    return nodes, moves


def _rid_maps(graph: Graph, labels: _Labels, members: Members, state: int
              ) -> list[tuple[int, int, dict[int, int]]]:
    """Each drift-free edge of `state` inside `members`: its action code, its target and its
    rid map over the live slots (`slots.slot_map` from the real successor in the target's
    identities onto the stored target, as the monitors' product computes it)."""
    reductions = cast("Reductions", graph.reductions())  # slots are the LRU design's
    config, states = graph.config, graph.states
    codes, targets = graph.edge_action, graph.edge_target
    before, edges, out = states[state], graph.edge_range(state), []
    live = slot_order(config, before)
    for position, k in enumerate(edges):
        code, target = codes[k], targets[k]
        if target not in members or labels.drift[code]:
            continue
        real = reductions.renamed_step(before, graph.actions[code])
        renaming = graph.renaming(state, position)
        named = real if renaming is None else rename_state(real, dict(renaming))
        pairs = slot_map(config, named, states[target])
        out.append((code, target, {p: p for p in live} if pairs is None else dict(pairs)))
    return out

