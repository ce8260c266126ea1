"""Stubborn sets (Valmari; LTSmin's partial-order reduction): which enabled actions of a
state the explorer expands.

A set T of actions (enabled or not) is stubborn in state s when
  D0  T holds an enabled action (if any is enabled);
  D1  every enabled action t in T conflicts with no action outside T: an action outside T
      that runs first neither disables t nor changes what t does, so t can be moved in
      front of any sequence of actions outside T (`footprint.conflict`);
  D2  every disabled action in T has a *necessary enabling set* in T: actions one of which
      must run before it can be enabled (`necessary_enabling`);
and the explorer expands `enabled(s) & T` only. Closing {seed} under "add the conflicting
actions of every enabled member, the necessary enabling set of every disabled member" gives
a stubborn set; `ample` tries every enabled seed and keeps the smallest. Two more conditions,
stated in `docs/explore.md`, make the reduced graph keep every verdict:

- the expanded set holds an owed step (`is_obligation`) or is every enabled action (so a
  quiescent state, where L4 is judged, is reached by the same path length as without the
  reduction);
- the cycle proviso: the expanded set holds no `CLEARING` step, and every other step
  increases `progress` (`check_progress` verifies it on every edge built), so every cycle
  of the reduced graph runs through fully expanded states and no step is postponed
  around it forever.

Actions that can never be enabled again from s (the environment lacks their source, their
request would exceed the bounds, their retries are spent) are left out of the universe: they
cannot run on any path from s, so they conflict with nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from model_checks.action_tables import entry
from model_checks.explore.graph import Graph
from model_checks.explore.reduction.footprint import Footprint, conflict, footprint
from spec import Action, Config, Drift, Outcome, Stage, State, initial
from spec.transitions import (
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
from spec.transitions.client import all_requests, request_fits_unless_d8, well_formed


def universe(config: Config) -> tuple[Action, ...]:
    """Every action that is enabled in some state of this configuration (a superset): each
    class's instances over the configuration's bounds, those whose drift source is off left
    out."""
    rids = range(config.max_requests)
    engines = range(config.engines)
    front_ends = range(config.front_ends)
    actions: list[Action] = [
        Submit(items, fe) for items in all_requests(config) for fe in front_ends
        if well_formed(config, items) and request_fits_unless_d8(config, items)
    ]
    actions += [P0Handle(r, e) for r in rids for e in engines]
    actions += [P0Process(r) for r in rids]
    actions += [P0UpdateItem(r, e) for r in rids for e in engines]
    actions += [P0HandleRejected(r) for r in rids]
    # At most one message per request is in flight, so an engine's queue is never longer.
    actions += [P1Receive(i, e) for e in engines for i in range(config.max_requests)]
    actions += [P0ReceiveReply(), *(Retry(r) for r in rids), ClearBoth()]
    actions += [P0Clear(f) for f in front_ends] + [P1Clear(e) for e in engines]
    actions += [P0ClearForReset(f) for f in front_ends] + [P1Reset()]
    actions += [P0Restart(f) for f in front_ends] + [P1Restart(e) for e in engines]
    return tuple(a for a in actions if a.available(config)
                 and not (isinstance(a, P1Receive) and a.index > 0
                          and not config.enables(Drift.D1)))


Group = tuple[object, ...]
"""A named set of actions of the universe (`groups`): ("submit",), ("reply",),
("receive",), ("ends",) (steps that may end an attempt), ("retry", r), ("process", r),
("update", r) (every update of r), ("first update", r) (r's update that does not send),
("send", e) (steps that may send to engine e), ("p1 reset",), ("clear for reset",)."""


def groups(action: Action) -> tuple[Group, ...]:
    """The groups `action` belongs to (`GROUPS`)."""
    return entry(GROUPS, action)(action)


def _update_groups(action: Action) -> tuple[Group, ...]:
    assert isinstance(action, P0UpdateItem)
    first: tuple[Group, ...] = (("first update", action.rid),) if action.engine == 0 else ()
    return (("ends",), ("update", action.rid), *first, ("send", action.engine))


def _handle_groups(action: Action) -> tuple[Group, ...]:
    assert isinstance(action, P0Handle)
    return (("ends",), ("send", action.engine))


def _process_groups(action: Action) -> tuple[Group, ...]:
    assert isinstance(action, P0Process)
    return (("ends",), ("process", action.rid))


def _retry_groups(action: Action) -> tuple[Group, ...]:
    assert isinstance(action, Retry)
    return (("retry", action.rid),)


def _constant(*found: Group) -> Callable[[Action], tuple[Group, ...]]:
    return lambda action: found


GROUPS: dict[type[Action], Callable[[Action], tuple[Group, ...]]] = {
    Submit: _constant(("submit",)),
    P0Handle: _handle_groups,
    P0Process: _process_groups,
    P0UpdateItem: _update_groups,
    P0HandleRejected: _constant(("ends",)),
    P1Receive: _constant(("receive",)),
    P0ReceiveReply: _constant(("reply",), ("ends",)),
    Retry: _retry_groups,
    ClearBoth: _constant(),
    P0Clear: _constant(),
    P1Clear: _constant(),
    P0ClearForReset: _constant(("clear for reset",)),
    P1Reset: _constant(("p1 reset",)),
    P0Restart: _constant(),
    P1Restart: _constant(),
}
"""Per action class, the groups its actions belong to (a class in no group: none)."""


def necessary_enabling(config: Config, state: State, action: Action) -> tuple[Group, ...]:
    """Groups of actions one of which must run before the disabled `action` is enabled
    (read off its guard: a false conjunct, and the only steps that make it true;
    `NECESSARY_ENABLING`)."""
    return entry(NECESSARY_ENABLING, action)(state, action)


def _request_step(state: State, action: Action) -> tuple[Group, ...]:
    assert isinstance(action, P0Handle | P0HandleRejected | P0Process)
    if action.rid >= len(state.requests):  # the request does not exist yet
        return (("submit",),)
    return (("retry", action.rid),)  # it is not submitted: only a retry resubmits it


def _update_enabling(state: State, action: Action) -> tuple[Group, ...]:
    assert isinstance(action, P0UpdateItem)
    stage = state.requests[action.rid].stage if action.rid < len(state.requests) else None
    if stage in (Stage.PROCESSED, Stage.UPDATING):  # waits to be the sending update
        return (("first update", action.rid),)
    return (("process", action.rid),)


def _receive_enabling(state: State, action: Action) -> tuple[Group, ...]:
    assert isinstance(action, P1Receive)  # its engine's queue is too short: a send to it
    return (("send", action.engine),)


def _wipe_enabling(state: State, action: Action) -> tuple[Group, ...]:
    mid = [r.rid for r in state.requests if r.stage in (Stage.PROCESSED, Stage.UPDATING)
           and (not isinstance(action, P0Restart) or r.front_end == action.front_end)]
    if mid:  # an attempt between probe and send must finish
        return tuple(("update", rid) for rid in mid)
    if state.reset_pending:
        return (("p1 reset",),)
    return (("receive",),)  # a message is in flight


def _always_enabled(state: State, action: Action) -> tuple[Group, ...]:
    raise AssertionError(f"{action!r} is disabled only in a faulted state")


def _needs(*found: Group) -> Callable[[State, Action], tuple[Group, ...]]:
    return lambda state, action: found


NECESSARY_ENABLING: dict[type[Action], Callable[[State, Action], tuple[Group, ...]]] = {
    Submit: _needs(("ends",)),  # the unfinished count is at its bound: an attempt ends
    P0Handle: _request_step,
    P0Process: _request_step,
    P0UpdateItem: _update_enabling,
    P0HandleRejected: _request_step,
    P1Receive: _receive_enabling,
    P0ReceiveReply: _needs(("receive",)),  # no reply: P1 must answer a message
    Retry: _needs(("reply",)),  # only taking a miss reply sets the outcome MISS
    ClearBoth: _wipe_enabling,
    P0Clear: _always_enabled,
    P1Clear: _always_enabled,
    P0ClearForReset: _needs(("p1 reset",)),  # a reset is pending
    P1Reset: _needs(("clear for reset",)),  # no reset is pending
    P0Restart: _wipe_enabling,
    P1Restart: _always_enabled,
}
"""Per action class, what must run before a disabled action of it is enabled."""


CLEARING: tuple[type[Action], ...] = (ClearBoth, P0Clear, P1Clear, P0ClearForReset, P1Reset,
                                      P0Restart, P1Restart)
"""The steps that make no progress (`progress`): they only wipe caches or toggle the
pending reset. A reduced expansion never includes one (the cycle proviso, `progress`)."""


def progress(state: State) -> int:
    """A measure every step other than `CLEARING` strictly increases: per request of k
    items, 1 + (k + 5) x its retries + its phase (submitted 0, processed 1, updating 2 +
    items done, message in flight k + 2, reply in flight k + 3, done k + 4). A submit adds
    a request; P0's steps, P1's receive and taking the reply each move one request's phase
    on; a retry adds k + 5 and resets the phase. `check_progress` verifies it on every edge
    of a reduced graph."""
    sent = {m.rid for m in state.to_engine}
    total = 0
    for request in state.requests:
        stage, k = request.stage, len(request.items)
        if stage is Stage.SUBMITTED:
            phase = 0
        elif stage is Stage.PROCESSED:
            phase = 1
        elif stage is Stage.UPDATING:
            phase = 2 + (request.work.done if request.work is not None else 0)
        elif stage is Stage.IN_FLIGHT:
            phase = k + 2 if request.rid in sent else k + 3
        else:
            phase = k + 4
        total += 1 + (k + 5) * request.retries + phase
    return total


class ProgressBroken(AssertionError):
    """A step outside `CLEARING` did not increase `progress`: the cycle proviso's premise
    fails for this spec, and the reduced graph may have postponed an action forever."""


@dataclass
class Reducer:
    """Chooses the actions to expand in each state of one configuration.
    `declared_independent`: pairs of action classes treated as independent whatever their
    footprints (empty; set only by the test that shows a wrong dependence is caught).

    Every footprint but taking a reply's is the same in every state (`footprint`), so the
    conflicts between universe actions are computed once; those with the reply, per state.
    Actions are handled by their index in `actions`."""

    config: Config
    declared_independent: frozenset[tuple[type[Action], type[Action]]] = frozenset()
    actions: tuple[Action, ...] = field(init=False)
    reduced_states: int = 0  # states expanded with fewer actions than enabled

    def __post_init__(self) -> None:
        self.actions = universe(self.config)
        self._number = {a: i for i, a in enumerate(self.actions)}
        self._reply = self._number.get(P0ReceiveReply())
        probe = initial(self.config)
        self._prints = [footprint(self.config, probe, a) for a in self.actions]
        count = len(self.actions)
        self._static = [
            [j for j in range(count) if j != i and j != self._reply and i != self._reply
             and self._conflict(i, self._prints[i], j, self._prints[j])]
            for i in range(count)]
        self._groups: dict[Group, list[int]] = {}
        for i, action in enumerate(self.actions):
            for group in groups(action):
                self._groups.setdefault(group, []).append(i)
        self._rid = [getattr(a, "rid", None) for a in self.actions]
        self._submit = [isinstance(a, Submit) for a in self.actions]
        self._owed = [a.is_obligation() and not isinstance(a, CLEARING) for a in self.actions]
        self._clearing = [isinstance(a, CLEARING) for a in self.actions]
        self._reply_cache: dict[Footprint, list[int]] = {}

    def _conflict(self, i: int, a: Footprint, j: int, b: Footprint) -> bool:
        if self.declared_independent and self._declared(self.actions[i], self.actions[j]):
            return False
        return conflict(a, b)

    def _declared(self, a: Action, b: Action) -> bool:
        pair = (type(a), type(b))
        return pair in self.declared_independent or pair[::-1] in self.declared_independent

    def ample(self, state: State, enabled: list[Action]) -> list[Action]:
        """The enabled actions of the smallest stubborn set found that holds an owed step
        and no `CLEARING` step, in `enabled`'s order; `enabled` itself when there is none."""
        if len(enabled) <= 1:
            return enabled
        on = {self._number[a] for a in enabled}
        live = self._live(state)
        reply = self._reply_conflicts(state, live)
        best: set[int] | None = None
        for seed in sorted(on):
            if not self._owed[seed] or (best is not None and seed in best):
                continue
            bound = len(best) if best is not None else len(on)
            chosen = self._closure(state, seed, live, on, reply, bound)
            if chosen is not None:
                best = chosen
        if best is None:
            return enabled
        self.reduced_states += 1
        return [a for a in enabled if self._number[a] in best]

    def _live(self, state: State) -> list[bool]:
        """Per universe action: can some path from `state` still enable it? Not in a
        faulted state (absorbing); not a submit once the requests are all made; not a step
        on a request that is done and cannot be retried (a request leaves DONE only
        through a retry, which needs a miss and retries left)."""
        if state.fault is not None:
            return [False] * len(self.actions)
        full = len(state.requests) >= self.config.max_requests
        over = {r.rid for r in state.requests if r.stage is Stage.DONE
                and (r.outcome is not Outcome.MISS or r.retries >= self.config.max_retries)}
        return [not (full and self._submit[i]) and self._rid[i] not in over
                for i in range(len(self.actions))]

    def _reply_conflicts(self, state: State, live: list[bool]) -> set[int]:
        """The actions conflicting with taking a reply, in this state."""
        if self._reply is None:
            return set()
        mine = footprint(self.config, state, self.actions[self._reply])
        known = self._reply_cache.get(mine)
        if known is None:
            known = self._reply_cache[mine] = [
                j for j in range(len(self.actions))
                if j != self._reply and self._conflict(self._reply, mine, j, self._prints[j])]
        return {j for j in known if live[j]}

    def _closure(self, state: State, seed: int, live: list[bool], on: set[int],
                 reply: set[int], bound: int) -> set[int] | None:
        """The enabled members of the stubborn set grown from `seed`, or None once they
        reach `bound` (no better than what is known) or take in a `CLEARING` step."""
        members = {seed}
        work = [seed]
        chosen: set[int] = set()
        while work:
            i = work.pop()
            if i in on:
                if self._clearing[i]:
                    return None
                chosen.add(i)
                if len(chosen) >= bound:
                    return None
                grown: Iterable[int] = reply if i == self._reply else self._static[i]
                if i in reply:  # the conflict with taking a reply is symmetric
                    assert self._reply is not None
                    grown = [*grown, self._reply]
            else:
                grown = [j for group in necessary_enabling(self.config, state, self.actions[i])
                         for j in self._groups.get(group, ())]
            for j in grown:
                if live[j] and j not in members:
                    members.add(j)
                    work.append(j)
        return chosen


def check_progress(graph: Graph) -> None:
    """Raise `ProgressBroken` unless every edge of `graph` other than a `CLEARING` step
    increases `progress` (so every cycle of the graph is made of `CLEARING` steps, which a
    reduced expansion never takes: every cycle passes through fully expanded states)."""
    measure = [progress(state) for state in graph.states]
    for source, out in enumerate(graph.edges):
        for action, target in out:
            if not isinstance(action, CLEARING) and measure[target] <= measure[source]:
                raise ProgressBroken(
                    f"{action!r} from state {source} does not increase the progress measure")
