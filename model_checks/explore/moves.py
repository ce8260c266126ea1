"""What every search for the state graph moves through, whatever the design: `Moves`, the
transition system one configuration offers the search (its initial state, enabled actions,
successors and the fingerprint states are deduplicated on), and the graph's tables.

- `Moves`: the interface. A design with no reductions of its own is searched through
  `DesignMoves`, over `spec.designs.base.Design` (`initial`, `enabled`, `step`, its states'
  hash). A design that has reductions declares its own `Moves` (the LRU design's, with
  processing renaming, identity symmetry, forgetting and slots: `search_core.Reductions`);
  `search_core.moves_for` is the one table of them.
- `Interned`: a table of distinct values named by their codes (their positions), for the
  graph's actions and identity renamings and for a partition's local tables.
- `GraphWriter`: the graph under construction: its tables, one row per numbered state
  (`add_state`), each expanded state's edges (`add_edge`, `end_edges`), and the search's
  last word (`finish`).
- `StateChecks`: state properties checked on every state as the search numbers it.

A successor is `(action, representative, renaming)`: the renaming maps the action's real
successor onto the representative the graph stores (None: none; always None without
identity symmetry).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from spec.designs.base import Design

if TYPE_CHECKING:
    from model_checks.explore.graph import Graph

State = Any
"""A design's state: a frozen, hashable value."""
Action = Any
"""A design's action: a frozen, hashable value."""
Renaming = Any
"""How a reduction renamed a successor (None: not at all)."""

Successor = tuple[Action, State, Renaming]
"""One edge as expanded: the action, the successor the graph stores, and the renaming that
maps the action's real successor onto it (None: none)."""

Value = TypeVar("Value")


class Moves(Protocol):
    """The successor function of one configuration under the reductions a search applies,
    the one way every search and the regeneration of a stored state move. `reduce`,
    `groups`, `forget` and `slots` say which reductions apply (the graph records them).

    `start()`: the initial state's representative (state 0 of every search); `enabled(s)`:
    the actions enabled in `s`, in the design's order; `successors(s, actions)`: each of
    `actions` (enabled in `s`) with its successor, in their order; `successor(ready(s), a)`:
    one of them (`ready` computed once per state); `fingerprint(s)`: the 64-bit fingerprint
    a search deduplicates `s` on; `concrete(steps)`: the design's own actions along a path of
    the reduced graph (its steps' actions and renamings); `undo(s, renaming)`: an edge's
    real successor from its target; `default_checks()`: the state properties a search checks
    on every state it numbers unless told otherwise (`CheckedProperty`s)."""

    config: Any
    reduce: bool
    groups: tuple[tuple[str, ...], ...]
    forget: bool
    slots: bool

    def start(self) -> State: ...
    def enabled(self, state: State) -> list[Action]: ...
    def ready(self, state: State) -> State: ...
    def successor(self, ready: State, action: Action) -> tuple[State, Renaming]: ...
    def successors(self, state: State, actions: Sequence[Action]) -> list[Successor]: ...
    def fingerprint(self, state: State) -> int: ...
    def concrete(self, steps: Sequence[tuple[Action, Renaming]]) -> list[Action]: ...
    def undo(self, state: State, renaming: Renaming) -> State: ...
    def default_checks(self) -> tuple[Any, ...]: ...


Arrival = Callable[[State, Action, State], None]
"""Told of every transition a search takes, in order: the state, the action, its successor
(judged on arrival, before deduplication: a design's state may leave out of its identity
what only its properties read, such as what the step served)."""


class DesignMoves:
    """`Moves` over any `Design`, without reductions: the design's own step, states
    deduplicated on their hash; `arrival`, if given, is told of the initial state (as
    `(None, None, start)`) and of every transition `successors` computes."""

    __slots__ = ("arrival", "config", "design")

    reduce = False
    groups: tuple[tuple[str, ...], ...] = ()
    forget = False
    slots = False

    def __init__(self, design: Design, config: Any, arrival: Arrival | None = None) -> None:
        self.design, self.config, self.arrival = design, config, arrival

    def start(self) -> State:
        start = self.design.initial(self.config)
        if self.arrival is not None:
            self.arrival(None, None, start)
        return start

    def enabled(self, state: State) -> list[Action]:
        return list(self.design.enabled(self.config, state))

    def ready(self, state: State) -> State:
        return state

    def successor(self, ready: State, action: Action) -> tuple[State, Renaming]:
        return self.design.step(self.config, ready, action), None

    def successors(self, state: State, actions: Sequence[Action]) -> list[Successor]:
        step, config, arrival = self.design.step, self.config, self.arrival
        made = [(action, step(config, state, action), None) for action in actions]
        if arrival is not None:
            for action, after, _ in made:
                arrival(state, action, after)
        return made

    def fingerprint(self, state: State) -> int:
        return hash(state)

    def concrete(self, steps: Sequence[tuple[Action, Renaming]]) -> list[Action]:
        return [action for action, _ in steps]

    def undo(self, state: State, renaming: Renaming) -> State:
        return state

    def default_checks(self) -> tuple[Any, ...]:
        return ()


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
        self.renamings: Interned[Renaming] = Interned(graph.renamings)

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


class CheckedProperty(Protocol):
    """A state property as `StateChecks` reads it: its id and its check (None: not one)."""

    @property
    def id(self) -> str: ...
    @property
    def state_check(self) -> Callable[[Any, Any], list[str]] | None: ...


class StateChecks:
    """The state properties `props` checked on states of `config` as a search numbers them
    (`see`, in number order): `first[id]` is the first state breaking property `id` and its
    reasons; a property absent from `first` held on every state seen.

    Breadth-first numbering makes that state a shallowest one, the very state a pass over
    `graph.states` in number order would stop at, so the judge gives the same counterexample
    from `first` without reading a state again. A property stops being checked once broken:
    every later state is deeper. The judge uses a finding only for the very property object
    that was checked (`covers`), so a property declared, withdrawn or redeclared after the
    search is judged by a pass."""

    def __init__(self, config: Any, props: Sequence[CheckedProperty]) -> None:
        self.config = config
        self.checked = {p.id: p for p in props}
        self.first: dict[str, tuple[int, list[str]]] = {}
        self._pending = [(p.id, p.state_check) for p in props if p.state_check is not None]

    def see(self, index: int, state: State) -> None:
        """Check state number `index` against every property not yet broken."""
        broken = None
        for prop_id, check in self._pending:
            reasons = check(self.config, state)
            if reasons:
                self.first[prop_id] = (index, reasons)
                broken = True
        if broken:
            self._pending = [(i, c) for i, c in self._pending if i not in self.first]

    def covers(self, prop: CheckedProperty) -> bool:
        """True when this very property was checked on every state the search numbered."""
        return self.checked.get(prop.id) is prop
