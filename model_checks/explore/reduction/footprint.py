"""What each action of the spec reads and writes: the footprints partial-order reduction
compares to decide which steps commute.

A footprint lists (location, mode) pairs. Locations name the parts of a `State` (and of the
monitors' memories, which the explorer searches in product with the graph) that an action
touches; modes say how. Two footprints *conflict* when some location is touched by both in
modes that do not commute (`commute`). Every footprint below is read off the action's guard
and `apply` in `spec/transitions/` (the derivation, action by action, is in
`docs/explore.md`, "Partial-order reduction"); a change to the spec's transitions must be
mirrored here, and the comparison tests against the unreduced search
(`tests/explore/test_explore_por.py`) are what catches a footprint that is too small.

`last_delivery` is no location: every step clears it and only P1's receive sets it, so it
is the label of the step that set it (a function of what that step read), never an input of
another step.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from spec import Config, LruFlaw, Stage, State
from spec.transitions import (
    Action,
    ClearBoth,
    P0Clear,
    P0ClearForReset,
    P0Handle,
    P0HandleRejected,
    P0Process,
    P0ReceiveReply,
    P0Restart,
    P0UpdateItem,
    P1Clear,
    P1Receive,
    P1Reset,
    P1Restart,
    Retry,
    Submit,
)

Location = tuple[object, ...]
"""("shadow", f), ("receiver", e), ("to_engine", e), ("to_front_end",), ("request", r),
("count",) (how many requests exist and how many are unfinished), ("processings",),
("reset",) (`reset_pending`), ("midpipe", f) (front end f holds an attempt between probe
and send), and the monitors' memories ("L1",), ("L2",), ("L3",)."""


class Mode(enum.Enum):
    READ = "read"
    WRITE = "write"  # read and write
    APPEND = "append"  # a queue or an append-only sequence: add at the end
    POP = "pop"  # a queue: remove an element that exists (the step is enabled)
    PEEK = "peek"  # an append-only sequence: read elements that already exist
    SUBMIT = "submit"  # count: guard on both counts, then one more request, unfinished
    DEC = "decrement"  # count: one fewer unfinished request (an attempt ends)
    INC = "increment"  # count: one more unfinished request (a retry)
    CLEAR = "clear"  # a monitor memory: reset to empty (a drift event, for L3)
    WIPE = "wipe"  # a cache: every entry removed (clears, resets, restarts)
    INVALIDATE = "invalidate"  # a cache: given identities removed (P0 taking a miss reply)


_COMMUTING: frozenset[frozenset[Mode]] = frozenset(
    frozenset(pair) for pair in (
        (Mode.READ, Mode.READ),
        (Mode.READ, Mode.PEEK),
        (Mode.PEEK, Mode.PEEK),
        # Appending never moves what exists: a peek or a pop of an existing element reads
        # or removes the same element before and after.
        (Mode.PEEK, Mode.APPEND),
        (Mode.APPEND, Mode.POP),
        # An ending attempt never disables an enabled submit (it only lowers the unfinished
        # count) and the submit's effect (rid = number of requests) does not read it.
        (Mode.SUBMIT, Mode.DEC),
        (Mode.DEC, Mode.DEC),
        (Mode.DEC, Mode.INC),
        (Mode.INC, Mode.INC),
        (Mode.CLEAR, Mode.CLEAR),
        # Removing entries commutes with removing entries: either order leaves the cache
        # without the union of what each removes (empty, if one wipes it).
        (Mode.WIPE, Mode.WIPE),
        (Mode.WIPE, Mode.INVALIDATE),
        (Mode.INVALIDATE, Mode.INVALIDATE),
    )
)


def commute(a: Mode, b: Mode) -> bool:
    """True when two accesses to one location, in either order, leave it the same and
    neither enables or disables the other's step."""
    return frozenset((a, b)) in _COMMUTING


@dataclass(frozen=True)
class Footprint:
    """What one action touches in one state. `may_fault`: the step may set `fault`, which
    every guard reads (a faulted state is absorbing), so it conflicts with every step."""

    accesses: tuple[tuple[Location, Mode], ...]
    may_fault: bool = False


def conflict(a: Footprint, b: Footprint) -> bool:
    """True unless the two steps commute and neither disables the other."""
    if a.may_fault or b.may_fault:
        return True
    modes: dict[Location, list[Mode]] = {}
    for location, mode in a.accesses:
        modes.setdefault(location, []).append(mode)
    return any(
        not commute(mode, other)
        for location, mode in b.accesses
        for other in modes.get(location, ())
    )


def footprint(config: Config, state: State, action: Action) -> Footprint:
    """The action's footprint in `state`, enabled or not. For a disabled action it covers
    every state in which the action may later be enabled. Only taking a reply's depends on
    the state (which reply is at the head); every other is the same in every state, up to
    the front end of a request that exists (fixed once it exists; before, every front end),
    so `footprint(config, initial(config), action)` covers every state."""
    handler = FOOTPRINTS.get(type(action))
    if handler is None:
        raise TypeError(f"no footprint for {type(action).__name__}: add one to footprint.py")
    return handler(config, state, action)


def _front_ends_of(config: Config, state: State, rid: int) -> tuple[int, ...]:
    if rid < len(state.requests):
        return (state.requests[rid].front_end,)
    return tuple(range(config.front_ends))


def _shadow_faults(config: Config) -> bool:
    """A shadow update can hang only on a ghost slot (`lru._evict_until_fits`), which only
    a flawed LRU records; other flaws never stop eviction."""
    return config.variant.shadow_lru is not LruFlaw.NONE


def _p0_attempt(config: Config, state: State, rid: int, *, sends_to: int | None,
                probes_only: bool = False, mid: bool = False, drift: bool = False,
                ) -> Footprint:
    """The P0 pipeline steps (handle, rejected handle, process, one item's update)."""
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


def _submit(config: Config, state: State, action: Action) -> Footprint:
    # The request it adds is no location: no step can touch a request before it exists,
    # and every submit conflicts with every other (the count), so none of them creates it
    # on a path that leaves this one out.
    assert isinstance(action, Submit)
    accesses: list[tuple[Location, Mode]] = [(("count",), Mode.SUBMIT)]
    if action.drift_event() is not None:  # a reused identity (D7) is a drift event for L3
        accesses.append((("L3",), Mode.CLEAR))
    return Footprint(tuple(accesses))


def _retry(config: Config, state: State, action: Action) -> Footprint:
    assert isinstance(action, Retry)
    return Footprint(((("request", action.rid), Mode.WRITE), (("count",), Mode.INC)))


def _handle(config: Config, state: State, action: Action) -> Footprint:
    assert isinstance(action, P0Handle)
    return _p0_attempt(config, state, action.rid, sends_to=action.engine)


def _rejected(config: Config, state: State, action: Action) -> Footprint:
    # The message it appends is removed in the same step: to_engine is untouched.
    assert isinstance(action, P0HandleRejected)
    return _p0_attempt(config, state, action.rid, sends_to=None, drift=True)


def _process(config: Config, state: State, action: Action) -> Footprint:
    assert isinstance(action, P0Process)
    return _p0_attempt(config, state, action.rid, sends_to=None, probes_only=True, mid=True,
                       drift=True)


def _update(config: Config, state: State, action: Action) -> Footprint:
    # Any update may be the one that sends (the last), to the engine the action names.
    assert isinstance(action, P0UpdateItem)
    return _p0_attempt(config, state, action.rid, sends_to=action.engine, mid=True)


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
    assert isinstance(action, P1Receive)
    crashes = not config.variant.reports_misses or config.variant.receiver_lru is not LruFlaw.NONE
    return Footprint((
        (("to_engine", action.engine), Mode.POP), (("receiver", action.engine), Mode.WRITE),
        (("to_front_end",), Mode.APPEND), (("processings",), Mode.PEEK), (("L3",), Mode.WRITE),
    ), may_fault=crashes)


def _clear_both(config: Config, state: State, action: Action) -> Footprint:
    accesses: list[tuple[Location, Mode]] = [(("reset",), Mode.READ)]
    for fe in range(config.front_ends):
        accesses += [(("shadow", fe), Mode.WIPE), (("midpipe", fe), Mode.READ)]
    for engine in range(config.engines):
        accesses += [(("receiver", engine), Mode.WIPE), (("to_engine", engine), Mode.READ)]
    return Footprint(tuple(accesses))


def _p0_clear(config: Config, state: State, action: Action) -> Footprint:
    assert isinstance(action, (P0Clear, P0Restart, P0ClearForReset))
    accesses: list[tuple[Location, Mode]] = [
        (("shadow", action.front_end), Mode.WIPE), (("L3",), Mode.CLEAR)]
    if isinstance(action, P0Restart):
        accesses.append((("midpipe", action.front_end), Mode.READ))
    if isinstance(action, P0ClearForReset):
        accesses.append((("reset",), Mode.WRITE))
    return Footprint(tuple(accesses))


def _p1_wipe(config: Config, state: State, action: Action) -> Footprint:
    assert isinstance(action, (P1Clear, P1Restart))
    return Footprint(((("receiver", action.engine), Mode.WIPE), (("L3",), Mode.CLEAR)))


def _p1_reset(config: Config, state: State, action: Action) -> Footprint:
    accesses: list[tuple[Location, Mode]] = [(("reset",), Mode.WRITE), (("L3",), Mode.CLEAR)]
    accesses += [(("receiver", e), Mode.WIPE) for e in range(config.engines)]
    return Footprint(tuple(accesses))


FOOTPRINTS: dict[type[Action], Callable[[Config, State, Action], Footprint]] = {
    Submit: _submit, Retry: _retry, P0Handle: _handle, P0HandleRejected: _rejected,
    P0Process: _process, P0UpdateItem: _update, P0ReceiveReply: _receive_reply,
    P1Receive: _receive, ClearBoth: _clear_both, P0Clear: _p0_clear, P0Restart: _p0_clear,
    P0ClearForReset: _p0_clear, P1Clear: _p1_wipe, P1Restart: _p1_wipe, P1Reset: _p1_reset,
}
"""Per action class, its footprint (every class of `spec.ACTION_TYPES`)."""

__all__ = ["Footprint", "Location", "Mode", "commute", "conflict", "footprint"]
