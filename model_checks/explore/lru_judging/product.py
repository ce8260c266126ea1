"""Every liveness monitor in one breadth-first search of the product of the graph with all
of them at once, each edge observed once (`monitors.Step`).

A node is a state and one memory per monitor; once a monitor has found its violation, its
memory becomes `DONE` on every step from then on (it is no longer advanced). A quiet step
(`Step.quiet`: nothing any monitor reads happened) keeps every memory without asking the
monitors, as every monitor would (`tests/explore/test_explore_product.py` checks that).

The search gives each monitor exactly what a search of the product with that monitor alone
gives: project the joint
search onto one monitor's (state, memory) pairs and keep first occurrences, and that is the
lone search's breadth-first order, with the same parent links. (By induction on the queue:
a node whose projection was met before moves that projection along the same edges to the
same successors, so it meets nothing new for that monitor; the first node of a projection is
expanded in the lone search's order, its edges in `enabled`'s order.) Hence the same first
violation, the same path to it, the same premise met and the same number of product states
(`tests/explore/test_explore_product.py` compares both on every cell of a small matrix, and
plants a monitor that flags everything).

Across an edge with an identity renaming, each monitor reads the real successor (the
representative with the renaming undone) and its memory is then renamed onto the
representative, as in the lone search. Across an edge of a graph whose key renumbers request
slots (`Graph.slots`), each monitor reads the real successor and its memory is then renamed
onto the stored target's rids (`slots.slot_map`, `Monitor.rename_rids`); the path keeps each
step's rid map (`Verdict.slot_maps`).

What each edge's crossing needs (its observed step, identity renaming and rid map: `_Crossing`)
comes, on the fly (`early_stop`), from the search itself: as it expands a state it hands its
successors, each computed once, to `expanded`, and the product runs on at once, so each
edge's spec step is computed once per search. A state's crossings are remembered for the
`REMEMBERED_STATES` states expanded last; a state reached again with other memories after
that, or a graph searched before its product (`search_product`), has them recomputed from the
state and the action (`_slot_edges`, on a graph with request slots renumbered) or read off the
stored target (`Graph.real_successor`).

An edge's rid map is computed only where something reads it (`_Crossing.rid_map`): where a
memory after the step names a request (a memory that the empty map keeps, as every
monitor's start memory is kept, names none: renaming it keeps it), and along a violation's
path, whose maps are recomputed from its states when the violation is met (`_path`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from model_checks.explore.lru_judging.monitors import Memory, Monitor, Step, observe
from model_checks.explore.lru_reductions.slots import SlotMap, slot_map
from model_checks.explore.lru_reductions.symmetry import Renaming, rename_state
from spec import Action, Config, State

if TYPE_CHECKING:  # graph.py and search_core.py reach this module (early_stop)
    from model_checks.explore.graph import Graph
    from model_checks.explore.search_core import Reductions

DONE = "violated"
"""The memory of a monitor that has found its violation (no monitor's memory is a str)."""

Node = tuple[int, tuple[Memory, ...]]
Link = tuple[Node, Action, "Renaming | None", int]
"""A product edge: the node it leaves, its action and identity renaming, and its position
among the edges of the node's state (its rid map is recomputed from it: `_path`)."""


class _Crossing:
    """An edge as the monitors cross it: the observed step, the identity renaming, and on a
    graph with request slots renumbered its rid map (`slots.slot_map` from the successor in
    the stored state's identities onto the stored target), computed at the first read."""

    def __init__(self, step: Step, renaming: Renaming | None, named: State | None,
                 stored: State | None) -> None:
        self.step, self.renaming = step, renaming
        self.named, self.stored = named, stored
        self.known = named is None or stored is named  # the target is that very state
        self.map: SlotMap | None = None

    def rid_map(self, config: Config) -> SlotMap | None:
        """The edge's rid map (None: it moves no rid)."""
        if not self.known:
            assert self.named is not None and self.stored is not None
            self.map = slot_map(config, self.named, self.stored)
            self.known, self.named, self.stored = True, None, None
        return self.map


REMEMBERED_STATES = 1 << 14
"""How many states' crossed edges the product remembers (the oldest forgotten first)."""


@dataclass(frozen=True)
class Verdict:
    """One monitor's outcome: its shortest violation (the (action, renaming) steps of the
    product path, and the reason) or none, whether a step met its premise, and the number of
    product states (its own (state, memory) pairs) the search reached; with request slots
    renumbered (`Graph.slots`), per step of the violation its rid map (`slots.concrete_rids`
    undoes them; empty otherwise)."""

    steps: tuple[tuple[Action, Renaming | None], ...] | None
    reason: str
    premise_met: bool
    product_states: int
    slot_maps: tuple[SlotMap | None, ...] = ()


def search_product(graph: Graph, monitors: Sequence[Monitor]) -> list[Verdict]:
    """Each monitor's verdict, in `monitors`' order, from one search of the joint product."""
    search = _Joint(graph, monitors)
    search.run()
    return search.verdicts()


class _Joint:
    """The joint product search: the queue, the parent links, per monitor its premise and
    its violation."""

    def __init__(self, graph: Graph, monitors: Sequence[Monitor]) -> None:
        self.graph, self.monitors = graph, tuple(monitors)
        start: Node = (0, tuple(m.start for m in self.monitors))
        self.came: dict[Node, Link | None] = {start: None}
        self.queue = deque([start])
        self.premise = [False] * len(self.monitors)
        self.found: list[tuple[list[tuple[Action, Renaming | None, SlotMap | None]], str]
                         | None] = [None] * len(self.monitors)
        self.live = len(self.monitors)
        self._crossed: dict[int, list[_Crossing]] = {}
        self._remembered: deque[int] = deque()  # the keys of `_crossed`, oldest first
        self._unnamed = tuple(m.start if m.rename_rids(m.start, {}) == m.start else object()
                              for m in self.monitors)
        """Per monitor, a memory that names no request (its start, where dropping every rid
        keeps it), which every rid map keeps: a successor whose memories are all such (or
        `DONE`) needs no rid map."""

    def run(self, expanded_only: bool = False) -> None:
        """Expand nodes breadth-first until the queue is empty or every monitor has found
        its violation; with `expanded_only`, pause (the queue kept, to run again) at the
        first node whose state the graph's search has not expanded yet (`early_stop`: the
        product run on the fly, in the order of the product of the whole graph)."""
        graph, came, queue = self.graph, self.came, self.queue
        actions, codes, targets = graph.actions, graph.edge_action, graph.edge_target
        states, symmetric, slots = graph.states, graph.symmetric, graph.slots
        expanded = len(graph.edge_start) - 1 if expanded_only else graph.size
        while queue and self.live:
            if queue[0][0] >= expanded:
                return
            node = queue.popleft()
            index, memories = node
            before = states[index]
            edges = graph.edge_range(index)
            crossed = self._crossed.get(index)
            if crossed is None and slots:
                crossed = self._slot_edges(index, before)
            for k in edges:
                action, target, renaming = actions[codes[k]], targets[k], None
                position = k - edges.start
                if crossed is not None:
                    crossing = crossed[position]
                    step, renaming = crossing.step, crossing.renaming
                    after = memories if step.quiet else self._moved(node, step, action)
                    if slots and not self._names_no_request(after):
                        moved = crossing.rid_map(graph.config)
                        if moved is not None:
                            after = self._slots_moved(after, dict(moved))
                else:
                    if symmetric:
                        renaming = graph.renaming(index, position)
                        real = graph.real_successor(index, position)
                    else:
                        real = states[target]
                    step = observe(before, action, real)
                    after = memories if step.quiet else self._moved(node, step, action)
                if renaming is not None:
                    after = self._renamed(after, renaming)
                successor = (target, after)
                if successor not in came:
                    came[successor] = (node, action, renaming, position)
                    queue.append(successor)

    def _names_no_request(self, memories: tuple[Memory, ...]) -> bool:
        """True when every memory is `DONE` or one that names no request (`_unnamed`): every
        rid map keeps them."""
        for memory, unnamed in zip(memories, self._unnamed, strict=True):
            if memory is not DONE and memory != unnamed:
                return False
        return True

    def expanded(self, index: int, before: State, reals: Sequence[State],
                 successors: Sequence[State]) -> None:
        """The search has just expanded state `index` (`before`): per edge, in order, its
        real successor (in `before`'s names) and the successor it stored or looked up (the
        representative, before its request slots are renumbered). Its crossings are
        remembered and the product runs on up to the first node whose state is not
        expanded yet (`run(expanded_only=True)`)."""
        self._remember(index, self._crossings(index, before, reals, successors))
        self.run(expanded_only=True)

    def _slot_edges(self, index: int, before: State) -> list[_Crossing]:
        """The crossings of state `index` (`before`) of a graph with request slots renumbered,
        its real successors recomputed from the state and each action (the search did not
        hand them, or they are forgotten), remembered."""
        graph = self.graph
        actions, codes = graph.actions, graph.edge_action
        # slots are the LRU design's reduction: its graph's moves are its `Reductions`
        reductions, edges = cast("Reductions", graph.reductions()), graph.edge_range(index)
        renamed_step, symmetric = reductions.renamed_step, graph.symmetric
        reals, named = [], []
        for k in edges:
            real = renamed_step(before, actions[codes[k]])  # in `before`'s names
            renaming = graph.renaming(index, k - edges.start) if symmetric else None
            reals.append(real)
            named.append(real if renaming is None else rename_state(real, dict(renaming)))
        return self._remember(index, self._crossings(index, before, reals, named))

    def _crossings(self, index: int, before: State, reals: Sequence[State],
                   successors: Sequence[State]) -> list[_Crossing]:
        """Per edge of state `index` (`before`): the step to its real successor (`reals`),
        the edge's identity renaming and, on a graph with request slots renumbered, what its
        rid map is computed from: the successor in the stored state's identities
        (`successors`) and the stored target."""
        graph = self.graph
        actions, codes, targets = graph.actions, graph.edge_action, graph.edge_target
        states, symmetric, slots = graph.states, graph.symmetric, graph.slots
        edges, crossed = graph.edge_range(index), []
        for k, real, named in zip(edges, reals, successors, strict=True):
            action = actions[codes[k]]
            renaming = graph.renaming(index, k - edges.start) if symmetric else None
            step = observe(before, action, real)
            crossed.append(_Crossing(step, renaming, named, states[targets[k]]) if slots
                           else _Crossing(step, renaming, None, None))
        return crossed

    def _remember(self, index: int, crossed: list[_Crossing]) -> list[_Crossing]:
        if index not in self._crossed:
            if len(self._remembered) >= REMEMBERED_STATES:
                del self._crossed[self._remembered.popleft()]  # the oldest entry
            self._remembered.append(index)
        self._crossed[index] = crossed
        return crossed

    def _moved(self, node: Node, step: Step, action: Action) -> tuple[Memory, ...]:
        """Every monitor's memory after `step` by `action` from `node`; a violation met
        there is kept (its path: the product path to `node`, then this edge)."""
        memories, config, moved = node[1], self.graph.config, []
        for number, monitor in enumerate(self.monitors):
            memory = memories[number]
            if memory is DONE or self.found[number] is not None:
                moved.append(DONE)  # found: the monitor's memories no longer matter
                continue
            if not self.premise[number]:
                self.premise[number] = (monitor.premise(step) if monitor.obligation is None
                                        else monitor.obligation(step, memory))
            memory, reason = monitor.move(config, step, memory)
            if reason is not None:
                self.found[number] = ([*self._path(node), (action, None, None)], reason)
                self.live -= 1
                memory = DONE
            moved.append(memory)
        return tuple(moved)

    def _renamed(self, memories: tuple[Memory, ...], renaming: Renaming) -> tuple[Memory, ...]:
        names = dict(renaming)
        return tuple(memory if memory is DONE else monitor.rename(memory, names)
                     for monitor, memory in zip(self.monitors, memories, strict=True))

    def _slots_moved(self, memories: tuple[Memory, ...], live: dict[int, int]
                     ) -> tuple[Memory, ...]:
        return tuple(memory if memory is DONE else monitor.rename_rids(memory, live)
                     for monitor, memory in zip(self.monitors, memories, strict=True))

    def _path(self, node: Node) -> list[tuple[Action, Renaming | None, SlotMap | None]]:
        """The (action, renaming, rid map) steps of the breadth-first path to `node` (each
        rid map as the edge's crossing gives it, recomputed where forgotten)."""
        steps: list[tuple[Action, Renaming | None, SlotMap | None]] = []
        link = self.came[node]
        while link is not None:
            node, action, renaming, position = link
            steps.append((action, renaming, self._rid_map(node[0], position)))
            link = self.came[node]
        return steps[::-1]

    def _rid_map(self, index: int, position: int) -> SlotMap | None:
        """The rid map of edge `position` of state `index` (None off a slots graph)."""
        if not self.graph.slots:
            return None
        crossed = self._crossed.get(index)
        if crossed is None:
            crossed = self._slot_edges(index, self.graph.states[index])
        return crossed[position].rid_map(self.graph.config)

    def verdicts(self) -> list[Verdict]:
        """Per monitor: its violation or none, its premise, its product states."""
        out = []
        for number, found in enumerate(self.found):
            if found is not None:
                path, reason = found
                maps = tuple(m for _, _, m in path) if self.graph.slots else ()
                out.append(Verdict(tuple((a, r) for a, r, _ in path), reason,
                                   self.premise[number], 0, maps))
                continue
            pairs = {(index, memories[number]) for index, memories in self.came}
            out.append(Verdict(None, "", self.premise[number], len(pairs)))
        return out


ProductSearch = _Joint
"""The joint product search, for a search that runs it on the fly (`early_stop`)."""
