"""Identity symmetry: the second state reduction, where it applies, and why it is sound.

Two identities are *interchangeable* in a configuration when every content of one has the
same sizes on both sides as the same version of the other (`interchangeable`): the
configuration names identities only in `identities` (which the client enumerates, every
permutation of every subset: `spec.transitions.client.all_requests`) and in `sizes`. The spec
otherwise uses identities as names: it compares them for equality, looks them up in the
LRUs, and never orders them (`sorted` in spec/ sorts item indices by probe or payload, never
by name). So for a permutation p of the identities that maps each group of interchangeable
identities onto itself, p(initial) = initial (no identity in it), the actions enabled in
p(s) are the p-images of those enabled in s (only `Submit` names identities, and the
guards read sizes, which p preserves), and step(p(s), p(a)) = p(step(s, a)). Every property
of the registry reads identities as names too (equality, membership), so it judges s and
p(s) alike, and a monitor's memory, renamed by p, judges the renamed run alike.

The representative of s's class (`canonical_identities`) renames, per group, the group's
identities in the order a fixed, name-independent traversal of the state first meets them
onto the group's names in configuration order (the same device as the processing renaming of
`canonical.py`; the traversal visits tuples in their own order, never a set). Two states
related by such a p meet their identities at the same positions, so they get the same
representative; the reduced graph is the quotient by the group's symmetry, bisimilar to the
unreduced one through the renaming each edge records.

Where it is NOT applied:

- identities with unequal sizes (D9's skewed identity, D11's oversized one, the matrix's b
  and c under D9): each forms its own group, so no permutation moves it;
- faulted states (`Fault.detail` is text that may name an identity): they are kept as they
  are (no merge; they have no successors, so nothing else changes);
- `build(..., reduce=False)`, which the reduction tests compare against.

Since a reduced edge leads to the representative of the real successor, the graph keeps,
per edge, the renaming it applied (`Renaming`, None for none). A path in the reduced graph is
mapped back to a path of the unreduced spec by undoing the renamings composed so far on each
action (`concrete_actions`); the judge replays every counterexample that way on the spec and
rechecks it. For L4, a fair cycle of the quotient need not close in the unreduced graph, so
the judge rebuilds the graph without this reduction before reporting a lasso (the spec has
none); the absence of a fair cycle carries over, because owed steps never name an identity
(`Submit` is never owed), so the image of a fair component of the unreduced graph is fair.
`tests/explore/test_explore_symmetry.py` compares verdicts, diameters and counterexample
lengths with and without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from spec import Action, Config, State
from spec.config import Content
from spec.lru import Entry, Ghost, Lru
from spec.state import (
    ClientItem,
    Delivery,
    Message,
    P0Work,
    Processing,
    Reply,
    Request,
    Served,
    WireItem,
)
from spec.transitions import Submit

Groups = tuple[tuple[str, ...], ...]
"""Groups of at least two interchangeable identities, each in configuration order."""
Renaming = tuple[tuple[str, str], ...]
"""An identity permutation, as its moved (old, new) pairs."""


def interchangeable(config: Config) -> Groups:
    """The identities that no role in the configuration tells apart: equal sizes on both
    sides for every content version. Groups of one are left out (nothing to permute)."""
    by_sizes: dict[tuple[tuple[int, int], ...], list[str]] = {}
    for identity in config.identities:
        sizes = tuple(
            (config.shadow_bytes(Content(identity, v)), config.receiver_bytes(Content(identity, v)))
            for v in range(config.versions)
        )
        by_sizes.setdefault(sizes, []).append(identity)
    return tuple(tuple(group) for group in by_sizes.values() if len(group) > 1)


def canonical_identities(state: State, groups: Groups, guide: State | None = None
                         ) -> tuple[State, Renaming | None]:
    """The representative of `state` under the groups' permutations, and the renaming that
    maps `state` onto it (None when it is `state` itself). The renaming is the one that
    puts `guide` (None: `state`) in canonical form: with the deduplication key of ended
    requests forgotten, the key's state (`search_core.Reductions.canonical`), so that two
    states whose keys differ only by a permutation get one key. Any permutation of the
    groups gives a sound representative (the argument above holds for each); the guide only
    decides which, and so how many classes merge."""
    if not groups or state.fault is not None:
        return state, None
    renaming = _renaming(_first_met(state if guide is None else guide, groups), groups)
    return (state, None) if renaming is None else (rename_state(state, dict(renaming)), renaming)


def settled_renaming(state: State, groups: Groups) -> tuple[bool, Renaming | None]:
    """Whether the caches, the messages to the engine and the replies of `state` (the head
    of the traversal, `_head_runs`) decide `canonical_identities`' renaming of `state` for
    every guide that has them as `state` has, and if so that renaming (None: none).

    They decide it when they meet every identity of each group but at most one: the
    renaming orders a group's identities as the traversal first meets them, and an identity
    the head does not meet comes after every one it meets, whether the rest of the traversal
    meets it or not (`_renaming` puts the unmet ones last in configuration order: with one
    unmet, its place is fixed). The deduplication keys' states (`forgetting.forgetting_key`,
    `slots.slots_key`) keep that head as `state` has it, in the same order: they forget media
    flags, ended requests, the last delivery and processings nobody holds, and rename
    processings and rids, none of which an identity in a cache, message or reply is read
    from (`rename_state` never moves one either). So where the head decides, the renaming
    the key's state guides is this one, and the search (`search_core.Reductions`) renames
    first and computes one key, of the representative; the states and keys are those of
    the guided renaming. A faulted state is kept as it is (decided: no renaming)."""
    if not groups or state.fault is not None:
        return True, None
    met = _head_met(state, groups)
    for group in groups:
        unmet = 0
        for identity in group:
            if identity not in met:
                unmet += 1
        if unmet > 1:
            return False, None
    return True, _renaming(met, groups)


def _head_met(state: State, groups: Groups) -> list[str]:
    """The grouped identities in the order the head of the traversal first meets them
    (`_head_runs`' order, walked without building its runs: it runs once per successor)."""
    wanted = {i for group in groups for i in group}
    met: list[str] = []
    for cache in (*state.shadows, *state.receivers()):
        for slot in cache:
            name = slot.identity
            if name in wanted and name not in met:
                met.append(name)
    if len(met) < len(wanted):
        for message in state.to_engine:
            for wire in message.items:
                name = wire.identity
                if name in wanted and name not in met:
                    met.append(name)
        for reply in state.to_front_end:
            for name in reply.missed:
                if name in wanted and name not in met:
                    met.append(name)
    return met


def _renaming(met: list[str], groups: Groups) -> Renaming | None:
    """The renaming that maps each group's identities, in the order `met` gives them (those
    not in it last, in configuration order), onto the group in configuration order."""
    moved: list[tuple[str, str]] = []
    for group in groups:
        order = [i for i in met if i in group]
        order += [i for i in group if i not in order]
        moved += [(old, new) for old, new in zip(order, group, strict=True) if old != new]
    return tuple(moved) if moved else None


def _first_met(state: State, groups: Groups) -> list[str]:
    """The grouped identities in the order a name-independent traversal meets them."""
    return _met(_identities_in_order(state), groups)


def _met(runs: Iterable[Iterable[str]], groups: Groups) -> list[str]:
    """The grouped identities in the order `runs` first meet them (up to the first run that
    meets them all)."""
    wanted = {i for group in groups for i in group}
    met: dict[str, None] = {}
    for names in runs:
        for name in names:
            if name in wanted and name not in met:
                met[name] = None
                if len(met) == len(wanted):
                    return list(met)
    return list(met)


def _identities_in_order(state: State) -> Iterable[Iterable[str]]:
    """The state's identities in traversal order, in runs (one per cache, message, reply,
    request and delivery), so that the walk stops at the first run that completes it: the
    head (`_head_runs`), then the requests, the delivery and the processings."""
    yield from _head_runs(state)
    for request in state.requests:
        yield [item.identity for item in request.items]
        yield request.missed  # work.hits is a set: its members are among the items
    delivery = state.last_delivery
    if delivery is not None:
        yield [wire.identity for wire in delivery.message.items]
        yield delivery.missed
    # pid order: structural once pids are canonical
    yield [processing.identity for processing in state.processings]


def _head_runs(state: State) -> Iterable[Iterable[str]]:
    """The head of the traversal: every cache, message to the engine and reply, in order
    (what the deduplication keys keep as the state has it: `settled_renaming`, which walks
    it as `_head_met`)."""
    for cache in (*state.shadows, *state.receivers()):
        yield [slot.identity for slot in cache]
    for message in state.to_engine:
        yield [wire.identity for wire in message.items]
    for reply in state.to_front_end:
        yield reply.missed


def rename_state(state: State, names: dict[str, str]) -> State:
    """`state` with every identity x replaced by names.get(x, x) (a fault's text is kept)."""
    def n(identity: str) -> str:
        return names.get(identity, identity)

    def lru(cache: Lru) -> Lru:
        return tuple(
            Entry(n(s.identity), s.size, s.processing, s.tag) if isinstance(s, Entry)
            else Ghost(n(s.identity))
            for s in cache
        )

    def wire(w: WireItem) -> WireItem:
        return WireItem(n(w.identity), w.data, w.placeholders, w.tag)

    def message(m: Message) -> Message:
        return Message(m.rid, m.front_end, tuple(wire(w) for w in m.items), m.engine)

    def request(r: Request) -> Request:
        work = r.work
        if work is not None:
            work = P0Work(frozenset(n(h) for h in work.hits), work.processed, work.order,
                          work.done, tuple((i, wire(w)) for i, w in work.wire))
        return Request(r.rid, r.front_end, rename_items(r.items, names), r.retries, r.stage,
                       r.outcome, tuple(n(h) for h in r.missed), work)

    delivery = state.last_delivery
    if delivery is not None:
        delivery = Delivery(
            message(delivery.message),
            tuple(Served(s.rid, n(s.identity), s.tensor, s.placeholders, s.sent_version)
                  for s in delivery.served),
            tuple(n(h) for h in delivery.missed),
        )
    return State(
        tuple(lru(s) for s in state.shadows),
        lru(state.receiver),
        tuple(Processing(n(p.identity), p.version) for p in state.processings),
        tuple(request(r) for r in state.requests),
        tuple(message(m) for m in state.to_engine),
        tuple(Reply(r.rid, r.front_end, tuple(n(h) for h in r.missed))
              for r in state.to_front_end),
        state.reset_pending,
        delivery,
        state.fault,
        tuple(lru(r) for r in state.other_receivers),
    )


def rename_items(items: tuple[ClientItem, ...], names: dict[str, str]) -> tuple[ClientItem, ...]:
    return tuple(ClientItem(names.get(i.identity, i.identity), i.version, i.has_data)
                 for i in items)


def rename_action(action: Action, names: dict[str, str]) -> Action:
    """The action under the renaming: only `Submit` names identities (a test checks that no
    other action class has a field that could hold one)."""
    if isinstance(action, Submit) and names:
        return Submit(rename_items(action.items, names), action.front_end)
    return action


def inverse(renaming: Renaming) -> dict[str, str]:
    return {new: old for old, new in renaming}


def concrete_actions(steps: Sequence[tuple[Action, Renaming | None]]) -> list[Action]:
    """The unreduced spec's actions for a path of the reduced graph, given per step the
    action taken from the representative and the renaming that led to the next one.

    With sigma the renaming from the real state to its representative (the identity at the
    initial state, which names no identity): the real action is sigma^-1(action), and the
    next state's sigma is the step's renaming after sigma."""
    sigma: dict[str, str] = {}
    actions: list[Action] = []
    for action, renaming in steps:
        back = {rep: real for real, rep in sigma.items() if rep != real}
        actions.append(rename_action(action, back))
        if renaming:
            step = dict(renaming)
            names = set(sigma) | set(step)
            sigma = {x: step.get(sigma.get(x, x), sigma.get(x, x)) for x in names}
    return actions
