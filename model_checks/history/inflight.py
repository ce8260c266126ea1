"""Clears and restarts placed while a serve is open (`InFlight`): the points of a serve the
watcher (`watch.Watcher`) reports, and the bounds that keep their number small.

**Windows.** At the end of a split front-end section (`watch`, **Split front-end
sections**) that found something (a probed hit a check-then-act would act on), a clear of the
front end runs before the serve goes on (`inject`, at most `WINDOWS` per history; not where
D6 is in the environment, `split_windows`).

**Clears in flight.** Where D3 is in the environment, at the end of a serve's front-end
section that found something, the engine is cleared before it receives the message (at
most `IN_FLIGHT` per history, once the caches are warm): the miss reply and the front
end's invalidation run in every such history, not only when the schedule happens to
evict. After each, none runs until as many serves as there are clients began (what it left
is used first, and the references between reach the engine).

**Restarts in flight.** Where D10 is in the environment (not D6), sides restart while a
serve is open (`restart`), at three kinds of point:
- the engine, between two engine sections of a receive, where a serve takes an engine lock
  again after an engine section that found something (`engine_again`, at most
  `INSIDE_RECEIVE` per history: a receive in two critical sections, the second acting on
  what the first found). The watcher (`watch.Watcher.acquiring`) places it in a serve
  begun with no other serve open, and has its client serve the same request once more
  after it with no other serve or drift event in between, so what the restart left is used
  at once: a receive that put back what it found before the restart serves references the
  restarted engine never received, which no order of the spec's steps explains;
- the engine once, between a front end's update that found something and the engine's
  receive (after the clears in flight: the spec's `P1Restart` keeps a message already
  queued);
- the serving front end, once its serve reached the engine (the release of an engine lock,
  or an await after it: its attempt is past its send, where `P0Restart` allows it), at most
  `RESTARTS`, each once as many serves began since the last.
The last two wait until the caches are warm (as many serves as there are clients began).
With more than `FEW_CLIENTS` clients making requests, no restart runs in flight.
After each restart, no clear or restart of the last two kinds runs in flight until as many
serves as there are clients began (what it left is used first). An implementation whose
receive is one critical section sees each restart before or after it, as the spec does.
The restart's own accesses are noted as any client's (it runs on the `window` client).

Each count is raised before its clear or restart is asked for and lowered again if it did
not run: another client may reach a point while the call is open, and reads the count
raised.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

Site = tuple[str, int, str]
"""A frame of the implementation: (file, line, function)."""

WINDOWS = 4
"""At most this many clears of a front end run in split windows per history."""
IN_FLIGHT = 3
"""At most this many clears of the engine run between a front end's update and the
engine's receive per history (after as many serves as there are clients: caches warm)."""
RESTARTS = 3
"""At most this many restarts of a front end run while a serve is in flight per history
(`restart`), once as many serves as there are clients began (caches warm), each once as many
serves began since the last (what it left is then used before the next)."""
INSIDE_RECEIVE = 1
"""At most this many restarts of the engine between two engine sections of a receive per
history (`engine_again`); one restart of the engine between an update and its receive."""
FEW_CLIENTS = 8
"""With more clients making requests than this, no restart runs in flight: each multiplies
the orders the explaining search must try. The bound is the most clients at which the
reference's histories with restarts in flight are checked (8 threads, seeds 1-20 in D10:
`tests/history/test_history_threads.py::test_the_reference_passes_many_schedules`); the
asyncio runs' 50 tasks run none."""


@dataclass
class Serving:
    """A client's open serve: its front end, its sections so far (each the set of
    front-end locations touched, and its sites), whether the open section found something,
    whether a section is open (threads: a lock held), whether it reached the engine, and
    where its last section ended."""

    side: str
    sections: list[tuple[set[str], list[Site]]] = field(default_factory=list)
    found: bool = False
    open: bool = False
    engine: bool = False
    released: Site | None = None
    hit: bool = False
    """Whether a lookup in the engine's state found something since the serve reached the
    engine (a resolved reference the receive may still act on)."""
    restarted: bool = False
    """Whether the engine restarted between two engine sections of this serve
    (`InFlight.engine_again`)."""
    again: bool = False
    """Whether its client serves the same request again next (`watch.Watcher.acquiring`)."""


@dataclass
class InFlight:
    """The clears and restarts of one run placed inside open serves (module docstring), and
    how many of each ran."""

    inject: Callable[[str], bool] | None = None
    """Runs a clear of the given side now, in a window (None: no windows)."""
    restart: Callable[[str], bool] | None = None
    """Runs a restart of the given side now, while the current client's serve is in flight
    (None: none, the environment has no D10)."""
    split_windows: bool = True
    """Whether a split section's window gets a clear of its front end (not where D6 is in
    the environment: the spec itself then lets another request act between a probe and its
    update, so a split is no finding, and its clears only lengthen the search)."""
    windows: int = 0
    in_flight: int = 0
    serves: int = 0
    restarts_by: Counter[str] = field(default_factory=Counter)
    """Restarts run in flight (`restart`), per point: "engine" (between two engine sections
    of a receive), "engine before its receive", "front end"."""

    def __post_init__(self) -> None:
        self._clients = 0  # the clients of the run (`run_by`)
        self._requesting = 0  # those of them that make requests
        self._restarted = 0  # the serves begun at the last restart of a front end in flight
        self._settling = 0  # no clear or restart in flight before this many serves began

    @property
    def restarts(self) -> int:
        """Restarts run in flight (`restart`)."""
        return sum(self.restarts_by.values())

    def run_by(self, clients: int, requesting: int) -> None:
        """The run has `clients` clients, `requesting` of them making requests (the others
        make drift events): told once, before its first serve begins."""
        self._clients, self._requesting = clients, requesting

    def began(self) -> None:
        """A serve began."""
        self.serves += 1

    def window(self, serving: Serving) -> None:
        """A clear of the serving front end now, if its section found something (a probed
        hit a check-then-act would act on) and the bound allows."""
        found, serving.found = serving.found, False
        if (self.inject is not None and self.split_windows and found
                and self.windows < WINDOWS):
            self.windows += 1
            if not self.inject(serving.side):  # (the count read again after the call)
                self.windows -= 1

    def section_found(self) -> None:
        """A serve's front-end section that found something ended, before the engine: the
        engine is cleared before it receives (`IN_FLIGHT`), or, those done, restarted."""
        if self.serves < self._settling:
            return  # what the last restart in flight left is used first
        if (self.inject is not None and self.in_flight < IN_FLIGHT
                and self.serves > self._clients):
            self.in_flight += 1
            if not self.inject("engine"):
                self.in_flight -= 1
            else:  # what it left (a miss, an invalidation) is used before the next
                self._settling = self.serves + self._clients
        else:
            self._run("engine", "engine before its receive")

    def engine_due(self) -> bool:
        """Whether a restart between two engine sections of a receive may still run."""
        return self.restart is not None and self.restarts_by["engine"] < INSIDE_RECEIVE

    def engine_again(self, serving: Serving) -> None:
        """The serve takes an engine lock again after an engine section that found something
        (a receive in two critical sections): the engine restarts first (at most once per
        history; the watcher has let every other open serve end first)."""
        if self.restart is None:
            return
        serving.hit = False
        serving.restarted = self._run("engine", "engine") or serving.restarted

    def front_end(self, serving: Serving, open_serves: Iterable[Serving]) -> None:
        """A restart of the serving front end while its serve is in flight: past its send
        (it reached the engine: the release of an engine lock inside its receive or after
        it, or an await after it) and no other attempt of it (`open_serves`) is between its
        probe and its send (it touched the front end's state and not yet the engine's),
        where the spec lets a front end restart (`P0Restart`), at most `RESTARTS`, each once
        as many serves began since the last."""
        if self.restart is None or self.serves <= self._restarted + self._clients:
            return
        if any(other.side == serving.side and not other.engine and other.sections
               for other in open_serves):
            return  # another attempt of this front end is between its probe and its send
        if self._run(serving.side, "front end"):
            self._restarted = self.serves

    def _run(self, side: str, kind: str) -> bool:
        """A restart of `side` now (its `kind` within its bound, caches warm): whether it
        ran."""
        bound = {"front end": RESTARTS, "engine": INSIDE_RECEIVE}.get(kind, 1)
        inside = kind == "engine"  # (a hit: warm; what an earlier one left is not in its way)
        warm = inside or self.serves > self._clients
        if (self.restart is None or self.restarts_by[kind] >= bound or not warm
                or (self.serves < self._settling and not inside)
                or self._requesting > FEW_CLIENTS):
            return False
        self.restarts_by[kind] += 1
        self._settling = self.serves + self._clients
        if not self.restart(side):
            self.restarts_by[kind] -= 1
            return False
        return True


@dataclass
class Hold:
    """The run held by one client for a restart inside a receive (module docstring,
    **Restarts in flight**, the first kind): while a client holds it (`by`), no other serve
    begins and the drift client makes no event (`may_begin`), and no other clear or restart
    runs in flight (the watcher asks `by`). `settle` gives the current client's turn away
    until a condition holds (a bounded wait: the harness's); None: no hold, no restart
    inside a receive."""

    settle: Callable[[Callable[[], bool]], None] | None = None
    by: str | None = None
    alone: bool = False
    """Whether the holding client's serve began with no other serve open."""

    def found_twice(self, client: str, serving: Serving, flight: InFlight) -> None:
        """`client`'s serve takes an engine lock again after an engine section that found
        something: the first such serve's client takes the run and serves the same request
        again (`Serving.again`); in that serve, begun alone, the engine restarts between
        the sections (`InFlight.engine_again`) and the client serves the request once more."""
        if self.settle is None or not flight.engine_due():
            return
        if self.by is None:
            serving.hit = False
            serving.again = True
            self.by = client
        elif self.by == client and self.alone:
            flight.engine_again(serving)
            serving.again = serving.restarted

    def take_turn(self, client: str, idle: Callable[[], bool]) -> None:
        """Before a serve of `client`: wait while another client holds the run; the client
        holding it waits until no serve is open (`idle`), so its serve begins alone."""
        if self.settle is None:
            return
        self.settle(lambda: self.may_begin(client))
        if self.by == client and not self.alone:
            self.settle(idle)
            self.alone = True

    def may_begin(self, client: str) -> bool:
        """Whether `client` may begin a serve or an event now."""
        return self.by in (None, client)

    def ended(self, client: str, serving: Serving | None) -> None:
        """`client`'s serve ended: one it serves again (`Serving.again`) keeps the run held
        for that serve; any other lets it go."""
        if self.by == client and (serving is None or not serving.again):
            self.by, self.alone = None, False
