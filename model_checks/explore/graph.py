"""The reachable state graph of one configuration of any design, built breadth-first over the
design's spec itself.

`build` moves only through the design's `Moves` (`moves.py`: the design's `enabled` and step,
under the reductions the design declares, `search_core.moves_for`); states are
numbered in the order breadth-first search discovers them, so state i's depth is never below
state j's for i > j, and the parent pointers give a shortest path to every state.

Representation (TLC's): the graph keeps no states. The visited set maps each state's 64-bit
fingerprint to its number while the search runs (Python's `hash` of the frozen state: salted
per process, which is fine because the set never leaves the process; a worker builds and
judges a whole graph and returns records), and is dropped when the search ends. What stays is
flat arrays: per state its fingerprint, depth, parent and the action of the tree edge; per
edge its target and action, in `enabled`'s order (compressed sparse rows, `edge_start`);
actions and identity renamings are interned in one table each and named by their index. A
state is rebuilt when a reader asks for it by re-running the spec along the stored action
path (`states`, a read-only sequence: iteration regenerates every state once, in order,
keeping only the states whose children are still to come; indexing replays from the nearest
ancestor it remembers), and every rebuilt state is checked against its stored fingerprint.
`build(keep_states=True)`, the default, also holds the states the search made, for the judge,
which reads every state many times; `release_states` drops them. A lean search
(`keep_states=False`) holds only its frontier, and the judge then rebuilds every state once
and holds them while it judges (`holding_states`).
Distinct states whose fingerprints collide would be merged: with n states the chance is below
n^2 / 2^65 (about 3e-8 at a million states), TLC's own trade. Where a state must be named
across processes or runs, use `fingerprint.stable_fingerprint` (Python's `hash` and any digest
of `repr` differ between processes: a frozenset's `repr` follows the salted hashes).

A resource limit (`max_states`), never a clock, bounds the search: a graph that hits it is
marked incomplete, and nothing built on it is reported as proved.

Two reductions apply when `reduce` is set: processing renaming (`canonical.py`) and identity
symmetry (`symmetry.py`, only where some identities are interchangeable). The second moves
identities, which actions name, so the graph keeps per edge the renaming it applied
(`renaming`) and `path_to` maps every path back to the unreduced spec. A third is opt-in
(`GraphOptions.forget`, this module's search only): states deduplicated on a key with ended
requests forgotten (`forgetting.py`), and on top of it (`GraphOptions.slots`) the live
requests' slots renumbered (`slots.py`); the stored states stay real ones.

Partial-order reduction is opt-in: `expand` (`lru_judging.reduction`) chooses which
enabled actions of a state to expand, and `build` applies the cycle proviso to its choice
(`_proviso`). `max_depth` stops expanding at a depth (a bounded search, never complete).

The LRU design's successors come from its reductions (`search_core.Reductions`, which also
rebuild stored states, and which every search of its graph shares): `action.apply` on the
state with its last delivery cleared, computed once per state, instead of `spec.step` per
action: `step` is exactly "check `is_enabled`, then apply to the cleared state", and
`enabled` has just established `is_enabled` for each action it lists
(`tests/explore/test_explore_symmetry.py::test_the_fast_step_is_spec_step`). This module's
search (`_Search`) is the one that expands in this process: it alone applies the partial-order
reduction's choice and its proviso, and writes the graph through `moves.GraphWriter`
with its per-edge loop's look-ups hoisted.
"""

from __future__ import annotations

import itertools
from array import array
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, overload

from model_checks.explore import collector
from model_checks.explore.defects import RegenerationDiverged
from model_checks.explore.distributed_common import LevelProgress
from model_checks.explore.moves import (
    Action,
    GraphWriter,
    Moves,
    Renaming,
    State,
    StateChecks,
    Successor,
)
from model_checks.explore.search_core import Reductions, break_watch, moves_for, stored_moves
from spec.designs.base import DEFAULT_DESIGN

Groups = tuple[tuple[str, ...], ...]



class BreakWatch(Protocol):
    """What watches a search for the breaks of the properties it stops at
    (`GraphOptions.stop_at_break`): `broken` says, at the end of a level, whether every one
    has broken by then; `product` is what the judge reads their verdicts from after.
    While `reads_edges()`, the search hands it each state it expands with every edge's real
    successor and stored successor (`expanded`), so that nothing steps the spec again."""

    product: Any

    def broken(self, states: list[Any]) -> bool: ...

    def reads_edges(self) -> bool: ...

    def expanded(self, number: int, before: State, reals: list[State],
                 successors: list[State]) -> None: ...


_CACHED_STATES = 4096
"""How many states random access (`states[i]`) remembers, to replay from near ancestors."""


@dataclass
class Graph:
    """The explored graph, stored as flat arrays (see the module docstring).

    depth[i]; parent[i]: the predecessor on a shortest path (-1 for the initial state 0);
    via[i]: the action of that tree edge, as taken from the parent (None for state 0);
    edges[i]: every (action, target) of state i, in `enabled`'s order; `renaming(i, k)`:
    under identity symmetry, the identity renaming that maps edge k's real successor onto
    the stored target (None: none); `states[i]`: state i, rebuilt on demand."""

    config: Any
    reduced: bool
    complete: bool = True
    steps_taken: int = 0
    symmetric: bool = False
    max_states: int = 2_000_000
    partial: int = 0  # states expanded with fewer than all their enabled actions
    groups: Groups = ()
    forgets: bool = False
    """States deduplicated on their key with ended requests forgotten (`forgetting`): an
    edge leads to the stored state whose key its real successor has. With `slots` the key
    renumbers the live requests' slots too: an edge's real successor is the stored target
    with its live rids renamed (`slots.slot_map`)."""
    slots: bool = False
    fingerprints: array[int] = field(default_factory=lambda: array("q"))
    depth: array[int] = field(default_factory=lambda: array("i"))
    parent: array[int] = field(default_factory=lambda: array("i"))
    via_code: array[int] = field(default_factory=lambda: array("i"))
    via_renaming_code: array[int] = field(default_factory=lambda: array("i"))
    edge_start: array[int] = field(default_factory=lambda: array("q", [0]))
    """Edges of state i are positions edge_start[i]..edge_start[i+1] (states expanded)."""
    edge_target: array[int] = field(default_factory=lambda: array("i"))
    edge_action: array[int] = field(default_factory=lambda: array("i"))
    edge_renaming: array[int] = field(default_factory=lambda: array("i"))
    actions: list[Action] = field(default_factory=list)
    """The interned actions: codes in `via_code` and `edge_action` index this list."""
    renamings: list[Renaming | None] = field(default_factory=lambda: [None])  # code 0: none
    stopped_at: int | None = None
    """The depth at whose end the search stopped because every property of
    `GraphOptions.stop_at_break` had broken (`early_stop`; the graph is then incomplete);
    None: it did not stop there."""
    early_product: Any = field(default=None, repr=False, compare=False)
    """The product with the monitors of `GraphOptions.stop_at_break` (or
    `GraphOptions.monitored`), searched on the fly up to where the search stopped at their
    breaks (`early_stop`) or ended: the judge finishes it (`run`) and reads their verdicts
    from it, as a search of the product of the graph would give them."""
    checks: StateChecks | None = field(default=None, repr=False, compare=False)
    """The state properties checked on every state as the search numbered it (None: none;
    the judge then checks them in passes over `states`). Not part of the graph: two graphs
    are equal whoever checked what on them."""
    _held: list[State] | None = field(default=None, repr=False)
    _held_edges: list[list[tuple[Action, int]]] | None = field(default=None, repr=False)
    """While states are held, every state's edge list too (the judge reads each many times)."""
    _cache: dict[int, State] = field(default_factory=dict, repr=False)
    _undone: dict[tuple[int, Renaming], State] = field(default_factory=dict, repr=False)
    _reductions: Moves | None = field(default=None, repr=False, compare=False)
    """The successor function that rebuilds states (`reductions`)."""
    design: str = DEFAULT_DESIGN
    """The design whose configuration `config` is (`search_core.moves_for`)."""

    @classmethod
    def empty(cls, reductions: Moves, max_states: int, design: str = DEFAULT_DESIGN) -> Graph:
        """The graph a search under `reductions` starts from (no state yet)."""
        return cls(reductions.config, reductions.reduce, symmetric=bool(reductions.groups),
                   max_states=max_states, groups=reductions.groups,
                   forgets=reductions.forget, slots=reductions.slots,
                   _reductions=reductions, design=design)

    def reductions(self) -> Moves:
        """The reductions the graph's search applied: the successor function that rebuilds
        its states."""
        if self._reductions is None:
            self._reductions = stored_moves(self.design, self.config, self.reduced,
                                            self.groups, self.forgets, self.slots)
        return self._reductions

    @property
    def size(self) -> int:
        """The number of states."""
        return len(self.parent)

    @property
    def diameter(self) -> int:
        """The largest breadth-first depth: every state is within this many steps."""
        return max(self.depth, default=0)

    @property
    def states(self) -> Sequence[State]:
        """Every state, in number order: the held list while states are held (read it, never
        change it), else a view that rebuilds them."""
        return self._held if self._held is not None else StateView(self)

    @property
    def edges(self) -> Sequence[list[tuple[Action, int]]]:
        """Every state's (action, target) edges: lists made once while states are held."""
        if self._held is not None:
            return self._held_edge_lists()
        return EdgeView(self)

    @property
    def via(self) -> ViaView:
        return ViaView(self)

    def out_edges(self, index: int) -> list[tuple[Action, int]]:
        """Every (action, target) of state `index`, in `enabled`'s order."""
        if self._held is not None:
            return self._held_edge_lists()[index]
        return self._edge_list(index)

    def _held_edge_lists(self) -> list[list[tuple[Action, int]]]:
        if self._held_edges is None:
            self._held_edges = [self._edge_list(i) for i in range(self.size)]
        return self._held_edges

    def edge_range(self, index: int) -> range:
        """The positions of state `index`'s edges in the edge arrays (`edge_target`,
        `edge_action`, `edge_renaming`): empty for a state the search did not expand."""
        if index + 1 >= len(self.edge_start):
            return range(0)  # not expanded (the state limit cut the search before it)
        return range(self.edge_start[index], self.edge_start[index + 1])

    def action_flags(self, flag: Callable[[Action], bool]) -> list[bool]:
        """`flag` of every interned action, by action code (an action's flag is computed once
        per graph, not once per edge)."""
        return [flag(action) for action in self.actions]

    def _edge_list(self, index: int) -> list[tuple[Action, int]]:
        actions, targets = self.actions, self.edge_target
        codes = self.edge_action
        return [(actions[codes[k]], targets[k]) for k in self.edge_range(index)]

    def via_action(self, index: int) -> Action | None:
        code = self.via_code[index]
        return None if code < 0 else self.actions[code]

    def path_to(self, index: int) -> list[Action]:
        """A shortest path's actions from the initial state to state `index`, as the spec
        takes them (`concrete`: renamings undone, flags chosen late given to `Submit`s)."""
        steps: list[tuple[Action, Renaming | None]] = []
        while index > 0:
            action = self.via_action(index)
            assert action is not None
            renaming = self.renamings[self.via_renaming_code[index]] if self.symmetric else None
            steps.append((action, renaming))
            index = self.parent[index]
        steps.reverse()
        return self.reductions().concrete(steps)

    def renaming(self, index: int, position: int) -> Renaming | None:
        """The identity renaming of edge `position` of state `index` (None: none)."""
        if not self.symmetric:
            return None
        return self.renamings[self.edge_renaming[self.edge_start[index] + position]]

    def real_successor(self, index: int, position: int) -> State:
        """The successor edge `position` of state `index` reaches, in state `index`'s names:
        its target with the edge's identity renaming undone (memoised: every monitor's
        product search crosses the same edges)."""
        target = self.edge_target[self.edge_start[index] + position]
        renaming = self.renaming(index, position)
        if renaming is None:
            return self.state(target)
        key = (target, renaming)
        real = self._undone.get(key)
        if real is None:
            real = self._undone[key] = self.reductions().undo(self.state(target), renaming)
        return real

    # -- states, rebuilt from the stored paths -----------------------------------------------

    def release_states(self) -> None:
        """Drop the states held (`build(keep_states=True)`): from now on they are rebuilt on
        demand from the arrays."""
        self._held = None
        self._held_edges = None
        self._undone.clear()

    @contextmanager
    def holding_states(self, states: list[State] | None = None) -> Iterator[None]:
        """Keep every state in memory inside the block (one regeneration pass, or `states`:
        every state numbered so far, in number order, as a running search holds them), for a
        reader that visits them many times (the judge, the product run on the fly); dropped
        on leaving unless already held."""
        if self._held is not None:
            yield
            return
        self._held = list(self.regenerate()) if states is None else states
        try:
            yield
        finally:
            self.release_states()

    def state(self, index: int) -> State:
        """State `index`: held, remembered, or replayed from its nearest remembered ancestor."""
        if self._held is not None:
            return self._held[index]
        cached = self._cache.get(index)
        if cached is not None:
            return cached
        chain = []
        node = index
        while node > 0 and node not in self._cache:
            chain.append(node)
            node = self.parent[node]
        state = self._cache.get(node) or self._start()
        for node in reversed(chain):
            state = self._remember(node, self._child(state, node))
        return state

    def regenerate(self) -> Iterator[State]:
        """Every state in number order, each rebuilt once from its parent. Breadth-first
        numbering makes parents non-decreasing and each state's children consecutive, so only
        the states between the current parent and the newest one are kept."""
        if self._held is not None:
            yield from self._held
            return
        if self.size == 0:
            return
        window: deque[tuple[int, State]] = deque([(0, self._start())])  # consecutive numbers
        yield window[0][1]
        for index in range(1, self.size):
            parent = self.parent[index]
            while window[0][0] < parent:
                window.popleft()
            state = self._child(window[0][1], index)
            window.append((index, state))
            yield state

    def _start(self) -> State:
        start = self.reductions().start()
        self._check(0, start)
        return start

    def _child(self, parent: State, index: int) -> State:
        """State `index`, rebuilt from its parent's state along the stored tree edge."""
        action = self.via_action(index)
        assert action is not None
        reductions = self.reductions()
        state, _ = reductions.successor(reductions.ready(parent), action)
        self._check(index, state)
        return state

    def _check(self, index: int, state: State) -> None:
        if self.reductions().fingerprint(state) != self.fingerprints[index]:
            raise RegenerationDiverged(f"state {index} rebuilt with another fingerprint")

    def _remember(self, index: int, state: State) -> State:
        if len(self._cache) >= _CACHED_STATES:
            del self._cache[next(iter(self._cache))]  # the oldest entry
        self._cache[index] = state
        return state


class StateView(Sequence[State]):
    """`graph.states`: a read-only sequence of the graph's states, rebuilt on demand."""

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __len__(self) -> int:
        return self._graph.size

    @overload
    def __getitem__(self, index: int) -> State: ...
    @overload
    def __getitem__(self, index: slice) -> list[State]: ...
    def __getitem__(self, index: int | slice) -> State | list[State]:
        held = self._graph._held
        if held is not None:
            return held[index]
        if isinstance(index, slice):
            wanted = range(self._graph.size)[index]
            if not wanted:
                return []
            keep = set(wanted)
            sweep = itertools.islice(self._graph.regenerate(), max(wanted) + 1)
            picked = {i: state for i, state in enumerate(sweep) if i in keep}
            return [picked[i] for i in wanted]
        if not -self._graph.size <= index < self._graph.size:
            raise IndexError(index)
        return self._graph.state(index % self._graph.size)

    def __iter__(self) -> Iterator[State]:
        return self._graph.regenerate()


class EdgeView(Sequence[list[tuple[Action, int]]]):
    """`graph.edges`: per state, its (action, target) edges."""

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __len__(self) -> int:
        return self._graph.size

    @overload
    def __getitem__(self, index: int) -> list[tuple[Action, int]]: ...
    @overload
    def __getitem__(self, index: slice) -> list[list[tuple[Action, int]]]: ...
    def __getitem__(
        self, index: int | slice
    ) -> list[tuple[Action, int]] | list[list[tuple[Action, int]]]:
        if isinstance(index, slice):
            return [self._graph.out_edges(i) for i in range(self._graph.size)[index]]
        return self._graph.out_edges(range(self._graph.size)[index])


class ViaView(Sequence[Action | None]):
    """`graph.via`: per state, the action of its tree edge (None for the initial state)."""

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __len__(self) -> int:
        return self._graph.size

    @overload
    def __getitem__(self, index: int) -> Action | None: ...
    @overload
    def __getitem__(self, index: slice) -> list[Action | None]: ...
    def __getitem__(self, index: int | slice) -> Action | list[Action | None] | None:
        if isinstance(index, slice):
            return [self._graph.via_action(i) for i in range(self._graph.size)[index]]
        return self._graph.via_action(range(self._graph.size)[index])


Expand = Callable[[State, list[Action]], list[Action]]

CHUNK_STATES = 500
"""The most frontier states one task expands: large enough that a task's overhead (about a
millisecond of the scheduler's) is small against its work (about a millisecond per state),
small enough that a lost task is little to redo and that no task's arguments are large."""


@dataclass(frozen=True)
class GraphOptions:
    """How a state-graph search runs: the options of `build` and of the searches over a
    cluster (`distributed.build_distributed`, `partitioned.build_owned`), which give the same
    graph.

    `reduce`: apply processing renaming and, unless `symmetry` says otherwise, identity
    symmetry; `symmetry` (None: as `reduce`): identity symmetry where the configuration has
    interchangeable identities; `forget`: deduplicate states on their key with ended
    requests forgotten (`forgetting`; `build` only); `slots`, with `forget`: the key renumbers
    the live requests' slots too (`slots`); `max_states`: the most states before
    the search stops (the graph is then incomplete; a resource limit).

    For `build` only: `keep_states`: hold the states the search made (a judge reads them all,
    many times, and need not rebuild them) until `release_states`; without, keep only the
    current frontier and the arrays (the lean search). `expand(state, enabled)`: the actions
    to expand (a subset, kept only where the breadth-first cycle proviso `_proviso` holds,
    unless `depth_proviso` is false because `expand` ensures a cycle proviso itself);
    `max_depth`: states at that depth are not expanded. `checks`: the state properties
    checked on every state as the search numbers it (`graph.checks`; None: the design's
    `Moves.default_checks()`, for the LRU design every one the judge would check; `()`:
    none). A design without reductions (`moves.DesignMoves`) ignores `reduce` and `symmetry`.
    `stop_at_break`: stop at the end of the first level by which every one of these
    properties (each `early_stop.stoppable`; a state property among `checks`) has broken,
    the graph then incomplete (`Graph.stopped_at`); empty: search on. Needs `keep_states`
    where one of them is a monitored trace property. The design's own watch for breaks
    (`search_core.break_watch`) decides when they have. `monitored`: trace properties (each
    `early_stop.stoppable`) whose monitors' product runs on the fly as the search goes,
    without stopping it (`Graph.early_product`: the judge finishes it and reads their
    verdicts there), crossing each edge from the successors the search computed; needs
    `keep_states`; ignored with `stop_at_break`, whose product runs on the fly anyway.

    For the searches over a cluster only: `partitions` (None: the workers at the start) and
    `chunk_states` (the most frontier states one task expands, in the search without
    owned partitions) change where work runs, never the result; `progress` is told of each
    level; with `owned` each partition of the visited set lives on one worker for the whole
    search, without, the workers keep nothing and the client merges every successor."""

    reduce: bool = True
    symmetry: bool | None = None
    forget: bool = False
    slots: bool = False
    max_states: int = 2_000_000
    keep_states: bool = True
    expand: Expand | None = None
    max_depth: int | None = None
    depth_proviso: bool = True
    checks: Sequence[Any] | None = None
    stop_at_break: Sequence[Any] = ()
    monitored: Sequence[Any] = ()
    partitions: int | None = None
    chunk_states: int = CHUNK_STATES
    progress: LevelProgress | None = None
    owned: bool = True

    @property
    def symmetric(self) -> bool:
        """Whether identity symmetry applies (where identities are interchangeable)."""
        return self.reduce if self.symmetry is None else self.symmetry


def build(config: Any, options: GraphOptions = GraphOptions(), design: str = DEFAULT_DESIGN,
          moves: Moves | None = None) -> Graph:
    """Every state reachable from `design`'s initial state of `config`, breadth-first,
    searched as `options` says (`GraphOptions`), through `moves` (None: the design's own,
    `search_core.moves_for`, under the reductions `options` asks for)."""
    if moves is None:
        moves = moves_for(design, config, options.reduce, options.symmetric, options.forget,
                          options.slots)
    graph = Graph.empty(moves, options.max_states, design)
    checks = options.checks
    props = moves.default_checks() if checks is None else tuple(checks)
    graph.checks = StateChecks(config, props) if props else None
    expansion = _Expansion(options.expand, options.max_depth, options.depth_proviso)
    watch = None
    if options.stop_at_break:
        if not options.keep_states and any(p.state_check is None
                                           for p in options.stop_at_break):
            raise ValueError("a monitored property stops the search only with keep_states")
        watch = break_watch(graph, options.stop_at_break)
    elif options.monitored:
        if not options.keep_states:
            raise ValueError("monitors run on the fly only with keep_states")
        watch = break_watch(graph, options.monitored, stops=False)
    with collector.paused():  # the search's objects form no cycles: `collector`
        _Search(graph, expansion, options.keep_states, watch).run()
    return graph


@dataclass(frozen=True)
class _Expansion:
    """Which enabled actions of a state the search expands: all of them, unless `expand`
    (partial-order reduction) chooses fewer or `max_depth` stops the search."""

    expand: Expand | None = None
    max_depth: int | None = None
    depth_proviso: bool = True


class _Search:
    """One breadth-first search in this process, filling `graph`'s arrays (`GraphWriter`):
    the visited set (fingerprint to number) and the states whose successors are still to
    come (`pending`: the states from number `graph.size - len(pending)` on). Its states
    come from the shared successor function (`graph.reductions()`); which actions it expands
    is `_chosen`'s concern; `_expand` adds each edge and, if its target is new, one state."""

    def __init__(self, graph: Graph, expansion: _Expansion, keep_states: bool,
                 watch: BreakWatch | None = None) -> None:
        self.graph, self.config, self.expansion = graph, graph.config, expansion
        self.watch = watch
        self.keep_states = keep_states
        self.reductions = graph.reductions()
        self.writer = GraphWriter(graph)
        self.seen: dict[int, int] = {}
        self.pending: list[State] = []
        self.taken = 0
        self.checked = 0  # the states numbered below it have had their state properties checked
        start = self.reductions.start()
        self.fingerprint = self.reductions.fingerprint
        self.seen[self.fingerprint(start)] = 0
        self.writer.add_state(self.fingerprint(start), 0, -1, -1, 0)
        self.pending.append(start)

    def run(self) -> None:
        """Expand states in number order until none is left or the state limit cuts the
        search (the graph is then marked incomplete) or, with a `watch`, every property it
        watches has broken by the end of a level; hand the states to the graph if kept."""
        graph, numbered, lean = self.graph, self.graph.parent, not self.keep_states
        if self.watch is not None and not lean:
            # the watch's product reads the states as the search numbers them
            with graph.holding_states(self.pending):
                complete = self._levels(graph, numbered, lean)
        else:
            complete = self._levels(graph, numbered, lean)
        self.writer.finish(self.taken, complete, self.pending if self.keep_states else None)
        if isinstance(self.reductions, Reductions):
            self.reductions.release()  # its memo of successors served this search only
        if self.watch is not None and graph.early_product is None:
            graph.early_product = self.watch.product  # to finish on the whole graph

    def _levels(self, graph: Graph, numbered: array[int], lean: bool) -> bool:
        """Expand the states level by level (`run`); whether the search completed."""
        depth = graph.depth
        frontier = 0
        complete = not self._stops(0)
        while complete and frontier < len(numbered):
            if not self._expand(frontier):
                complete = False
                break
            frontier += 1
            if frontier - self.checked >= _CHECK_BATCH:
                self._check_upto(frontier)
            if lean:
                self._trim(frontier)
            if (self.watch is not None and frontier < len(numbered)
                    and depth[frontier] != depth[frontier - 1]):
                complete = not self._stops(depth[frontier])
        self._check_upto(graph.size)
        return complete

    def _expand(self, number: int) -> bool:
        """Add every chosen edge of state `number` (and the new states they reach); False
        when a new state would pass the state limit (the edges found so far are kept).

        One loop, its lookups hoisted (it runs once per edge; it writes the edge arrays
        itself, as `GraphWriter.add_edge` would): intern the action, look the successor's
        fingerprint up, add the edge and, if new, the state."""
        graph, pending, writer = self.graph, self.pending, self.writer
        state = pending[number - len(graph.parent) + len(pending)]
        depth = graph.depth[number] + 1  # the successors' depth
        watch = self.watch
        reals: list[State] | None = None
        if watch is not None and watch.reads_edges():
            successors, reals = self._chosen_and_reals(state, depth - 1)
        else:
            successors = self._chosen(state, depth - 1)
        seen, action_codes, intern_action = self.seen, writer.actions.codes, writer.actions.code
        parent, targets, codes = graph.parent, graph.edge_target, graph.edge_action
        symmetric, renaming_code = graph.symmetric, writer.renamings.code
        add_state, max_states = writer.add_state, graph.max_states
        fingerprint = hash if not graph.forgets else self.fingerprint
        for action, successor, renaming in successors:
            self.taken += 1
            code = action_codes.get(action)
            if code is None:
                code = intern_action(action)
            fresh = len(parent)
            key = fingerprint(successor)  # the 64-bit fingerprint
            target = seen.setdefault(key, fresh)
            if target == fresh and fresh >= max_states:
                writer.end_edges()
                return False
            rcode = 0
            if symmetric:
                rcode = renaming_code(renaming)
                graph.edge_renaming.append(rcode)
            if target == fresh:
                add_state(key, depth, number, code, rcode)
                pending.append(successor)
            targets.append(target)
            codes.append(code)
        writer.end_edges()
        if reals is not None and watch is not None:
            watch.expanded(number, state, reals, [successor for _, successor, _ in successors])
        return True

    def _stops(self, level: int) -> bool:
        """At the end of `level` (its every state numbered, every state above it expanded):
        True, the search stopping there (`graph.stopped_at`), when every property the watch
        watches has broken."""
        if self.watch is None:
            return False
        self._check_upto(self.graph.size)
        if not self.watch.broken(self.pending):
            return False
        self.graph.stopped_at = level
        self.graph.early_product = self.watch.product
        return True

    def _chosen(self, state: State, depth: int) -> list[Successor]:
        """The edges to expand from `state` at `depth`, with their successors: every enabled
        action; none at `max_depth` (the graph is then incomplete unless `state` has none);
        `expand`'s choice where the cycle proviso (`_proviso`) keeps it, else every action."""
        actions = self.reductions.enabled(state)
        expansion, reductions = self.expansion, self.reductions
        if expansion.max_depth is not None and depth >= expansion.max_depth:
            self.graph.complete = self.graph.complete and not actions
            return []
        if expansion.expand is None or not actions:
            return reductions.successors(state, actions)
        chosen = expansion.expand(state, actions)
        made = reductions.successors(state, chosen)
        if len(chosen) < len(actions) and (
                not expansion.depth_proviso
                or _proviso(self.graph, self.seen, depth, made, self.fingerprint)):
            self.graph.partial += 1
            return made
        known = {action: (successor, renaming) for action, successor, renaming in made}
        ready = reductions.ready(state)
        return [(action, *(known.get(action) or reductions.successor(ready, action)))
                for action in actions]

    def _chosen_and_reals(self, state: State, depth: int) -> tuple[list[Successor],
                                                                   list[State]]:
        """`_chosen`, and per edge its real successor (in `state`'s identities): from the
        same application of each action where every enabled action is expanded, else with
        the identity renaming undone."""
        reductions = self.reductions
        if (self.expansion.expand is None and self.expansion.max_depth is None
                and isinstance(reductions, Reductions)):
            return reductions.successors_and_reals(state, reductions.enabled(state))
        made = self._chosen(state, depth)
        return made, [successor if renaming is None else reductions.undo(successor, renaming)
                      for _, successor, renaming in made]

    def _check_upto(self, end: int) -> None:
        """Check the state properties (`graph.checks`) on the states numbered from the first
        unchecked one up to `end`, in number order. In batches of `_CHECK_BATCH` states
        between expansions: one check per state inside the expansion loop costs about twice
        the CPU of the same checks run back to back."""
        checks, pending, size = self.graph.checks, self.pending, self.graph.size
        if checks is not None:
            for number in range(self.checked, end):
                checks.see(number, pending[number - size + len(pending)])
        self.checked = end

    def _trim(self, frontier: int) -> None:
        """The lean search (`keep_states` false; `run` calls this only then) drops the states
        already expanded and checked, in batches: it keeps only what it has yet to expand or
        check."""
        expanded = min(frontier, self.checked) - (self.graph.size - len(self.pending))
        if expanded > 4096 and expanded > len(self.pending) // 2:
            del self.pending[:expanded]


_CHECK_BATCH = 1024
"""States the search numbers between two batches of state-property checks."""


def _proviso(graph: Graph, seen: dict[int, int], depth: int, made: list[Successor],
             fingerprint: Callable[[State], int]) -> bool:
    """The cycle proviso, breadth-first: a reduced expansion is kept only if every chosen
    successor is new or one level deeper. Then every edge out of a reduced state goes one
    level down, so every cycle of the reduced graph passes through a fully expanded state
    and no action is postponed around it forever."""
    for _, successor, _ in made:
        known = seen.get(fingerprint(successor))
        if known is not None and graph.depth[known] <= depth:
            return False
    return True
