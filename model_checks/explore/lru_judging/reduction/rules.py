"""What partial-order reduction knows of each action class, in one table (`RULES`) keyed by
the classes of `spec.ACTION_TYPES`: the instances a configuration can ever enable, what an
instance reads and writes (its footprint), the groups it belongs to, and what must run before
a disabled instance is enabled (its necessary enabling set), and whether it is a clearing
step that makes no progress.

Every entry is read off the action's guard and `apply` in `spec/transitions/` (the
derivation, action by action, is in `docs/explore.md`, "Partial-order reduction"); a change
to a transition must be mirrored in its entry. The comparison tests against the unreduced
search (`tests/explore/test_explore_por.py`) catch a footprint that is too small or an
enabling set that misses a step; `tests/architecture/test_arch_action_tables.py` catches a
class without an entry.

`last_delivery` is no location: every step clears it and only P1's receive sets it, so it
is the label of the step that set it (a function of what that step read), never an input of
another step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from model_checks.explore.lru_judging.reduction.footprint import Footprint, Location, Mode
from spec import ACTION_TYPES, Action, Config, Drift, LruFlaw, Stage, State
from spec import transitions as t
from spec.transitions.client import all_requests, request_fits_unless_d8, well_formed

_A = TypeVar("_A", bound=Action)

Group = tuple[object, ...]
"""A named set of actions of the universe (`groups`): ("submit",), ("reply",),
("receive",), ("ends",) (steps that may end an attempt), ("retry", r), ("process", r),
("update", r) (every update of r), ("first update", r) (r's update that does not send),
("send", e) (steps that may send to engine e), ("p1 reset",), ("clear for reset",)."""

Instances = Callable[[Config], Iterable[Action]]
FootprintOf = Callable[[Config, State, Action], Footprint]
GroupsOf = Callable[[Action], tuple[Group, ...]]
EnablingOf = Callable[[State, Action], tuple[Group, ...]]


@dataclass(frozen=True)
class Rules:
    """One action class as partial-order reduction sees it.

    `instances`: every instance some state of the configuration may enable, in the order the
    universe lists them (a superset; `universe` drops those whose drift source is off).
    `footprint`: what an instance touches in a state, enabled or not; for a disabled one it
    covers every state in which it may later be enabled.
    `groups`: the groups an instance belongs to (none: no enabling set names it).
    `enabling`: for a disabled instance, groups one of whose actions must run before it is
    enabled (a false conjunct of its guard, and the only steps that make it true).
    `clearing`: the step only wipes caches or toggles the pending reset, so it makes no
    progress (`stubborn.progress`) and a reduced expansion never holds it."""

    instances: Instances
    footprint: FootprintOf
    groups: GroupsOf
    enabling: EnablingOf
    clearing: bool = False


def rules_of(kind: type[Action]) -> Rules:
    """`RULES`' entry for `kind`; a class without one is a clear error naming this file."""
    try:
        return RULES[kind]
    except KeyError:
        raise KeyError(f"{kind.__name__} has no entry in RULES: add its instances, footprint, "
                       "groups and enabling set to "
                       "model_checks/explore/lru_judging/reduction/rules.py"
                       ) from None


def universe(config: Config) -> tuple[Action, ...]:
    """Every action that is enabled in some state of this configuration (a superset): each
    class's instances (`Rules.instances`) in `spec.ACTION_TYPES` order, those whose drift
    source is off left out."""
    return tuple(a for kind in ACTION_TYPES for a in rules_of(kind).instances(config)
                 if a.available(config))


def footprint(config: Config, state: State, action: Action) -> Footprint:
    """The action's footprint in `state`, enabled or not. For a disabled action it covers
    every state in which the action may later be enabled. Only taking a reply's depends on
    the state (which reply is at the head); every other is the same in every state, up to
    the front end of a request that exists (fixed once it exists; before, every front end),
    so `footprint(config, initial(config), action)` covers every state."""
    return rules_of(type(action)).footprint(config, state, action)


def groups(action: Action) -> tuple[Group, ...]:
    """The groups `action` belongs to (`Rules.groups`)."""
    return rules_of(type(action)).groups(action)


def necessary_enabling(config: Config, state: State, action: Action) -> tuple[Group, ...]:
    """Groups of actions one of which must run before the disabled `action` is enabled
    (`Rules.enabling`)."""
    return rules_of(type(action)).enabling(state, action)


# Instances: each class's actions over the configuration's bounds.

def _once(kind: type[Action]) -> Instances:
    return lambda config: (kind(),)


def _per_request(kind: Callable[[int], Action]) -> Instances:
    return lambda config: (kind(r) for r in range(config.max_requests))


def _per_request_and_engine(kind: Callable[[int, int], Action]) -> Instances:
    return lambda config: (kind(r, e) for r in range(config.max_requests)
                           for e in range(config.engines))


def _per_front_end(kind: Callable[[int], Action]) -> Instances:
    return lambda config: (kind(f) for f in range(config.front_ends))


def _per_engine(kind: Callable[[int], Action]) -> Instances:
    return lambda config: (kind(e) for e in range(config.engines))


def _submits(config: Config) -> Iterable[Action]:
    return (t.Submit(items, fe) for items in all_requests(config)
            for fe in range(config.front_ends)
            if well_formed(config, items) and request_fits_unless_d8(config, items))


def _receives(kind: type[t.P1Receive]) -> Instances:
    # At most one message per request is in flight, so an engine's queue is never longer;
    # only a reordered delivery (D1) takes a message other than the oldest.
    return lambda config: (kind(i, e) for e in range(config.engines)
                           for i in range(config.max_requests)
                           if i == 0 or config.enables(Drift.D1))


# Footprints: (location, mode) pairs read off each guard and `apply` (`footprint.Location`).

def _front_ends_of(config: Config, state: State, rid: int) -> tuple[int, ...]:
    if rid < len(state.requests):
        return (state.requests[rid].front_end,)
    return tuple(range(config.front_ends))


def _shadow_faults(config: Config) -> bool:
    """A shadow update can hang only on a ghost slot (`lru._evict_until_fits`), which only
    a flawed LRU records; other flaws never stop eviction."""
    return config.variant.shadow_lru is not LruFlaw.NONE


@dataclass(frozen=True)
class _P0Step:
    """What a P0 pipeline step touches besides its request: the engine it `sends_to` (None:
    none); `probes_only`: it reads the shadow caches, never writes them; `mid`: it holds a
    request mid-pipeline; `drift`: it may clear L3's record (a drift event)."""

    sends_to: int | None
    probes_only: bool = False
    mid: bool = False
    drift: bool = False


def _p0_attempt(config: Config, state: State, rid: int, step: _P0Step) -> Footprint:
    """The P0 pipeline steps (handle, rejected handle, process, one item's update)."""
    sends_to, probes_only, mid, drift = step.sends_to, step.probes_only, step.mid, step.drift
    accesses: list[tuple[Location, Mode]] = [
        (("request", rid), Mode.WRITE), (("processings",), Mode.APPEND), (("count",), Mode.DEC),
    ]
    for fe in _front_ends_of(config, state, rid):
        accesses.append((("shadow", fe), Mode.READ if probes_only else Mode.WRITE))
        if mid:
            accesses.append((("midpipe", fe), Mode.WRITE))
    if sends_to is not None:
        accesses += [(("to_engine", sends_to), Mode.APPEND), (("L1",), Mode.WRITE)]
    if drift:
        accesses.append((("L3",), Mode.CLEAR))
    return Footprint(tuple(accesses), may_fault=not probes_only and _shadow_faults(config))


def _as(kind: type[_A], action: Action) -> _A:
    assert isinstance(action, kind)
    return action


def _submit(config: Config, state: State, action: Action) -> Footprint:
    # The request it adds is no location: no step can touch a request before it exists,
    # and every submit conflicts with every other (the count), so none of them creates it
    # on a path that leaves this one out.
    accesses: list[tuple[Location, Mode]] = [(("count",), Mode.SUBMIT)]
    if _as(t.Submit, action).drift_event() is not None:  # a reused identity (D7): for L3
        accesses.append((("L3",), Mode.CLEAR))
    return Footprint(tuple(accesses))


def _retry(config: Config, state: State, action: Action) -> Footprint:
    rid = _as(t.Retry, action).rid
    return Footprint(((("request", rid), Mode.WRITE), (("count",), Mode.INC)))


def _handle(config: Config, state: State, action: Action) -> Footprint:
    handle = _as(t.P0Handle, action)
    return _p0_attempt(config, state, handle.rid, _P0Step(sends_to=handle.engine))


def _rejected(config: Config, state: State, action: Action) -> Footprint:
    # The message it appends is removed in the same step: to_engine is untouched. The undoing
    # choice (`P0HandleRejectedUndo`) writes the same shadow, and nothing else.
    rid = _as(t.P0HandleRejected, action).rid
    return _p0_attempt(config, state, rid, _P0Step(sends_to=None, drift=True))


def _process(config: Config, state: State, action: Action) -> Footprint:
    rid = _as(t.P0Process, action).rid
    return _p0_attempt(config, state, rid,
                       _P0Step(sends_to=None, probes_only=True, mid=True, drift=True))


def _update(config: Config, state: State, action: Action) -> Footprint:
    # Any update may be the one that sends (the last), to the engine the action names.
    update = _as(t.P0UpdateItem, action)
    return _p0_attempt(config, state, update.rid, _P0Step(sends_to=update.engine, mid=True))


def _receive_reply(config: Config, state: State, action: Action) -> Footprint:
    accesses: list[tuple[Location, Mode]] = [(("to_front_end",), Mode.POP),
                                             (("count",), Mode.DEC)]
    if state.to_front_end:
        reply = state.to_front_end[0]
        accesses.append((("request", reply.rid), Mode.WRITE))
        if reply.missed:  # a miss taken: invalidation, and L1's and L2's memories
            accesses += [(("shadow", reply.front_end), Mode.INVALIDATE), (("L1",), Mode.WRITE),
                         (("L2",), Mode.WRITE)]
    else:  # disabled: a later reply, for a request not done (a done request must be
        # retried first, and every step on that request conflicts with its retry)
        accesses += [(("request", r), Mode.WRITE) for r in range(config.max_requests)
                     if r >= len(state.requests) or state.requests[r].stage is not Stage.DONE]
        accesses += [(("shadow", f), Mode.INVALIDATE) for f in range(config.front_ends)]
        accesses += [(("L1",), Mode.WRITE), (("L2",), Mode.WRITE)]
    return Footprint(tuple(accesses))


def _receive(config: Config, state: State, action: Action) -> Footprint:
    # The request a message belongs to is in flight: no step writes its items until its
    # reply is taken, after this message is consumed (`test_messages_belong_to_requests_
    # in_flight`), so the request is not part of the footprint.
    engine = _as(t.P1Receive, action).engine
    crashes = not config.variant.reports_misses or config.variant.receiver_lru is not LruFlaw.NONE
    return Footprint((
        (("to_engine", engine), Mode.POP), (("receiver", engine), Mode.WRITE),
        (("to_front_end",), Mode.APPEND), (("processings",), Mode.PEEK), (("L3",), Mode.WRITE),
    ), may_fault=crashes)


def _clear_both(config: Config, state: State, action: Action) -> Footprint:
    accesses: list[tuple[Location, Mode]] = [(("reset",), Mode.READ)]
    for fe in range(config.front_ends):
        accesses += [(("shadow", fe), Mode.WIPE), (("midpipe", fe), Mode.READ)]
    for engine in range(config.engines):
        accesses += [(("receiver", engine), Mode.WIPE), (("to_engine", engine), Mode.READ)]
    return Footprint(tuple(accesses))


def _p0_wipe(*, reads_midpipe: bool = False, writes_reset: bool = False) -> FootprintOf:
    """A front end's shadow wiped (a clear, a restart, a clear for reset): a drift event;
    a restart's guard reads whether the front end is mid-pipeline; a clear for reset sets
    the pending reset its guard reads."""
    def wipe(config: Config, state: State, action: Action) -> Footprint:
        assert isinstance(action, (t.P0Clear, t.P0Restart, t.P0ClearForReset))
        front_end = action.front_end
        accesses: list[tuple[Location, Mode]] = [
            (("shadow", front_end), Mode.WIPE), (("L3",), Mode.CLEAR)]
        if reads_midpipe:
            accesses.append((("midpipe", front_end), Mode.READ))
        if writes_reset:
            accesses.append((("reset",), Mode.WRITE))
        return Footprint(tuple(accesses))
    return wipe


def _p1_wipe(config: Config, state: State, action: Action) -> Footprint:
    assert isinstance(action, (t.P1Clear, t.P1Restart))
    return Footprint(((("receiver", action.engine), Mode.WIPE), (("L3",), Mode.CLEAR)))


def _p1_reset(config: Config, state: State, action: Action) -> Footprint:
    accesses: list[tuple[Location, Mode]] = [(("reset",), Mode.WRITE), (("L3",), Mode.CLEAR)]
    accesses += [(("receiver", e), Mode.WIPE) for e in range(config.engines)]
    return Footprint(tuple(accesses))


# Groups: the named sets of actions that enabling sets refer to (`Group`).

def _in(*found: Group) -> GroupsOf:
    return lambda action: found


def _handle_groups(action: Action) -> tuple[Group, ...]:
    return (("ends",), ("send", _as(t.P0Handle, action).engine))


def _process_groups(action: Action) -> tuple[Group, ...]:
    return (("ends",), ("process", _as(t.P0Process, action).rid))


def _update_groups(action: Action) -> tuple[Group, ...]:
    update = _as(t.P0UpdateItem, action)
    first: tuple[Group, ...] = (("first update", update.rid),) if update.engine == 0 else ()
    return (("ends",), ("update", update.rid), *first, ("send", update.engine))


def _retry_groups(action: Action) -> tuple[Group, ...]:
    return (("retry", _as(t.Retry, action).rid),)


# Necessary enabling sets: a false conjunct of the guard, and the only steps that make it true.

def _needs(*found: Group) -> EnablingOf:
    return lambda state, action: found


def _request_step(state: State, action: Action) -> tuple[Group, ...]:
    assert isinstance(action, (t.P0Handle, t.P0HandleRejected, t.P0Process))
    if action.rid >= len(state.requests):  # the request does not exist yet
        return (("submit",),)
    return (("retry", action.rid),)  # it is not submitted: only a retry resubmits it


def _update_enabling(state: State, action: Action) -> tuple[Group, ...]:
    rid = _as(t.P0UpdateItem, action).rid
    stage = state.requests[rid].stage if rid < len(state.requests) else None
    if stage in (Stage.PROCESSED, Stage.UPDATING):  # waits to be the sending update
        return (("first update", rid),)
    return (("process", rid),)


def _receive_enabling(state: State, action: Action) -> tuple[Group, ...]:
    # Its engine's queue is too short: a send to it.
    return (("send", _as(t.P1Receive, action).engine),)


def _own_payload_enabling(state: State, action: Action) -> tuple[Group, ...]:
    # Its engine's queue is too short (a send to it), or the message at its index carries no
    # reference to its own payload (a receive moves another message there).
    return (("send", _as(t.P1Receive, action).engine), ("receive",))


def _idle_enabling(*, own_front_end: bool) -> EnablingOf:
    """A step that waits for nothing to be in flight (every front end's attempts, or only
    its own front end's for a restart, between probe and send; then the pending reset;
    then messages)."""
    def enabling(state: State, action: Action) -> tuple[Group, ...]:
        mine = _as(t.P0Restart, action).front_end if own_front_end else None
        mid = [r.rid for r in state.requests if r.stage in (Stage.PROCESSED, Stage.UPDATING)
               and (mine is None or r.front_end == mine)]
        if mid:  # an attempt between probe and send must finish
            return tuple(("update", rid) for rid in mid)
        if state.reset_pending:
            return (("p1 reset",),)
        return (("receive",),)  # a message is in flight
    return enabling


def _always_enabled(state: State, action: Action) -> tuple[Group, ...]:
    raise AssertionError(f"{action!r} is disabled only in a faulted state")


RULES: dict[type[Action], Rules] = {
    t.Submit: Rules(_submits, _submit, _in(("submit",)),
                    _needs(("ends",))),  # the unfinished count is at its bound: an attempt ends
    t.P0Handle: Rules(_per_request_and_engine(t.P0Handle), _handle, _handle_groups,
                      _request_step),
    t.P0Process: Rules(_per_request(t.P0Process), _process, _process_groups, _request_step),
    t.P0UpdateItem: Rules(_per_request_and_engine(t.P0UpdateItem), _update, _update_groups,
                          _update_enabling),
    t.P0HandleRejected: Rules(_per_request(t.P0HandleRejected), _rejected, _in(("ends",)),
                              _request_step),
    t.P0HandleRejectedUndo: Rules(_per_request(t.P0HandleRejectedUndo), _rejected,
                                  _in(("ends",)), _request_step),
    t.P1Receive: Rules(_receives(t.P1Receive), _receive, _in(("receive",)), _receive_enabling),
    # The other choice on a receive (D9) has the same footprint: it only hands over another
    # tensor for a reference that misses.
    t.P1ReceiveOwnPayload: Rules(_receives(t.P1ReceiveOwnPayload), _receive, _in(("receive",)),
                                 _own_payload_enabling),
    t.P0ReceiveReply: Rules(_once(t.P0ReceiveReply), _receive_reply, _in(("reply",), ("ends",)),
                            _needs(("receive",))),  # no reply: P1 must answer a message
    t.Retry: Rules(_per_request(t.Retry), _retry, _retry_groups,
                   _needs(("reply",))),  # only taking a miss reply sets the outcome MISS
    t.ClearBoth: Rules(_once(t.ClearBoth), _clear_both, _in(),
                       _idle_enabling(own_front_end=False), clearing=True),
    t.P0Clear: Rules(_per_front_end(t.P0Clear), _p0_wipe(), _in(), _always_enabled,
                     clearing=True),
    t.P1Clear: Rules(_per_engine(t.P1Clear), _p1_wipe, _in(), _always_enabled, clearing=True),
    t.P0ClearForReset: Rules(_per_front_end(t.P0ClearForReset), _p0_wipe(writes_reset=True),
                             _in(("clear for reset",)),
                             _needs(("p1 reset",)), clearing=True),  # a reset is pending
    t.P1Reset: Rules(_once(t.P1Reset), _p1_reset, _in(("p1 reset",)),
                     _needs(("clear for reset",)), clearing=True),  # no reset is pending
    t.P0Restart: Rules(_per_front_end(t.P0Restart), _p0_wipe(reads_midpipe=True), _in(),
                       _idle_enabling(own_front_end=True), clearing=True),
    t.P1Restart: Rules(_per_engine(t.P1Restart), _p1_wipe, _in(), _always_enabled,
                       clearing=True),
}
"""Per action class of `spec.ACTION_TYPES`, how partial-order reduction treats it."""
