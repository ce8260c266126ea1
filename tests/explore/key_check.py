"""A deduplication key's own soundness check on one instance: states with one key must be
bisimilar, step by step, not only give the same verdicts.

The searches with ended requests forgotten (`forgetting`, and with request slots renumbered,
`slots`) expand the first real state they meet of each key and never look at the others. That
is sound when the key is a bisimulation on the reachable states: any two of them with one key
break the same state properties and enable the same actions (named in the key's names: with
slots renumbered, each action's rid renumbered as the key renumbers it), whose successors
have one key again. The verdict comparison of `forgetting_agreement` reads verdicts and
shortest lengths only, which are coarse: a key that merges states a property does not tell
apart on the sampled instances passes it. This check reads the relation itself.

`check_key(config, max_states, slots)` searches the instance without forgetting (processing
renaming and identity symmetry kept: both are exact), puts each state in the representative
form the forgetting search would (`Reductions.canonical`: its identity renaming is read off
the key), and groups the states by the fingerprint the search deduplicates on
(`Reductions.fingerprint`), comparing each one's *signature*: the state properties and lemmas
it breaks, and the set of (action in the key's names, successor's fingerprint) over its
enabled actions; with slots renumbered a successor is named by its exact class instead
(`exact_slots_key`: the slots key breaks ties in rid order, so two related successors may
have two keys, which is fewer merges, not a wrong one). A fingerprint whose states have two
signatures is a conflict, reported with one state of each. A check where no two states
shared a fingerprint compared nothing and does not pass: no green without work.

What it does not read: the L1-L3 monitors' observations of a step, and fair cycles; the
verdict comparison covers those. `tests/explore/test_explore_key_check.py` runs it on a
sample of instances and on every spec mutant's witness, and plants unsound keys that it
catches where the verdict comparison does not.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from model_checks.explore.fingerprint import canonical_text
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.lru_judging.state_checks import state_properties
from model_checks.explore.lru_reductions.canonical import canonical
from model_checks.explore.lru_reductions.forgetting import (
    ended,
    media_forgotten,
    outcome_class,
)
from model_checks.explore.lru_reductions.slots import (
    delivery_forgotten,
    rename_action,
    renumber,
    slot_order,
)
from model_checks.explore.lru_reductions.symmetry import Groups, interchangeable, rename_state
from model_checks.explore.search_core import Reductions
from spec import Config, Property, State

Normal = Callable[[State], State]
"""A relation's normal form: two states with one normal form are related."""
Signature = tuple[frozenset[str], frozenset[tuple[str, int | str]]]
"""What a key must fix: the state properties broken, and (action, successor key) per edge."""


@dataclass(frozen=True)
class KeyCheck:
    """One instance's check: the states searched without forgetting, the keys they fall in,
    how many states shared a key with another one (the merges compared), whether the search
    was complete, and every conflict (in words)."""

    states: int
    keys: int
    merged: int
    complete: bool
    conflicts: tuple[str, ...]

    @property
    def sound(self) -> bool:
        """True when states were merged and every merge kept one signature."""
        return self.merged > 0 and not self.conflicts


def check_key(config: Config, max_states: int, slots: bool = False,
              merged: Normal | None = None, lazy: bool | None = None) -> KeyCheck:
    """Check the forgetting key (with `slots`, the slots key) on `config`'s states, up to
    `max_states` of them (module docstring). With `merged`, states are grouped, and
    successors named, by the key of their `merged` form (a relation the search's moves
    merge, such as `test_explore_lazy_media.fresh_media_set`), each state's signature read on
    the state itself in the names of that form; `lazy` (None: as `slots`) says whether the moves are
    those of `lazy_media`."""
    plain = build(config, GraphOptions(max_states=max_states, checks=()))
    groups = interchangeable(config)
    reductions = Reductions(config, True, groups, forget=True, slots=slots, lazy=lazy)
    normal = merged or _itself
    signature = _Signatures(config, reductions, state_properties(config), slots, normal)
    seen: dict[int, tuple[Signature, State]] = {}
    members: dict[int, int] = {}
    conflicts: list[str] = []
    for state in plain.states:
        rep = _representative(reductions, state, normal)
        key = reductions.fingerprint(normal(rep))
        mine = signature(rep)
        members[key] = members.get(key, 0) + 1
        first = seen.setdefault(key, (mine, rep))
        if first[0] != mine:
            conflicts.append(_conflict(first, (mine, rep)))
    shared = sum(n for n in members.values() if n > 1)
    return KeyCheck(len(plain.states), len(members), shared, plain.complete, tuple(conflicts))


def _itself(state: State) -> State:
    return state


def _representative(reductions: Reductions, state: State, normal: Normal) -> State:
    """`state` renamed as the search would rename its `normal` form (so that two states
    with one normal form get one identity renaming)."""
    if normal is _itself:
        return reductions.canonical(state)[0]
    renamed = reductions.rename_pids(state)
    _, renaming = reductions.canonical(normal(renamed))
    return renamed if renaming is None else rename_state(renamed, dict(renaming))


class _Signatures:
    """Signatures of representatives. A successor is named by its key without slots; with
    slots, by its exact class (`exact_slots_key`), since the slots key breaks ties between
    live requests in rid order and so may give two related successors two keys (fewer merges,
    never a wrong one), which a comparison of keys would report as a conflict."""

    def __init__(self, config: Config, reductions: Reductions, props: Sequence[Property],
                 slots: bool, normal: Normal) -> None:
        self.config, self.reductions, self.props, self.slots = config, reductions, props, slots
        self.normal = normal
        self.exact: dict[int, str] = {}

    def __call__(self, state: State) -> Signature:
        config = self.config
        broken = frozenset(p.id for p in self.props
                           if p.state_check is not None and p.state_check(config, state))
        names = ({old: new for new, old in enumerate(slot_order(config, self.normal(state)))}
                 if self.slots and state.fault is None else {})
        edges = frozenset((repr(rename_action(action, names)), self._name(successor))
                          for action, successor, _ in self.reductions.expand(state))
        return broken, edges

    def _name(self, state: State) -> int | str:
        state = self.normal(state)
        key = self.reductions.fingerprint(state)
        if not self.slots:
            return key
        exact = self.exact.get(key)
        if exact is None:
            exact = self.exact[key] = exact_slots_key(self.config, state,
                                                      self.reductions.groups)
        return exact


def exact_slots_key(config: Config, state: State, groups: Groups) -> str:
    """The least text of the slots key's content over every order of the live requests and
    every permutation of the interchangeable identities (the last delivery forgotten as the
    key forgets it, `slots.delivery_forgotten`): the same for every state of one
    class of the slots key's relation, whatever ties the key breaks by rid or name order.
    A faulted state is renumbered too (its fault's text kept as it is): the key keeps its
    rids (fewer merges), but it has no successors, so only its properties tell it apart."""
    state, broken = delivery_forgotten(config, media_forgotten(state))
    gone = ended(config, state)
    requests = state.requests
    live = [r for r in requests if r.rid not in gone]
    classes = frozenset(outcome_class(requests[rid]) for rid in gone)
    renamings = _products(groups)
    best = None
    for order in itertools.permutations(live):
        moved = renumber(state, {r.rid: n for n, r in enumerate(order)}, order)
        for names in renamings:
            text = _text((canonical(rename_state(moved, names) if names else moved),
                          len(requests), classes, broken))
            if best is None or text < best:
                best = text
    assert best is not None
    return best


def _products(groups: Groups) -> list[dict[str, str]]:
    """Every permutation of the identities that maps each group onto itself."""
    out: list[dict[str, str]] = [{}]
    for group in groups:
        out = [{**names, **dict(zip(group, image, strict=True))} for names in out
               for image in itertools.permutations(group)]
    return out


def _text(key: Hashable) -> str:
    return canonical_text(key)


def _conflict(first: tuple[Signature, State], other: tuple[Signature, State]) -> str:
    (broken_a, edges_a), state_a = first
    (broken_b, edges_b), state_b = other
    if broken_a != broken_b:
        why = f"breaks {sorted(broken_a)} against {sorted(broken_b)}"
    else:
        only_a = sorted(a for a, _ in edges_a - edges_b)
        only_b = sorted(a for a, _ in edges_b - edges_a)
        why = f"steps only one takes (or to other keys): {only_a[:3]} against {only_b[:3]}"
    return f"one key, two behaviours: {why}; states {state_a!r} and {state_b!r}"
