"""What every search for the state graph shares: `graph.build` (in this process),
`distributed`'s stateless workers and `partitioned`'s partitions held by the workers
(`partition`). They differ only in where a state is expanded and where the visited set lives.

- `Reductions`: the successor function under the state reductions, the one place the
  searches (and `Graph`'s regeneration of a state) move. A successor is the action applied
  to the state with its last delivery cleared (`spec.step` without its `is_enabled` check,
  which `enabled` has just made), then the processing renaming (`canonical`), then, where
  identities are interchangeable, identity symmetry (`symmetry`), which also gives the
  renaming it applied. With `forget`, its `fingerprint` is that of the state's key with
  ended requests forgotten (`forgetting`), not of the state itself; with `slots` too, that
  of the key with the live requests' slots renumbered (`slots`).
- `Interned`: a table of distinct values named by their codes (their positions), for the
  graph's actions and identity renamings and for a partition's local tables.
- `GraphWriter`: the graph under construction: its tables, one row per numbered state
  (`add_state`), each expanded state's edges (`add_edge`, `end_edges`), and the search's
  last word (`finish`).

What stays with each search, and why. Which actions of a state are expanded (every enabled
one; the partial-order reduction's choice under the cycle proviso; none at a depth bound) is
`graph.build`'s alone: the proviso reads the depths of already numbered states, which only a
search holding the whole visited set in one process has while it expands. The visited set's
key differs by where it lives: Python's `hash` in one process, the state itself in the
client's partitioned tables (`distributed`), a state's `wire` code on a worker. The loop
differs by where states are expanded: one state at a time in number order (`build`), a
level at a time with its tasks' results merged in number order (`distributed`), a level at
a time with new states ranked by discovery key and every edge written at the end
(`partitioned`). The graphs are equal field by field whatever the search
(`tests/executor/test_explore_distributed.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Generic, TypeVar

from model_checks.explore.canonical import canonical
from model_checks.explore.forgetting import forgetting_key
from model_checks.explore.slots import slots_key
from model_checks.explore.symmetry import Groups, Renaming, canonical_identities, interchangeable
from spec import Action, Config, State, enabled, initial

if TYPE_CHECKING:
    from model_checks.explore.graph import Graph

Successor = tuple[Action, State, "Renaming | None"]
"""One edge as expanded: the action, the canonical successor, and the identity renaming
that maps the action's real successor onto it (None: none)."""

Value = TypeVar("Value")


class Reductions:
    """The successor function of one configuration under the reductions a search applies:
    processing renaming if `reduce` (`rename_pids`: it or the identity) and identity
    symmetry over the interchangeable identity `groups` (empty: none); with `forget`, states
    deduplicated on their key with ended requests forgotten (`fingerprint`), and with
    `slots` (which needs `forget`) with the live requests' slots renumbered as well."""

    __slots__ = ("config", "forget", "groups", "reduce", "rename_pids", "slots")

    def __init__(self, config: Config, reduce: bool, groups: Groups,
                 forget: bool = False, slots: bool = False) -> None:
        self.config, self.reduce, self.groups, self.forget = config, reduce, groups, forget
        self.slots = slots and forget
        self.rename_pids = pids_renaming(reduce)

    @classmethod
    def of(cls, config: Config, reduce: bool, symmetry: bool | None,
           forget: bool = False, slots: bool = False) -> Reductions:
        """The reductions for these flags: processing renaming if `reduce`; identity
        symmetry if `symmetry` (None: as `reduce`) where identities are interchangeable;
        ended requests forgotten in the deduplication key if `forget`; request slots
        renumbered in it too if `slots` as well."""
        groups = interchangeable(config) if (reduce if symmetry is None else symmetry) else ()
        return cls(config, reduce, groups, forget, slots)

    def fingerprint(self, state: State) -> int:
        """The 64-bit fingerprint a search deduplicates `state` (a representative) on: its
        hash, or with `forget` the hash of its key (`forgetting.forgetting_key`, or with
        `slots` `slots.slots_key`)."""
        if self.slots:
            return hash(slots_key(self.config, state))
        return hash(forgetting_key(self.config, state)) if self.forget else hash(state)

    def canonical(self, state: State) -> tuple[State, Renaming | None]:
        """`state`'s representative under both reductions, and the identity renaming that
        maps it there (None: none)."""
        state = self.rename_pids(state)
        return canonical_identities(state, self.groups) if self.groups else (state, None)

    def start(self) -> State:
        """The initial state's representative: state 0 of every search."""
        start, renaming = self.canonical(initial(self.config))
        assert renaming is None, "the initial state names no identity"
        return start

    def successor(self, cleared: State, action: Action) -> tuple[State, Renaming | None]:
        """`action`'s successor of the state whose clearing (`cleared`) is `cleared`."""
        return self.canonical(action.apply(self.config, cleared))

    def renamed_step(self, state: State, action: Action) -> State:
        """`action`'s successor of `state` with processing ids renamed only: the real
        successor in `state`'s identities (what the monitors read on a slots graph)."""
        return self.rename_pids(action.apply(self.config, cleared(state)))

    def successors(self, state: State, actions: Sequence[Action]) -> list[Successor]:
        """Each of `actions` (enabled in `state`) with its successor, in their order."""
        config, rename_pids, groups = self.config, self.rename_pids, self.groups
        ready = cleared(state)
        if not groups:
            return [(action, rename_pids(action.apply(config, ready)), None)
                    for action in actions]
        return [(action, *canonical_identities(rename_pids(action.apply(config, ready)),
                                               groups))
                for action in actions]

    def expand(self, state: State) -> list[Successor]:
        """Every enabled action of `state` with its successor, in `enabled`'s order."""
        return self.successors(state, enabled(self.config, state))


def cleared(state: State) -> State:
    """`state` with its last delivery cleared: what every action applies to (`spec.step`)."""
    return state if state.last_delivery is None else state.evolve(last_delivery=None)


def pids_renaming(reduce: bool) -> Callable[[State], State]:
    """The processing renaming if `reduce`, else the identity."""
    return canonical if reduce else _unchanged


def _unchanged(state: State) -> State:
    return state


class Interned(Generic[Value]):
    """Distinct values, each named by its code: its position in `values` (a list the table
    appends to and may share, such as a graph's `actions`). `codes` is the reverse map, for
    a hot loop's look-up before it calls `code`."""

    __slots__ = ("codes", "values")

    def __init__(self, values: list[Value]) -> None:
        self.values = values
        self.codes: dict[Value, int] = {value: code for code, value in enumerate(values)}

    def code(self, value: Value) -> int:
        """The code of `value` (added if new)."""
        code = self.codes.get(value)
        if code is None:
            code = self.codes[value] = len(self.values)
            self.values.append(value)
        return code


class GraphWriter:
    """A graph under construction, in the order every search writes it: state 0's row, then
    per expanded state (in number order) its edges, with a new row for each new target.
    Actions and renamings are interned in the order their first edge (or row) is written.
    A writer that must be fast may append to the graph's edge arrays itself, in the same
    order: `build`'s per-edge loop, and `partitioned`, which writes each partition's edges
    in slices."""

    __slots__ = ("actions", "graph", "renamings")

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.actions: Interned[Action] = Interned(graph.actions)
        self.renamings: Interned[Renaming | None] = Interned(graph.renamings)

    def add_state(self, fingerprint: int, depth: int, parent: int, via: int,
                  via_renaming: int) -> int:
        """Number the next state: its fingerprint, depth, parent (-1: none), and the codes
        of its tree edge's action (-1: none) and renaming. Its number."""
        graph = self.graph
        number = len(graph.parent)
        graph.fingerprints.append(fingerprint)
        graph.depth.append(depth)
        graph.parent.append(parent)
        graph.via_code.append(via)
        graph.via_renaming_code.append(via_renaming)
        return number

    def add_edge(self, target: int, action: int, renaming: int) -> None:
        """An edge of the state being expanded: its target's number and the codes of its
        action and renaming (the renaming kept only under identity symmetry)."""
        graph = self.graph
        graph.edge_target.append(target)
        graph.edge_action.append(action)
        if graph.symmetric:
            graph.edge_renaming.append(renaming)

    def end_edges(self) -> None:
        """The state being expanded has no more edges (the next state's start here)."""
        self.graph.edge_start.append(len(self.graph.edge_target))

    def finish(self, steps_taken: int, complete: bool, held: list[State] | None) -> Graph:
        """The search is over: the edges it took (`steps_taken`), whether it reached every
        state, and the states it hands the judge (`held`: every state, in number order;
        None: none, rebuilt on demand)."""
        graph = self.graph
        graph.steps_taken = steps_taken
        graph.complete = graph.complete and complete
        graph._held = held
        return graph
