"""The checker: explain a history by spec steps consistent with its real-time order.

Each call takes effect between its invocation and its response: a serve call's parts
(`model_checks.history.steps`) in order, each at one point of that interval, and other calls'
parts in between. The search is Wing & Gong's with Lowe's memoization, as porcupine and
Knossos implement it: depth first, from the empty state, a call may take its next part when
no unfinished call returned before it was invoked; a node is (spec state, every call's
progress, the request ids given), and a node seen once is never expanded again (it failed,
or lies on the current path). The work is bounded by a count of expanded nodes (`Limit`),
never by a clock: over it, the answer is `Undecided`, never explained.

An explanation is the sequence of spec steps, the drift sources those steps exercise (each
allowed only where the environment has it: the spec's guards say so) and the drift the
instance itself needs (`Instance.needs`). With no explanation, `shortest_unexplained` finds
the shortest prefix of the history (the first k calls to return, with the calls open then,
each free to have taken any of its parts: `History.as_of`) that has none while the prefix of
k - 1 has one: its k-th call is the first event the spec cannot explain.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from model_checks.history.instance import Instance, NeedsDrift, instance_of
from model_checks.history.log import Call, History
from model_checks.history.steps import DONE_AFTER_P0, Move, end_of, moves, submitted
from spec import Drift, State
from spec import lru as spec_lru
from spec.transitions import Action


@dataclass(frozen=True)
class Limit:
    """How much the search may do: at most `nodes` expanded search nodes per history."""

    nodes: int = 200_000


@dataclass(frozen=True)
class Explained:
    """Every call explained: `steps` (call number, spec action) in the order taken;
    `drift` the sources the steps exercise and the instance needs (with counts: how many
    steps exercise each; a configuration need counts 0); `reordered` replies taken out of the
    queue's order; `explored` nodes expanded. `stopped_by`: the call whose fault (the
    engine's crash, a hang) stopped the system, where one did: the spec has no step after a
    fault, so the calls still open at that point (`unjudged`, each invoked before the
    stopping call returned) are not judged, as a checker treats calls of indeterminate
    outcome."""

    steps: tuple[tuple[int, Action], ...]
    drift: dict[Drift, int]
    reordered: int
    explored: int
    unjudged: tuple[int, ...] = ()
    stopped_by: int | None = None
    choices: tuple[str, ...] = ()
    """The choices the spec allows that the explanation made where they differ (`Move.choice`:
    keep or undo at an engine's refusal), in the order taken."""


@dataclass(frozen=True)
class Unexplained:
    """No order of spec steps explains the calls: `reason`, `explored` nodes expanded
    (every node reachable under the real-time order and the environment)."""

    reason: str
    explored: int
    needs: frozenset[Drift] = field(default_factory=frozenset)


@dataclass(frozen=True)
class Undecided:
    """The search reached its limit (`explored` = `limit.nodes`) before deciding."""

    explored: int
    limit: Limit


Verdict = Explained | Unexplained | Undecided


class _OverLimit(Exception):
    pass


@dataclass
class _Search:
    instance: Instance
    calls: tuple[Call, ...]
    limit: Limit
    ends: tuple[int, ...] = ()
    seen: set[tuple[State, tuple[int, ...], tuple[int, ...]]] = field(default_factory=set)
    explored: int = 0
    submits: tuple[tuple[int, Action], ...] = ()
    final: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    final_missed: bool = False
    open_calls: frozenset[int] = frozenset()
    """Calls still open where the history was cut (`History.as_of`): done at any progress."""

    def __post_init__(self) -> None:
        self.ends = tuple(end_of(c) for c in self.calls)
        self.required = tuple(n for n in range(len(self.calls)) if n not in self.open_calls)
        self.by_return = sorted(range(len(self.calls)), key=lambda n: self.calls[n].returned)

    def eligible(self, progress: tuple[int, ...]) -> Iterator[int]:
        """Calls that may take their next part now (no other unfinished call returned
        before their invocation), in the order to try: by the part's hint where the call
        has one, else by the call's response (a call whose waiting ends early, an awaited
        processing, takes effect just before it returns)."""
        unfinished = [n for n in self.by_return if progress[n] < self.ends[n]]
        if not unfinished:
            return
        first = self.calls[unfinished[0]].returned
        second = self.calls[unfinished[1]].returned if len(unfinished) > 1 else None
        ready = []
        for n in unfinished:
            bound = second if n == unfinished[0] else first
            if bound is None or self.calls[n].invoked < bound:
                ready.append(n)
        yield from sorted(ready, key=lambda n: self._when(n, progress[n]))

    def _when(self, n: int, progress: int) -> int:
        call = self.calls[n]
        part = 0 if progress < DONE_AFTER_P0 else progress - 1
        hint = call.hints[part] if part < len(call.hints) else None
        return call.returned if hint is None else hint

    def children(self, state: State, progress: tuple[int, ...], rids: tuple[int, ...]
                 ) -> Iterator[tuple[int, Move]]:
        for n in self.eligible(progress):
            for move in moves(self.instance, state, self.calls[n], progress[n], rids[n]):
                yield n, move

    def leaves_final(self, state: State) -> bool:
        """Whether the caches of `state` hold what the run left in them (`final`, where
        read): each side's identities, compared as sets (a view's order is not relied
        on)."""
        for side, identities in self.final or ():
            cache = state.receiver if side == "engine" else state.shadows[int(side[2:])]
            if {e.identity for e in spec_lru.entries(cache)} != set(identities):
                return False
        return True

    def open_at_stop(self, path: list[tuple[int, Move]], progress: tuple[int, ...]
                     ) -> tuple[int, ...] | None:
        """At a faulted state (the spec stops: nothing is enabled), the unfinished calls,
        if every one was invoked before the stopping call (the last move's) returned; else
        None (a call began after the system stopped: nothing explains it)."""
        stop = self.calls[path[-1][0]].returned
        open_ = tuple(n for n, (p, e) in enumerate(zip(progress, self.ends, strict=True))
                      if p < e)
        if any(self.calls[n].invoked > stop for n in open_):
            return None
        return open_

    def run(self) -> list[tuple[int, Move]] | None:
        """A path of moves that completes every call, or None; `_OverLimit` past the
        limit."""
        size = len(self.calls)
        state, self.submits, given = submitted(self.instance, self.calls)
        start = (state, (0,) * size, tuple(given.get(c.number, -1) for c in self.calls))
        path: list[tuple[int, Move]] = []
        stack = [(start, self.children(*start))]
        self.seen.add(start)
        while stack:
            (state, progress, rids), children = stack[-1]
            if all(progress[n] == self.ends[n] for n in self.required):
                if self.leaves_final(state):
                    return path
                self.final_missed = True
            if state.fault is not None and self.open_at_stop(path, progress) is not None:
                return path
            child = next(children, None)
            if child is None:
                stack.pop()
                if path:
                    path.pop()
                continue
            n, move = child
            node = (move.state, _set(progress, n, move.progress), _set(rids, n, move.rid))
            if node in self.seen:
                continue
            self.seen.add(node)
            self.explored += 1
            if self.explored > self.limit.nodes:
                raise _OverLimit
            path.append(child)
            stack.append((node, self.children(*node)))
        return None


def _set(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    return (*values[:index], value, *values[index + 1:])


def _explained(search: _Search, path: list[tuple[int, Move]]) -> Explained:
    instance, calls = search.instance, search.calls
    steps = search.submits + tuple(
        (calls[n].number, action) for n, move in path for action in move.actions)
    drift: Counter[Drift] = Counter({d: 0 for d in instance.needs})
    for _, action in steps:
        source = action.drift_event()
        if source is not None:
            drift[source] += 1
    reordered = sum(move.reordered for _, move in path)
    choices = tuple(move.choice for _, move in path if move.choice is not None)
    final = path[-1][1].state if path else None
    if final is None or final.fault is None:
        return Explained(steps, dict(drift), reordered, search.explored, choices=choices)
    progress = [0] * len(calls)
    for n, move in path:
        progress[n] = move.progress
    unjudged = search.open_at_stop(path, tuple(progress)) or ()
    return Explained(steps, dict(drift), reordered, search.explored,
                     tuple(calls[n].number for n in unjudged), calls[path[-1][0]].number,
                     choices)


def explain(history: History, environment: frozenset[Drift], limit: Limit = Limit(),
            open_calls: frozenset[int] = frozenset()) -> Verdict:
    """The verdict on `history` in `environment` within `limit`; the calls numbered in
    `open_calls` were still open where the history was cut (`History.as_of`): each may have
    taken any of its parts, or none."""
    try:
        instance = instance_of(history, environment)
    except NeedsDrift as error:
        return Unexplained(str(error), 0)
    search = _Search(instance, history.calls, limit, final=history.header.final,
                     open_calls=open_calls)
    try:
        path = search.run()
    except _OverLimit:
        return Undecided(limit.nodes, limit)
    if path is None:
        leaves = (" and leaves the caches as the run left them" if search.final_missed
                  else "")
        return Unexplained("no order of spec steps within the calls' intervals produces "
                           f"what they observed{leaves}", search.explored)
    return _explained(search, path)


@dataclass(frozen=True)
class Shortest:
    """The shortest unexplained prefix: the first k calls to return and the calls open then
    (`history`; `open_calls` their numbers in it), whose k-th to return
    (`first_unexplained`, a call number of the full history) is the first event the spec
    cannot explain; `verdict` on it; `explored` over every search made; `exact` False when a
    prefix search was undecided (then the full history is reported)."""

    history: History
    first_unexplained: int
    verdict: Unexplained
    explored: int
    exact: bool
    open_calls: frozenset[int] = frozenset()


def shortest_unexplained(history: History, environment: frozenset[Drift],
                         verdict: Unexplained, limit: Limit = Limit()) -> Shortest:
    """Binary search over prefixes: the least k whose prefix (`History.as_of`: the first k
    calls to return, with the calls open then) is unexplained while the prefix of k - 1 is
    explained (the full history is unexplained: `verdict`). The bisection is sound: a prefix
    with no explanation has none once more calls returned either (an explanation of the
    longer prefix, cut at the earlier response, would explain it)."""
    by_return = sorted(history.calls, key=lambda c: c.returned)
    low, high = 0, len(history.calls)  # prefix(low) explained, prefix(high) unexplained
    best, explored, exact = verdict, verdict.explored, True
    while high - low > 1:
        middle = (low + high) // 2
        cut, open_calls = history.as_of(middle)
        found = explain(cut, environment, limit, open_calls)
        explored += found.explored
        if isinstance(found, Undecided):
            exact = False
            break
        if isinstance(found, Unexplained):
            high, best = middle, found
        else:
            low = middle
    if not exact:
        high, best = len(history.calls), verdict
    cut, open_calls = history.as_of(high)
    return Shortest(cut, by_return[high - 1].number, best, explored, exact, open_calls)
