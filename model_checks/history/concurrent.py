"""N clients calling an implementation's end-to-end path at once, with drift events, under a
seeded schedule: threads (`run_threads`) or asyncio tasks (`run_tasks`); the history of
what they did (`Recorder`).

The instance (`HISTORY_FAMILY`): identities a-d in a 3-byte budget, items of 1 byte (2 bytes for
b and c where D8 is in the environment, so that two items together exceed the budget; 4
bytes for d under D11), a second content per identity under D7, two front ends under D5
(clients alternate). Each client makes `requests` requests of one or two items, every item
with its media, and resends a request that missed (at most twice: a new call each time).
One more client, `drift`, makes the environment's events between the others' calls, spread
across the run: a clear of every side (D3) and a restart of every side (D10), each at least
once. Concurrent clients reorder the engine's deliveries (D1) by construction: D1 joins the
environment the history is checked in (`checked_environment`). Under D2 the engine refuses
some requests' first attempts (`Plan.refused`), where the harness can make it refuse
(`recorder.can_refuse`: the engine declares how, `adapter.Refuses`): the front end's own
refusal path runs inside its call. D4 and D9 are not exercised here (they need the
harness's own channel: lockstep conformance drives them).

Every run watches the sides' shared state (`watch.Watcher`): races by the locks held,
split front-end sections, and, where D3 is in the environment, clears run in their windows
and engine clears between an update and its receive (threads: a `window` thread runs them
while the serving thread waits; tasks: a `window` task, scheduled before the awaiting task
resumes). Where D10 is in the environment (and not D6: `_restarts_in_flight`), sides also
restart while a serve is in flight, at the points the watcher chooses (`watch`: restarts in
flight), run the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import random
from collections.abc import Callable, Coroutine, Generator, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.history.hooks import Hooks, attach
from model_checks.history.inflight import InFlight
from model_checks.history.log import Header, History, final_order
from model_checks.history.preempt import LineTracer, install_locks, no_collection
from model_checks.history.recorder import (
    Labels,
    Recorder,
    RecordingEngine,
    RecordingFrontEnd,
    can_refuse,
    client_name,
)
from model_checks.history.schedule import Scheduler
from model_checks.history.watch import Race, Split, Watcher
from spec import Config, Content, Drift, drift_order
from spec.instances import Family, Items, Sized

T = TypeVar("T")

INHERENT = frozenset({Drift.D1})
"""What concurrent clients do to any deployment: the engine receives requests in another
order than the front end updated for them (D1). Interleaved updates (D6) are not added: a
front end whose probe and update are one critical section never shows them, and one whose
window lets another request evict a probed hit shows D6, which the environment must then
name (V3 absorbs it: a late miss is reprocessed)."""

RETRIES = 2

REFUSED = 1 / 3
"""Under D2, the chance that the engine refuses a request's first attempt (`Plan.refused`):
where it can (`recorder.can_refuse`), the front end's own refusal path runs."""

_D8_SIZED = tuple(Sized(Content(i, v), 2, 2, need="extra_identity") for i in "bc" for v in (0, 1))
_D11_SIZED = tuple(Sized(Content("d", v), 4, 4, need="oversized") for v in (0, 1))
HISTORY_FAMILY = Family(
    identities=("a", "b", "c", "d"), budget=3, max_requests=4, max_in_flight=2,
    max_retries=2, max_items=2, items=Items.FIXED, sizes=(*_D8_SIZED, *_D11_SIZED),
)
"""The workload's instance family (module docstring; `spec.instances`): the spec's default
bounds, which the workload's own clients and retries do not read; b and c of 2 bytes under
D8 (its need of a request over the budget), d of 4 under D11, each content of an identity
(D7's second too) at that size."""


def checked_environment(environment: frozenset[Drift]) -> frozenset[Drift]:
    return environment | INHERENT


def instance_config(variant: str, environment: frozenset[Drift]) -> Config:
    """The spec configuration the workload's contents are coded in (`HISTORY_FAMILY`, in the
    environment the history is checked in)."""
    from spec import variant_named

    return HISTORY_FAMILY.config(variant_named(variant), checked_environment(environment))


@dataclass(frozen=True)
class Plan:
    """What the clients will do: per client, its requests (contents); the drift client's
    events as (side, op)."""

    requests: tuple[tuple[tuple[Content, ...], ...], ...]
    events: tuple[tuple[str, str], ...]
    refused: frozenset[tuple[int, int]] = frozenset()
    """(client, request) whose first attempt the engine refuses (D2: `REFUSED` of them)."""


def plan(config: Config, clients: int, requests: int, seed: int) -> Plan:
    """A seeded plan for `clients` clients of `requests` requests each; the drift client
    makes every event the environment allows on every side at least once (a clear of each
    side under D3, a restart of each under D10), in a seeded order, so that no run leaves
    a side's clear or restart undriven."""
    rng = random.Random(seed)
    contents = config.contents()

    def request() -> tuple[Content, ...]:
        while True:
            chosen = rng.sample(config.identities, rng.choice((1, 1, 2)))
            items = tuple(c for c in (rng.choice([x for x in contents if x.identity == i])
                                      for i in chosen))
            total = sum(config.shadow_bytes(c) for c in items if config.fits_budget(c))
            if total <= config.budget or config.enables(Drift.D8):
                return items

    events: list[tuple[str, str]] = []
    fronts = [f"fe{i}" for i in range(config.front_ends)]
    kinds = [op for d, op in ((Drift.D3, "clear"), (Drift.D10, "restart"))
             if config.enables(d)]
    every = [(side, op) for op in kinds for side in ("engine", *fronts)]
    for _ in range(max(0, clients // 2 - len(every)) if kinds else 0):
        events.append((rng.choice(["engine", *fronts]), rng.choice(kinds)))
    events.extend(every)
    rng.shuffle(events)
    made = tuple(tuple(request() for _ in range(requests)) for _ in range(clients))
    refused = frozenset((c, r) for c in range(clients) for r in range(requests)
                        if rng.random() < REFUSED) if config.enables(Drift.D2) else frozenset()
    return Plan(made, tuple(events), refused)


@dataclass
class Sides:
    """The recorded sides of one run: whether every side took the yield hook (`hooked`),
    and, where one did not and a scheduler runs the threads, the tracer that preempts
    inside the implementation's own code (`tracer`) and how many of its locks became the
    schedule's (`locks`)."""

    front_ends: list[RecordingFrontEnd]
    engine: RecordingEngine
    hooked: bool
    tracer: LineTracer | None = None
    locks: int = 0

    def close(self) -> None:
        self.engine.inner.close()


@dataclass
class _Hooking:
    """Gives each side built (and rebuilt after a restart) the yield hook, or, a side that
    takes none, the schedule's locks in place of its own (`preempt.install_locks`)."""

    hooks: Hooks
    scheduler: Scheduler | None
    hooked: bool = True
    locks: int = 0

    def __call__(self, side: object) -> None:
        if attach(side, self.hooks):
            return
        self.hooked = False
        if self.scheduler is not None:
            self.locks += install_locks(side, self.scheduler)


@dataclass
class _Rehooked:
    """After a side is built or restarted: the hook (`_Hooking`), then its state watched
    under its name."""

    hook: _Hooking
    watcher: Watcher | None
    side: str

    def __call__(self, inner: object) -> None:
        self.hook(inner)
        if self.watcher is not None:
            self.watcher.watch(self.side, inner)


def build(adapter: api.Adapter, config: Config, recorder: Recorder,
          scheduler: Scheduler | None, watcher: Watcher | None = None) -> Sides:
    """Build and record the sides; give each the yield hook (and again after a restart);
    under a scheduler, a side without one runs traced (`preempt`); with a `watcher`, each
    side's state is watched (`watch`)."""
    setup = api.Setup(config.budget, config.variant.name, config.front_ends,
                      codec.process_media)
    hook = _Hooking(Hooks(scheduler, recorder.evicted, recorder.touched), scheduler)
    rehook = _Rehooked(hook, watcher, "engine")
    engine = RecordingEngine(api.build_engine(adapter.engine, setup), recorder, rehook)
    rehook(engine.inner)
    front_ends = []
    for index in range(config.front_ends):
        rehook = _Rehooked(hook, watcher, f"fe{index}")
        side = RecordingFrontEnd(api.build_front_end(adapter, setup, index), recorder,
                                 f"fe{index}", rehook)
        rehook(side.inner)
        front_ends.append(side)
    recorder.reports_evictions = hook.hooked and all(
        getattr(s, "reports_evictions", True) for s in (engine.inner, *(f.inner for f in
                                                                         front_ends)))
    if watcher is not None:
        recorder.refused, recorder.unwatched = watcher.refused, watcher.outside_serve
    if watcher is not None and not hook.hooked:
        watcher.touched = recorder.touched
    tracer = None
    if scheduler is not None and not hook.hooked:
        tracer = LineTracer(scheduler)
        scheduler.tracer = tracer
    return Sides(front_ends, engine, hook.hooked, tracer, hook.locks)


def final_views(sides: Sides, recorder: Recorder
                ) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    """The caches as the run left them (every call returned), through the sides' views:
    per side its identities, least recent first; None where the system stopped at a fault
    or a view failed (nothing to compare)."""
    if recorder.stopped is not None:
        return None
    try:
        views = [(f.side, tuple(e.identity for e in f.inner.shadow()))
                 for f in sides.front_ends]
        views.append(("engine", tuple(e.identity for e in sides.engine.inner.receiver())))
    except Exception:  # a view that faults: the run's calls are still judged
        return None
    return final_order(tuple(views))


def _items(config: Config, contents: Sequence[Content]) -> tuple[api.ItemIn, ...]:
    return tuple(api.ItemIn(c.identity, codec.media_for(config, c)) for c in contents)


def _header(config: Config, environment: frozenset[Drift], source: str) -> Header:
    ids = drift_order(d.value for d in environment)
    return Header(config.variant.name, config.budget, config.front_ends, ids, source)


@dataclass(frozen=True)
class Run:
    """One run's history, whether its schedule was controlled (every side hooked, or traced
    under the scheduler), the errors clients raised (a deadlock, a crash of the harness's
    own code), the preemptions made, and, for a traced run, the files whose lines ran under
    the scheduler (with their line counts) and the locks made the schedule's."""

    history: History
    controlled: bool
    errors: tuple[str, ...]
    preemptions: int
    traced: tuple[tuple[str, int], ...] = ()
    locks: int = 0
    watched: Watched | None = None


@dataclass(frozen=True)
class Watched:
    """What the watcher saw in one run (`watch`): the locations watched, the accesses
    noted, the races and split front-end sections found, the clears run in windows and in
    flight, the locations accessed and never under a lock."""

    locations: tuple[str, ...]
    accesses: int
    races: tuple[Race, ...]
    splits: tuple[Split, ...]
    windows: int
    in_flight: int
    unguarded: tuple[str, ...] = ()
    restarts: int = 0
    """Restarts run while a serve was in flight (`InFlight.restarts`)."""
    open_clears: int = 0
    """Clears made while a call of the cleared side was open (`Watcher.open_clears`)."""

    @staticmethod
    def of(watcher: Watcher) -> Watched:
        return Watched(tuple(watcher.locations()), watcher.accesses, tuple(watcher.races),
                       tuple(watcher.splits), watcher.flight.windows, watcher.flight.in_flight,
                       tuple(watcher.unguarded()), watcher.flight.restarts, watcher.open_clears)


@dataclass
class _Alone:
    """Refused calls made alone on their front end, so that the shadow their refusal left
    is read (`Recorder.quiet`): a client about to make one reserves its front end and waits
    until no call of it is open; the others wait to begin a call on a front end another
    reserved. Each wait is bounded (`QUIET_TRIES`), and a client that waited in vain makes
    its call anyway (its refusal then goes unread)."""

    recorder: Recorder
    by: dict[str, str] = field(default_factory=dict)

    def free(self, side: str, client: str) -> bool:
        return self.by.get(side, client) == client

    def idle(self, side: str) -> bool:
        return self.recorder.open_on(side) == 0


def _wait(ready: Callable[[], bool], between: Callable[[], None]) -> None:
    """Give the turn away (`between`) until `ready()`, at most `QUIET_TRIES` times."""
    tries = 0
    while not ready() and tries < QUIET_TRIES:
        between()
        tries += 1


def _refusing(sides: Sides, front_end: RecordingFrontEnd, refused: frozenset[tuple[int, int]],
              index: int) -> Callable[[int, int], bool]:
    """Whether the engine refuses attempt `attempt` of request `number` of client `index`:
    its first attempt, where the plan says so and the harness can make the engine refuse
    (`recorder.can_refuse`)."""
    able = bool(refused) and can_refuse(front_end.inner, sides.engine)
    return lambda number, attempt: able and attempt == 0 and (index, number) in refused


@dataclass(frozen=True)
class _ClientRun:
    """What every client of one run shares: the watcher (None: unwatched), the plan's
    refused first attempts (client, request), and the front ends' reservations for refused
    calls made alone (None: none)."""

    watcher: Watcher | None = None
    refused: frozenset[tuple[int, int]] = frozenset()
    alone: _Alone | None = None


def _client(sides: Sides, config: Config, index: int, requests: Sequence[Sequence[Content]],
            between: Callable[[], None], run: _ClientRun = _ClientRun()) -> None:
    watcher, refused, alone = run.watcher, run.refused, run.alone
    front_end = sides.front_ends[index % len(sides.front_ends)]
    side, me = front_end.side, client_name()
    serving = watcher.serving if watcher is not None else _unwatched
    refuses = _refusing(sides, front_end, refused, index)
    planned = list(enumerate(requests))
    while planned:
        number, contents = planned.pop(0)
        for attempt in range(1 + RETRIES):
            between()
            refusing = refuses(number, attempt)
            if alone is not None:
                _wait(lambda: alone.free(side, me), between)
                if refusing:
                    alone.by[side] = me
                    _wait(lambda: alone.idle(side), between)
            if watcher is not None:
                watcher.take_turn(me)
            with serving(side) as opened:
                outcome = front_end.serve(sides.engine, _items(config, contents), refusing)
            if alone is not None and alone.by.get(side) == me:
                del alone.by[side]
            if watcher is not None:
                watcher.hold.ended(me, opened)
            if opened is not None and opened.again:  # the same request again (`acquiring`)
                planned.insert(0, (len(requests), contents))
            if not isinstance(outcome, api.Missed):
                break


@contextlib.contextmanager
def _unwatched(side: str) -> Iterator[None]:
    del side
    yield None


QUIET_TRIES = 1000
"""How often the drift client waits for a quiet moment before a restart (then it skips it)."""


def _event(sides: Sides, side: str, op: str, watcher: Watcher | None = None,
           quiet: bool = False) -> None:
    """`op` ("clear", "restart") of `side`; a `quiet` restart (the drift client's: no call
    is open, it waited for that) is a barrier of the watcher's; a clear made while a call of
    `side` is open (any serve, for the engine) is counted (`Watcher.open_clears`)."""
    target: Any = sides.engine if side == "engine" else sides.front_ends[int(side[2:])]
    if op == "restart" and quiet and watcher is not None:
        with watcher.barrier():
            target.restart()
        return
    if op == "clear" and watcher is not None:
        recorder = sides.engine.recorder
        watcher.open_clears += bool(recorder.open() if side == "engine"
                                    else recorder.open_on(side))
    getattr(target, op)()


def _restarts_in_flight(environment: frozenset[Drift]) -> bool:
    """Whether sides restart while a serve is in flight (`inflight`): where the environment has
    D10 and not D6 (under D6 the spec's P0 step is split, and the explanation of a history
    with restarts inside its serves outgrows the search's limit)."""
    return Drift.D10 in environment and Drift.D6 not in environment


@dataclass
class _Windows:
    """The clears run in split windows of a threaded run and the restarts in flight
    (`watch`): the serving thread asks (`ask`, `ask_restart`) and waits, giving the turn
    away, while the window thread runs the event."""

    sides: Sides
    scheduler: Scheduler
    watcher: Watcher | None = None
    pending: tuple[str, str] | None = None
    done: bool = False

    def ask(self, side: str, op: str = "clear") -> bool:
        if self.pending is not None or self.done:
            return False
        self.pending = (side, op)
        self.scheduler.wake()
        self.scheduler.block(lambda: self.pending is None)
        return True

    def ask_restart(self, side: str) -> bool:
        return self.ask(side, "restart")

    def body(self) -> None:
        while True:
            self.scheduler.block(lambda: self.pending is not None or self.done)
            if self.pending is None:
                return
            _event(self.sides, *self.pending, self.watcher)
            self.pending = None
            self.scheduler.wake()

    def finishing(self, bodies: list[Callable[[], None]]) -> list[Callable[[], None]]:
        """`bodies`, the last to end ending the window thread too."""
        remaining = [len(bodies)]

        def wrapped(body: Callable[[], None]) -> Callable[[], None]:
            def run() -> None:
                try:
                    body()
                finally:
                    remaining[0] -= 1
                    if remaining[0] == 0:
                        self.done = True
                        self.scheduler.wake()
            return run
        return [wrapped(b) for b in bodies]


TRACED = (1 / 100, 16)
"""A traced run's chance of a preemption at each line and its bound on preemptions (a
hooked side's points take the scheduler's own, 1/4 and 8): a history runs some thousands
of traced lines, and the preemptions should fall across the run, not all in its first
lines. (A lock removed from `tests/history/hookless_pair.py` is a race whatever the
preemptions: `watch`.)"""


@dataclass(frozen=True)
class ThreadRun:
    """One threaded run's shape: `threads` client threads, each making `requests` requests,
    under the schedule of `seed`; `chance` of a preemption at each point and the bound on
    `preemptions` (None: the scheduler's, `TRACED` where the run is traced)."""

    threads: int
    seed: int
    requests: int = 3
    preemptions: int | None = None
    chance: float | None = None


def run_threads(adapter: api.Adapter, variant: str, environment: frozenset[Drift],
                shape: ThreadRun) -> Run:
    """`shape.threads` client threads and a drift thread under the schedule of
    `shape.seed` (`ThreadRun`)."""
    threads, seed, requests = shape.threads, shape.seed, shape.requests
    preemptions, chance = shape.preemptions, shape.chance
    config = instance_config(variant, environment)
    work = plan(config, threads, requests, seed)
    scheduler = Scheduler(seed)
    recorder = Recorder(_header(config, checked_environment(environment),
                                f"conform --threads {threads} --seed {seed}"),
                        Labels(config), scheduler.tick)
    watcher = Watcher(threads=True, flight=InFlight(split_windows=Drift.D6 not in environment))
    sides = build(adapter, config, recorder, scheduler, watcher)
    scheduler.monitor = watcher
    if sides.tracer is not None:
        scheduler.chance, scheduler.preemptions = TRACED
    scheduler.chance = scheduler.chance if chance is None else chance
    scheduler.preemptions = scheduler.preemptions if preemptions is None else preemptions
    try:
        run = _ClientRun(watcher, work.refused, _Alone(recorder))  # one, shared: a
        # reservation holds only where every client sees it
        bodies: list[Callable[[], None]] = [
            functools.partial(_client, sides, config, n, work.requests[n],
                              scheduler.boundary, run)
            for n in range(threads)]
        names = [f"thread-{n}" for n in range(threads)]
        if work.events:
            bodies.append(functools.partial(_thread_drift, sides, recorder, work.events,
                                            scheduler, watcher, spacing_of(work)))
            names.append("drift")
        windows = _Windows(sides, scheduler, watcher)
        bodies = windows.finishing(bodies)
        if Drift.D3 in environment:
            watcher.flight.inject = windows.ask
        if _restarts_in_flight(environment):
            watcher.flight.restart = windows.ask_restart
            watcher.hold.settle = functools.partial(_wait, between=scheduler.boundary)
        if Drift.D3 in environment or _restarts_in_flight(environment):
            bodies.append(windows.body)
            names.append("window")
        watcher.clients = set(names)
        with no_collection() if sides.tracer is not None else contextlib.nullcontext(), \
                watcher.active():
            scheduler.run(bodies, names)
        recorder.header = replace(recorder.header, final=final_views(sides, recorder))
    finally:
        sides.close()
    errors = tuple(f"{type(e).__name__}: {e}" for e in scheduler.errors)
    traced = tuple(sides.tracer.files()) if sides.tracer is not None else ()
    return Run(recorder.history(), sides.hooked or sides.tracer is not None, errors,
               scheduler.preempted, traced, sides.locks, Watched.of(watcher))


def _thread_drift(sides: Sides, recorder: Recorder, events: Sequence[tuple[str, str]],
                  scheduler: Scheduler, watcher: Watcher | None = None,
                  spacing: int = 0) -> None:
    """The drift client: each event between the others' calls, the k-th once the clients
    made k * `spacing` calls (`_due`: the events fall across the run, so a clear finds
    something cached and the misses it causes are replied to); a restart only when no call
    is open (the restarts while a serve is in flight are the watcher's, at points inside
    the serve: `watch`)."""
    for number, (side, op) in enumerate(events):
        scheduler.boundary()
        tries = 0
        while not _due(recorder, number, spacing) and tries < QUIET_TRIES:
            scheduler.boundary()
            tries += 1
        tries = 0
        while op == "restart" and recorder.open() and tries < QUIET_TRIES:
            scheduler.boundary()
            tries += 1
        if watcher is not None:
            _wait(lambda: watcher.hold.may_begin("drift"), scheduler.boundary)
        if op != "restart" or not recorder.open():
            _event(sides, side, op, watcher, quiet=True)


def _due(recorder: Recorder, number: int, spacing: int) -> bool:
    """Whether the clients made `number` x `spacing` calls (the drift's own not counted)."""
    return len(recorder.calls) - number >= number * spacing


def spacing_of(work: Plan) -> int:
    """Client requests between two drift events: the events spread across the run."""
    requests = sum(len(r) for r in work.requests)
    return requests // (len(work.events) + 1)


class Suspensions:
    """An awaitable driving `coroutine` step by step, calling `note(coroutine)` each time it
    suspends (before the loop gets the future it waits for): where a task's awaits are."""

    def __init__(self, coroutine: Coroutine[Any, Any, T],
                 note: Callable[[Coroutine[Any, Any, T]], None]) -> None:
        self.coroutine = coroutine
        self.note = note

    def __await__(self) -> Generator[Any, Any, Any]:
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                out = (self.coroutine.throw(error) if error is not None
                       else self.coroutine.send(value))
            except StopIteration as stop:
                return stop.value
            self.note(self.coroutine)
            try:
                value, error = (yield out), None
            except GeneratorExit:
                self.coroutine.close()
                raise
            except BaseException as thrown:  # handed to the coroutine, as a Task does
                value, error = None, thrown


async def _task_client(sides: Sides, config: Config, index: int,
                       requests: Sequence[Sequence[Content]], rng: random.Random,
                       run: _ClientRun = _ClientRun()) -> None:
    watcher, refused, alone = run.watcher, run.refused, run.alone
    front_end = sides.front_ends[index % len(sides.front_ends)]
    side, me = front_end.side, client_name()
    refuses = _refusing(sides, front_end, refused, index)
    for number, contents in enumerate(requests):
        for attempt in range(1 + RETRIES):
            for _ in range(rng.randrange(3)):
                await asyncio.sleep(0)
            refusing = refuses(number, attempt)
            if alone is not None:
                await _await(lambda: alone.free(side, me))
                if refusing:
                    alone.by[side] = me
                    await _await(lambda: alone.idle(side))
            call = front_end.serve_async(sides.engine, _items(config, contents), refusing)
            if watcher is None:
                outcome = await call
            else:
                with watcher.serving(front_end.side):
                    outcome = await Suspensions(call, watcher.suspended)
            if alone is not None and alone.by.get(side) == me:
                del alone.by[side]
            if not isinstance(outcome, api.Missed):
                break


async def _await(ready: Callable[[], bool]) -> None:
    """`_wait` between awaits."""
    tries = 0
    while not ready() and tries < QUIET_TRIES:
        await asyncio.sleep(0)
        tries += 1


async def _task_drift(sides: Sides, recorder: Recorder, events: Sequence[tuple[str, str]],
                      rng: random.Random, watcher: Watcher | None = None,
                      spacing: int = 0) -> None:
    """As `_thread_drift`, between awaits."""
    for number, (side, op) in enumerate(events):
        for _ in range(rng.randrange(4)):
            await asyncio.sleep(0)
        tries = 0
        while not _due(recorder, number, spacing) and tries < QUIET_TRIES:
            await asyncio.sleep(0)
            tries += 1
        tries = 0
        while op == "restart" and recorder.open() and tries < QUIET_TRIES:
            await asyncio.sleep(0)
            tries += 1
        if op != "restart" or not recorder.open():
            _event(sides, side, op, watcher, quiet=True)


def run_tasks(adapter: api.Adapter, variant: str, environment: frozenset[Drift], tasks: int,
              seed: int, requests: int = 2) -> Run:
    """`tasks` client tasks and a drift task on one event loop: the seed orders their start
    and the awaits each makes before a call; the loop's own order does the rest (one
    thread: the schedule is a function of the seed)."""
    config = instance_config(variant, environment)
    work = plan(config, tasks, requests, seed)
    rng = random.Random(seed)
    clock = itertools.count(1)
    recorder = Recorder(_header(config, checked_environment(environment),
                                f"conform --async-clients {tasks} --seed {seed}"),
                        Labels(config), lambda: next(clock))
    watcher = Watcher(threads=False, flight=InFlight(split_windows=Drift.D6 not in environment))
    watcher.clients = {*(f"task-{n}" for n in range(tasks)), "drift", "window"}
    sides = build(adapter, config, recorder, None, watcher)

    def inject(side: str, op: str = "clear") -> bool:
        async def event() -> None:
            _event(sides, side, op, watcher)
        asyncio.get_running_loop().create_task(event(), name="window")
        return True

    if Drift.D3 in environment:
        watcher.flight.inject = inject
    if _restarts_in_flight(environment):
        watcher.flight.restart = functools.partial(inject, op="restart")

    run = _ClientRun(watcher, work.refused, _Alone(recorder))

    async def main() -> None:
        order = list(range(tasks))
        rng.shuffle(order)
        running = [asyncio.create_task(_task_client(sides, config, n, work.requests[n], rng,
                                                    run),
                                       name=f"task-{n}")
                   for n in order]
        running.append(asyncio.create_task(_task_drift(sides, recorder, work.events, rng,
                                                       watcher, spacing_of(work)),
                                           name="drift"))
        await asyncio.gather(*running)

    errors: tuple[str, ...] = ()
    try:
        with watcher.active():
            asyncio.run(main())
        recorder.header = replace(recorder.header, final=final_views(sides, recorder))
    except Exception as error:
        errors = (f"{type(error).__name__}: {error}",)
    finally:
        sides.close()
    return Run(recorder.history(), True, errors, 0, watched=Watched.of(watcher))
