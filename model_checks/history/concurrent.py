"""N clients calling an implementation's end-to-end path at once, with drift events, under a
seeded schedule: threads (`run_threads`) or asyncio tasks (`run_tasks`); the history of
what they did (`Recorder`).

The instance (`HISTORY_FAMILY`): identities a-d in a 3-byte budget, items of 1 byte (2 bytes for
b and c where D8 is in the environment, so that two items together exceed the budget; 4
bytes for d under D11), a second content per identity under D7, two front ends under D5
(clients alternate). Each client makes `requests` requests of one or two items, every item
with its media, and resends a request that missed (at most twice: a new call each time).
One more client, `drift`, makes the environment's events between the others' calls: a clear
of either side (D3) and a restart of either side (D10). Concurrent clients reorder the
engine's deliveries (D1) by construction: D1 joins the environment the history is checked in
(`checked_environment`); D2, D4 and D9 are not exercised here (they need the harness's own
channel: lockstep conformance drives them).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.history.hooks import Hooks, attach
from model_checks.history.log import Header, History, final_order
from model_checks.history.preempt import LineTracer, install_locks, no_collection
from model_checks.history.recorder import Labels, Recorder, RecordingEngine, RecordingFrontEnd
from model_checks.history.schedule import Scheduler
from spec import Config, Content, Drift, drift_order
from spec.instances import Family, Items, Sized

INHERENT = frozenset({Drift.D1})
"""What concurrent clients do to any deployment: the engine receives requests in another
order than the front end updated for them (D1). Interleaved updates (D6) are not added: a
front end whose probe and update are one critical section never shows them, and one whose
window lets another request evict a probed hit shows D6, which the environment must then
name (V3 absorbs it: a late miss is reprocessed)."""

RETRIES = 2

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


def plan(config: Config, clients: int, requests: int, seed: int) -> Plan:
    """A seeded plan for `clients` clients of `requests` requests each."""
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
    for _ in range(max(1, clients // 2) if kinds else 0):
        events.append((rng.choice(["engine", *fronts]), rng.choice(kinds)))
    return Plan(tuple(tuple(request() for _ in range(requests)) for _ in range(clients)),
                tuple(events))


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


def build(adapter: api.Adapter, config: Config, recorder: Recorder,
          scheduler: Scheduler | None) -> Sides:
    """Build and record the sides; give each the yield hook (and again after a restart);
    under a scheduler, a side without one runs traced (`preempt`)."""
    setup = api.Setup(config.budget, config.variant.name, config.front_ends,
                      codec.process_media)
    hook = _Hooking(Hooks(scheduler, recorder.evicted, recorder.touched), scheduler)
    engine = RecordingEngine(api.build_engine(adapter.engine, setup), recorder, hook)
    hook(engine.inner)
    front_ends = []
    for index in range(config.front_ends):
        side = RecordingFrontEnd(api.build_front_end(adapter, setup, index), recorder,
                                 f"fe{index}", hook)
        hook(side.inner)
        front_ends.append(side)
    recorder.reports_evictions = hook.hooked and all(
        getattr(s, "reports_evictions", True) for s in (engine.inner, *(f.inner for f in
                                                                         front_ends)))
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


def _client(sides: Sides, config: Config, index: int, requests: Sequence[Sequence[Content]],
            between: Callable[[], None]) -> None:
    front_end = sides.front_ends[index % len(sides.front_ends)]
    for contents in requests:
        for _ in range(1 + RETRIES):
            between()
            outcome = front_end.serve(sides.engine, _items(config, contents))
            if not isinstance(outcome, api.Missed):
                break


QUIET_TRIES = 1000
"""How often the drift client waits for a quiet moment before a restart (then it skips it)."""


def _event(sides: Sides, side: str, op: str) -> None:
    target: Any = sides.engine if side == "engine" else sides.front_ends[int(side[2:])]
    getattr(target, op)()


TRACED = (1 / 100, 16)
"""A traced run's chance of a preemption at each line and its bound on preemptions (a
hooked side's points take the scheduler's own, 1/4 and 8): a history runs some thousands
of traced lines, and the preemptions should fall across the run, not all in its first
lines. With these, each lock removed from `tests/history/hookless_pair.py` is caught
within 30 seeds of 4 threads under D3, and the pair with its locks passes them."""


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
    sides = build(adapter, config, recorder, scheduler)
    if sides.tracer is not None:
        scheduler.chance, scheduler.preemptions = TRACED
    scheduler.chance = scheduler.chance if chance is None else chance
    scheduler.preemptions = scheduler.preemptions if preemptions is None else preemptions
    try:
        bodies = [functools.partial(_client, sides, config, n, work.requests[n],
                                    scheduler.boundary) for n in range(threads)]
        names = [f"thread-{n}" for n in range(threads)]
        if work.events:
            bodies.append(functools.partial(_thread_drift, sides, recorder, work.events,
                                            scheduler))
            names.append("drift")
        with no_collection() if sides.tracer is not None else contextlib.nullcontext():
            scheduler.run(bodies, names)
        recorder.header = replace(recorder.header, final=final_views(sides, recorder))
    finally:
        sides.close()
    errors = tuple(f"{type(e).__name__}: {e}" for e in scheduler.errors)
    traced = tuple(sides.tracer.files()) if sides.tracer is not None else ()
    return Run(recorder.history(), sides.hooked or sides.tracer is not None, errors,
               scheduler.preempted, traced, sides.locks)


def _thread_drift(sides: Sides, recorder: Recorder, events: Sequence[tuple[str, str]],
                  scheduler: Scheduler) -> None:
    """The drift client: each event between the others' calls; a restart only when no call
    is open (a restarted process takes no part in a request begun before: the harness
    builds a new side object, which a call already running would not see)."""
    for side, op in events:
        scheduler.boundary()
        tries = 0
        while op == "restart" and recorder.open() and tries < QUIET_TRIES:
            scheduler.boundary()
            tries += 1
        if op != "restart" or not recorder.open():
            _event(sides, side, op)


async def _task_client(sides: Sides, config: Config, index: int,
                       requests: Sequence[Sequence[Content]], rng: random.Random) -> None:
    front_end = sides.front_ends[index % len(sides.front_ends)]
    for contents in requests:
        for _ in range(1 + RETRIES):
            for _ in range(rng.randrange(3)):
                await asyncio.sleep(0)
            outcome = await front_end.serve_async(sides.engine, _items(config, contents))
            if not isinstance(outcome, api.Missed):
                break


async def _task_drift(sides: Sides, recorder: Recorder, events: Sequence[tuple[str, str]],
                      rng: random.Random) -> None:
    """As `_thread_drift`, between awaits."""
    for side, op in events:
        for _ in range(rng.randrange(4)):
            await asyncio.sleep(0)
        tries = 0
        while op == "restart" and recorder.open() and tries < QUIET_TRIES:
            await asyncio.sleep(0)
            tries += 1
        if op != "restart" or not recorder.open():
            _event(sides, side, op)


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
                                f"conform --tasks {tasks} --seed {seed}"),
                        Labels(config), lambda: next(clock))
    sides = build(adapter, config, recorder, None)

    async def main() -> None:
        order = list(range(tasks))
        rng.shuffle(order)
        running = [asyncio.create_task(_task_client(sides, config, n, work.requests[n], rng),
                                       name=f"task-{n}") for n in order]
        running.append(asyncio.create_task(_task_drift(sides, recorder, work.events, rng),
                                           name="drift"))
        await asyncio.gather(*running)

    errors: tuple[str, ...] = ()
    try:
        asyncio.run(main())
        recorder.header = replace(recorder.header, final=final_views(sides, recorder))
    except Exception as error:
        errors = (f"{type(error).__name__}: {error}",)
    finally:
        sides.close()
    return Run(recorder.history(), True, errors, 0)
