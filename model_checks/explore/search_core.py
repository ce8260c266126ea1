"""The LRU design's reductions, as the one explorer takes them: its `Moves`
(`moves.Moves`), the successor function every search of its state graph shares (`graph.build`,
`distributed`'s stateless workers, `partitioned`'s partitions held by the workers), and
`moves_for`, the one table of the designs that declare reductions of their own (every other
design is searched through `moves.DesignMoves`, without any). The reductions themselves are
the LRU design's package `lru_reductions/`, reached by a search only through this table.

- `Reductions`: the successor function under the state reductions, the one place the
  searches (and `Graph`'s regeneration of a state) move. A successor is the action applied
  to the state with its last delivery cleared (`spec.step` without its `is_enabled` check,
  which `enabled` has just made), then the processing renaming (`canonical`), then, where
  identities are interchangeable, identity symmetry (`symmetry`), which also gives the
  renaming it applied. With `forget`, its `fingerprint` is that of the state's key with
  ended requests and unread media flags forgotten (`forgetting`), not of the state itself;
  with `slots` too, that of the key with the live requests' slots renumbered and the last
  delivery forgotten (`slots`); and identity symmetry's renaming is read off that key's
  state (`key_state`), so that keys differing only by a permutation merge (without
  computing the key where the caches, messages and replies decide it:
  `symmetry.settled_renaming`). With `slots`, the client's media flags are chosen where P0
  first reads them (`lazy`: `lazy_media`): new requests are submitted with media on every
  item and a fresh request's first handling is taken once per flag choice
  (`lazy_media.Decided`).

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

from collections.abc import Callable, Hashable, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, cast

from model_checks.explore.lru_judging.state_checks import state_properties
from model_checks.explore.lru_reductions.canonical import canonical
from model_checks.explore.lru_reductions.forgetting import forgetting_key
from model_checks.explore.lru_reductions.lazy_media import lazy_enabled, submits_decided
from model_checks.explore.lru_reductions.slots import KEYED_ORDERS, SlotOrder, cleared, slots_key
from model_checks.explore.lru_reductions.symmetry import (
    Groups,
    Renaming,
    canonical_identities,
    concrete_actions,
    interchangeable,
    inverse,
    rename_state,
    settled_renaming,
)
from model_checks.explore.moves import DesignMoves, Moves, Successor
from spec import Action, Config, Property, State, enabled, initial
from spec.designs import design_named
from spec.designs.lru_design import LRU_NAME

if TYPE_CHECKING:
    from model_checks.explore.graph import Graph
    from model_checks.explore.lru_judging.early_stop import BreakWatch

def moves_for(design: str, config: Any, reduce: bool = True, symmetry: bool | None = None,
              forget: bool = False, slots: bool = False) -> Moves:
    """The `Moves` a search of `design`'s `config` takes: the LRU design's under the
    reductions the flags ask for (`Reductions.of`), any other design's without reductions
    (the flags ask for none it has)."""
    if design != LRU_NAME:
        return DesignMoves(design_named(design), config)
    return Reductions.of(config, reduce, symmetry, forget, slots)


def stored_moves(design: str, config: Any, reduce: bool, groups: Groups, forget: bool,
                 slots: bool) -> Moves:
    """The `Moves` a stored graph was searched through, from what it records (exactly its
    identity `groups`)."""
    if design != LRU_NAME:
        return DesignMoves(design_named(design), config)
    return Reductions(config, reduce, groups, forget, slots)


class Reductions:
    """The successor function of one configuration under the reductions a search applies:
    processing renaming if `reduce` (`rename_pids`: it or the identity) and identity
    symmetry over the interchangeable identity `groups` (empty: none); with `forget`, states
    deduplicated on their key with ended requests forgotten (`fingerprint`), and with
    `slots` (which needs `forget`) with the live requests' slots renumbered as well, and
    `lazy` (None: as `slots`) the media flags chosen where P0 reads them (`lazy_media`)."""

    __slots__ = ("config", "forget", "groups", "keys", "known", "lazy", "reduce", "rename_pids",
                 "slots")

    def __init__(self, config: Config, reduce: bool, groups: Groups,
                 forget: bool = False, slots: bool = False, lazy: bool | None = None) -> None:
        self.config, self.reduce, self.groups, self.forget = config, reduce, groups, forget
        self.slots = slots and forget
        self.lazy = self.slots if lazy is None else lazy
        self.rename_pids = pids_renaming(reduce)
        self.keys: dict[int, tuple[State, int]] = {}
        """The fingerprints `_keyed_representative` gave the representatives of the last
        expansion's successors, by `id` (each entry holds its state, so the id stays its
        own): `fingerprint` reads them instead of computing their keys again."""
        self.known: dict[int, tuple[State, State, Renaming | None, int, SlotOrder | None]] = {}
        """`_keyed_representative`'s memo under `slots` (whose key costs more than looking a
        state up), by the hash of each real successor (processing ids renamed): that
        successor (a hash two states share keeps the later), its representative, the
        renaming onto it, the representative's fingerprint and its slot order as
        `slots_key` computed it (`slots.KEYED_ORDERS`). A state is reached from many parents
        (every order of commuting steps), and its key and representative are functions of
        its value alone; at most `KNOWN_STATES` entries, then all forgotten at once, and
        dropped when a search ends (`release`)."""

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
        if not self.forget:
            return hash(state)
        known = self.keys.get(id(state))
        if known is not None and known[0] is state:
            return known[1]
        return hash(dedup_key(self.config, state, self.slots))

    def canonical(self, state: State) -> tuple[State, Renaming | None]:
        """`state`'s representative under both reductions, and the identity renaming that
        maps it there (None: none): `_representative` of its processing renaming."""
        return self._representative(self.rename_pids(state))

    def _representative(self, renamed: State) -> tuple[State, Renaming | None]:
        """The representative of `renamed` (a state with processing ids renamed) under
        identity symmetry, and the renaming that maps it there (None: none). With `forget`,
        the renaming is the one that puts the state's key in canonical form (the state part
        of `dedup_key`), so that states whose keys differ only by a permutation of
        interchangeable identities are deduplicated together; where the caches, messages
        and replies decide it (`symmetry.settled_renaming`), without computing the key. The
        one place every successor, and the initial state, reaches its representative
        outside an expansion (`_keyed` in one)."""
        if not self.groups:
            return renamed, None
        if not self.forget:
            return canonical_identities(renamed, self.groups)
        settled, renaming = settled_renaming(renamed, self.groups)
        if settled:
            return (renamed if renaming is None else rename_state(renamed, dict(renaming)),
                    renaming)
        return canonical_identities(renamed, self.groups,
                                    key_state(dedup_key(self.config, renamed, self.slots)))

    def _keyed(self, renamed: State) -> tuple[State, Renaming | None, Hashable]:
        """`_representative` under `forget` with identity symmetry, and the representative's
        deduplication key (`dedup_key`), computed once where the renaming is settled before
        it (`symmetry.settled_renaming`), else read off the key of `renamed` and computed
        again for the representative where the renaming moves it."""
        config, slots, groups = self.config, self.slots, self.groups
        settled, renaming = settled_renaming(renamed, groups)
        if settled:
            if renaming is not None:
                renamed = rename_state(renamed, dict(renaming))
            return renamed, renaming, dedup_key(config, renamed, slots)
        key = dedup_key(config, renamed, slots)
        representative, renaming = canonical_identities(renamed, groups, key_state(key))
        if representative is not renamed:
            key = dedup_key(config, representative, slots)
        return representative, renaming, key

    def _keyed_representative(self, renamed: State) -> tuple[State, Renaming | None]:
        """`_representative`, with the fingerprint of the representative remembered (`keys`:
        `fingerprint` then reads it), under `slots` from the memo of real successors
        (`known`: one hash of `renamed` looks it up and stores it) where `renamed` is in
        it."""
        if not self.forget:
            return self._representative(renamed)
        if not self.slots:  # the forgetting key is cheaper than the memo
            representative, renaming, key = self._keyed(renamed)
            self.keys[id(representative)] = (representative, hash(key))
            return representative, renaming
        code = hash(renamed)
        known = self.known.get(code)
        if known is None or known[0] != renamed:  # new (of two states sharing a hash, the later
            # is kept)
            representative, renaming, key = self._keyed(renamed)
            order = KEYED_ORDERS.get(self.config, representative)
            if len(self.known) >= KNOWN_STATES:
                self.known.clear()
            known = self.known[code] = (renamed, representative, renaming, hash(key), order)
        elif known[4] is not None:  # the product reads the representative's slot order next
            KEYED_ORDERS.put(self.config, known[1], known[4])
        self.keys[id(known[1])] = (known[1], known[3])
        return known[1], known[2]

    def release(self) -> None:
        """Drop the memo of real successors (`known`): the search that filled it has ended."""
        self.known.clear()
        self.keys.clear()

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
        """Each of `actions` (enabled in `state`) with its successor, in their order:
        `successors_and_reals` without the real successors."""
        return self.successors_and_reals(state, actions)[0]

    def successors_and_reals(self, state: State, actions: Sequence[Action]
                             ) -> tuple[list[Successor], list[State]]:
        """Each of `actions` (enabled in `state`) with its successor (its representative,
        `_representative`), in their order, and per action its real successor
        (`renamed_step`: processing ids renamed only, in `state`'s identities), from one
        application of each action: the reals are what a search hands the monitors'
        product running on the fly (`early_stop`)."""
        config, rename_pids = self.config, self.rename_pids
        self.keys.clear()
        ready = cleared(state)
        reals = [rename_pids(action.apply(config, ready)) for action in actions]
        if not self.groups:  # each real successor is its own representative
            return list(zip(actions, reals, repeat(None))), reals
        representative = self._keyed_representative
        return [(action, *representative(real))
                for action, real in zip(actions, reals, strict=True)], reals

    def expand(self, state: State) -> list[Successor]:
        """Every action of `state` (`enabled`) with its successor, in their order."""
        return self.successors(state, self.enabled(state))

    def enabled(self, state: State) -> list[Action]:
        """The spec's enabled actions of `state`, in its order; with `lazy`, as
        `lazy_media.lazy_enabled` takes them (each `Decided` applies like an action)."""
        actions = enabled(self.config, state)
        return lazy_enabled(state, actions) if self.lazy else actions

    def ready(self, state: State) -> State:
        return cleared(state)

    def concrete(self, steps: Sequence[tuple[Action, Renaming | None]]) -> list[Action]:
        """The unreduced spec's actions along a path (identity renamings undone, media flags
        given to their `Submit`s: `lazy_media.submits_decided`)."""
        actions = concrete_actions(steps) if self.groups else [a for a, _ in steps]
        return submits_decided(actions) if self.lazy else actions

    def undo(self, state: State, renaming: Renaming | None) -> State:
        return state if renaming is None else rename_state(state, inverse(renaming))

    def default_checks(self) -> tuple[Property, ...]:
        """Every state property the judge would check (`state_checks.state_properties`)."""
        return state_properties(self.config)


KNOWN_STATES = 1 << 16
"""The most real successors `Reductions.known` remembers."""


def dedup_key(config: Config, state: State, slots: bool) -> Hashable:
    """`state`'s deduplication key under forgetting: `slots.slots_key` if `slots`, else
    `forgetting.forgetting_key`."""
    return slots_key(config, state) if slots else forgetting_key(config, state)


def key_state(key: Hashable) -> State:
    """The state part of a deduplication key (`dedup_key`): what identity symmetry puts in
    canonical form under forgetting (`Reductions.canonical`)."""
    return key if isinstance(key, State) else cast("State", key[0])  # type: ignore[index]


def pids_renaming(reduce: bool) -> Callable[[State], State]:
    """The processing renaming if `reduce`, else the identity."""
    return canonical if reduce else _unchanged


def _unchanged(state: State) -> State:
    return state


def break_watch(graph: Graph, asked: Sequence[Property], stops: bool = True) -> BreakWatch:
    """The LRU design's watch for the breaks of `asked` as its search goes (`early_stop`:
    state properties as they are numbered, L1-L3 by their monitors' product run on the
    fly); with `stops` false, it only runs their product and never stops the search."""
    from model_checks.explore.lru_judging.early_stop import BreakWatch  # it reads the graph's type

    return BreakWatch(graph, asked, stops)
