"""Request slots interchangeable: the forgetting key (`forgetting.py`) with the rids of the
requests it keeps renumbered, so that states that differ only in which slots their live
requests occupy are deduplicated together. Opt-in (`GraphOptions.slots`, on top of
`GraphOptions.forget`).

A request's rid is its index in `State.requests`. Apart from that index, the spec uses rids
only as names: a message, a reply, a delivery's served items and an action (`Retry`, the
front end's steps) name a request by its rid, a step looks the record up, and `Submit` issues
the fresh rid `len(requests)`. Nothing compares rids by order except the enumeration order of
`enabled` (which orders a state's edges, never which edges there are). So for a bijection p of
the live requests' rids (those not `forgetting.ended`; the ended ones are forgotten already),
renaming every place a rid occurs (the records, the messages to the engine, the replies to the
front end, the last delivery's message and served items) gives a state with the p-images of
the enabled actions, whose successors are the p-images of the successors; the fresh rid is
the same in both (the key keeps the number of requests). Every property reads rids as names
(S3 and L4 read outcomes, which the key keeps per live request and as classes for ended
ones), and a monitor's memory renamed by p judges the renamed run alike (`Monitor.rename_rids`;
entries of ended requests are dropped: no later step names them, as `forgetting.py` argues).

The key (`slots_key`) renumbers the live requests 0..k-1 in a canonical order (`slot_order`:
by a name-free summary of each record, requests whose summaries tie in the order that gives
the renumbered state the least text), then applies the processing renaming (`canonical.py`)
again; with nothing ended and no break, the key is that state alone, whether or not it was
renumbered, so that a state already in order and one that is not get one key. Every key is
the state renamed by a bijection, so equal keys mean related states, whatever the order
chosen; the least text makes the choice a function of the class (related states have the
same candidates), so that related states get one key even when their live requests tie.
Faulted states keep their rids (`Fault.detail` is text that may name one): their key is the
forgetting key.

As with forgetting, the explorer stores the first real state it meets of each key, so every
tree path replays on the spec as it stands. A non-tree edge leads to a stored state whose
live rids are those of the edge's real successor renamed (`slot_map`): the product search of
the monitors recomputes the real successor, observes the step on it, and renames the memory
onto the stored state; the rid maps along a product path are undone on its actions
(`concrete_rids`) before the judge replays it on the spec. L4's fair cycles are not judged
on these keys: fairness compares owed steps by their labels, which name rids, so a component
could look unfair where the real cycle is fair. Where these keys have no drift-free cycle
holding an unfinished request at all, no real one exists (its keys would form one) and L4
holds; else the judge looks for fair cycles on the keys with ended requests forgotten only.
Stuck states it judges here (a stored state is a real one).
`tests/explore/test_explore_slots.py` compares verdicts and shortest lengths with the search
without forgetting on a sample of cells and on every spec mutant, and plants unsound rid maps
that the comparison catches; `benchmarks/forgetting_soundness.py --slots` on every matrix
cell.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Hashable, Sequence
from typing import cast

from model_checks.explore.fingerprint import canonical_text
from model_checks.explore.lru_judging.state_checks import state_properties
from model_checks.explore.lru_reductions.canonical import canonical
from model_checks.explore.lru_reductions.forgetting import (
    ended,
    forgetting_key,
    media_forgotten,
    outcome_class,
)
from model_checks.explore.lru_reductions.lazy_media import Decided
from spec import Action, Config, Property, State
from spec.state import Delivery, Message, Reply, Request, Served

SlotOrder = tuple[int, ...]
"""The live rids of a state in canonical order (`slot_order`)."""
SlotMap = tuple[tuple[int, int], ...]
"""A renaming of live rids, as every (old, new) pair of the live requests (a pair may keep
its rid: the map also says which requests are live)."""


def slot_order(config: Config, state: State) -> tuple[int, ...]:
    """The live rids (not `ended` once the last delivery is cleared, as the key reads them:
    `delivery_forgotten`) in canonical order: by each record's name-free summary
    (`_read_summary`); live requests whose summaries tie are ordered as the least key text puts
    them (`_ties_broken`)."""
    return _ordered(config, media_forgotten(cleared(state)))[0]


def _ordered(config: Config, ready: State) -> tuple[tuple[int, ...], State | None]:
    """`slot_order` of a state as the key reads it (`ready`: media flags forgotten, last
    delivery cleared), and where live requests tied, the state the order gives the key
    (`_ties_broken`), else None."""
    gone = ended(config, ready)
    ranked = sorted((_read_summary(r), r.rid) for r in ready.requests if r.rid not in gone)
    if all(a[0] != b[0] for a, b in itertools.pairwise(ranked)):
        return tuple(rid for _, rid in ranked), None
    return _ties_broken(ready, ranked)


def _ties_broken(state: State, ranked: Sequence[tuple[tuple[object, ...], int]]
                 ) -> tuple[tuple[int, ...], State]:
    """The live rids, in summary order, with each run of equal summaries permuted so that
    the renumbered state, processings renamed (`canonical`), has the least text
    (`fingerprint.canonical_text`), and that renumbered state: a function of the state's
    class under renaming rids (the candidates of two related states are the same states),
    so that related states whose live requests tie get one key; any order would be sound
    (the key is the state renamed by a bijection, `slot_map` gives it), this one merges
    them. `state` is as the key reads it (media flags forgotten, last delivery cleared)."""
    runs = [[rid for _, rid in run]
            for _, run in itertools.groupby(ranked, key=lambda pair: pair[0])]
    requests = state.requests
    best: tuple[str, tuple[int, ...], State] | None = None
    for choice in itertools.product(*(itertools.permutations(run) for run in runs)):
        order = tuple(rid for run in choice for rid in run)
        live = {old: new for new, old in enumerate(order)}
        renamed = canonical(renumber(state, live, tuple(requests[old] for old in order)))
        text = canonical_text(renamed)
        if best is None or text < best[0]:
            best = (text, order, renamed)
    assert best is not None
    return best[1], best[2]


def _read_summary(request: Request) -> tuple[object, ...]:
    """What orders live requests: fields that name no rid and compare as plain values, read
    on a request whose media flags are as the key keeps them (`forgetting.media_read`)."""
    outcome = request.outcome
    return (request.stage.value, "" if outcome is None else outcome.value, request.retries,
            request.front_end, tuple((i.identity, i.version, i.has_data) for i in request.items),
            request.missed)


def slots_key(config: Config, state: State) -> Hashable:
    """The key `state` is deduplicated on (module docstring): the forgetting key with the
    live requests renumbered in `slot_order`."""
    if state.fault is not None:
        return forgetting_key(config, state)
    real = state
    state, broken = delivery_forgotten(config, media_forgotten(state))
    order, renamed = _ordered(config, state)
    KEYED_ORDERS.put(config, real, order)
    requests = state.requests
    if (not broken and len(order) == len(requests)
            and all(rid == n for n, rid in enumerate(order))):
        return canonical(state)  # nothing ended, moved or broken: the state (its
        # processings renamed again: the cleared delivery may have held some)
    live = {old: new for new, old in enumerate(order)}
    if renamed is None:  # else the tie-break renamed it already
        renamed = canonical(renumber(state, live, tuple(requests[old] for old in order)))
    if not broken and len(order) == len(requests):
        return renamed  # nothing ended or broken: the form a state already in order has
    classes = frozenset(outcome_class(r) for r in requests if r.rid not in live)
    return renamed, len(requests), classes, broken


def delivery_forgotten(config: Config, state: State) -> tuple[State, frozenset[str]]:
    """`state` with its last delivery cleared, and the state properties it breaks (empty
    without a delivery: then `state` itself). No step reads the last delivery (every step
    clears it first); the state properties read it (S1, S3's freshness, H1, the tag lemmas),
    so the key keeps which of them break; the L1-L3 monitors read it on the step into the
    state, which the product search on these keys observes on the real successor it
    recomputes (`product.py`), never on the stored state."""
    if state.last_delivery is None:
        return state, frozenset()
    broken = frozenset(p.id for p in _checked(config)
                       if p.state_check is not None and p.state_check(config, state))
    return state.evolve(last_delivery=None), broken


@functools.lru_cache(maxsize=8)
def _checked(config: Config) -> tuple[Property, ...]:
    return state_properties(config)


def cleared(state: State) -> State:
    """`state` with its last delivery cleared: what every action applies to (`spec.step`),
    and what the slots key keeps of it (`delivery_forgotten`)."""
    return state if state.last_delivery is None else state.evolve(last_delivery=None)


def renumber(state: State, live: dict[int, int], kept: Sequence[Request]) -> State:
    """`state` with the requests `kept` (in their new order) renumbered by `live` and every
    message, reply and delivery renamed alike (a record whose rid keeps its number is kept
    as it is: the same value, fewer objects built)."""
    def message(m: Message) -> Message:
        rid = live[m.rid]
        return m if rid == m.rid else Message(rid, m.front_end, m.items, m.engine)

    def reply(r: Reply) -> Reply:
        rid = live[r.rid]
        return r if rid == r.rid else Reply(rid, r.front_end, r.missed)

    def request(r: Request) -> Request:
        rid = live[r.rid]
        return r if rid == r.rid else Request(rid, r.front_end, r.items, r.retries, r.stage,
                                              r.outcome, r.missed, r.work)

    delivery = state.last_delivery
    if delivery is not None:
        delivery = Delivery(message(delivery.message),
                            tuple(Served(live[s.rid], s.identity, s.tensor, s.placeholders,
                                         s.sent_version) for s in delivery.served),
                            delivery.missed)
    return state.evolve(
        requests=tuple(map(request, kept)),
        to_engine=tuple(map(message, state.to_engine)),
        to_front_end=tuple(map(reply, state.to_front_end)),
        last_delivery=delivery,
    )


def slot_map(config: Config, real: State, stored: State) -> SlotMap | None:
    """The renaming of `real`'s live rids onto those of `stored` (equal keys), None when it
    moves none."""
    if real.fault is not None or real == stored:  # equal states: every rid kept
        return None
    pairs = tuple(zip(_known_order(config, real), _known_order(config, stored), strict=True))
    return None if all(old == new for old, new in pairs) else pairs


class _Orders:
    """`slot_order` of states by object (each entry holds its state, so its `id` stays its
    own), for one configuration at a time and at most `limit` states (then all forgotten at
    once): a pure function's memo, so the same orders."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.config: Config | None = None
        self.orders: dict[int, tuple[State, tuple[int, ...]]] = {}

    def get(self, config: Config, state: State) -> tuple[int, ...] | None:
        known = self.orders.get(id(state)) if config is self.config else None
        return known[1] if known is not None and known[0] is state else None

    def put(self, config: Config, state: State, order: tuple[int, ...]) -> None:
        if config is not self.config or len(self.orders) >= self.limit:
            self.config, self.orders = config, {}
        self.orders[id(state)] = (state, order)


KEYED_ORDERS = _Orders(1 << 10)
"""The orders `slots_key` computed last: those of the successors of the state a search has
just expanded, which `slot_map` reads next (the product crosses its edges); a memo of keys
that skips `slots_key` (`search_core.Reductions.known`) reads the order here when it
computes the key, and puts it back when it hands the key on."""
_STORED = _Orders(1 << 15)
"""The orders `slot_map` computed: the stored target of a product edge is the target of
many."""


def _known_order(config: Config, state: State) -> tuple[int, ...]:
    """`slot_order(config, state)`, from the memos where they hold it (`KEYED_ORDERS`, `_STORED`;
    `slots_key` reads the order of the state with its media flags forgotten and its last
    delivery cleared, which is `slot_order`'s)."""
    order = KEYED_ORDERS.get(config, state)
    if order is None:
        order = _STORED.get(config, state)
    if order is None:
        order = slot_order(config, state)
        _STORED.put(config, state, order)
    return order


def rename_action(action: Action, names: dict[int, int]) -> Action:
    """`action` with the rid it names renamed (actions that name a request have a `rid`
    field; the others are kept)."""
    rid = getattr(action, "rid", None)
    if rid is None or rid not in names or names[rid] == rid:
        return action
    if isinstance(action, Decided):  # a handling whose flags `lazy_media` chose
        return cast("Action", action.renamed(names[rid]))
    return dataclasses.replace(action, rid=names[rid])  # type: ignore[call-arg]


def concrete_rids(actions: Sequence[Action], maps: Sequence[SlotMap | None]) -> list[Action]:
    """The spec's actions for a product path, given per step the action taken from the
    stored state and the rid map that led to the next one: with rho the renaming of the real
    run's rids onto the stored state's, the real action is rho^-1(action), and after a map m
    rho becomes m after rho, kept on the live requests only (the others are never named
    again; a rid rho does not hold is a fresh one, the same in both)."""
    rho: dict[int, int] = {}
    out: list[Action] = []
    for action, step in zip(actions, maps, strict=True):
        out.append(rename_action(action, {new: old for old, new in rho.items()}))
        if step is not None:
            moved, held = dict(step), set(rho.values())
            unmoved = [rid for rid in moved if rid not in rho and rid not in held]
            rho = {real: moved[rho.get(real, real)] for real in (*rho, *unmoved)
                   if rho.get(real, real) in moved}
    return out
