"""Stubborn sets (Valmari; LTSmin's partial-order reduction): which enabled actions of a
state the explorer expands.

A set T of actions (enabled or not) is stubborn in state s when
  D0  T holds an enabled action (if any is enabled);
  D1  every enabled action t in T conflicts with no action outside T: an action outside T
      that runs first neither disables t nor changes what t does, so t can be moved in
      front of any sequence of actions outside T (`footprint.conflict` of the actions'
      footprints, `rules.footprint`);
  D2  every disabled action in T has a *necessary enabling set* in T: actions one of which
      must run before it can be enabled (`rules.necessary_enabling`);
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

What each action class contributes (its instances, footprint, groups and enabling set) is
its entry in `rules.RULES`; this module only combines them. Actions that can never be
enabled again from s (the environment lacks their source, their request would exceed the
bounds, their retries are spent) are left out of the universe: they cannot run on any path
from s, so they conflict with nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from model_checks.explore.graph import Graph
from model_checks.explore.lru_judging.reduction.footprint import Footprint, conflict
from model_checks.explore.lru_judging.reduction.rules import (
    RULES,
    Group,
    footprint,
    groups,
    necessary_enabling,
    universe,
)
from spec import Action, Config, Outcome, Stage, State, initial
from spec.transitions import P0ReceiveReply, Submit

CLEARING: tuple[type[Action], ...] = tuple(kind for kind, rules in RULES.items() if rules.clearing)
"""The steps that make no progress (`progress`): they only wipe caches or toggle the
pending reset (`rules.Rules.clearing`). A reduced expansion never includes one (the cycle
proviso, `progress`)."""


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
