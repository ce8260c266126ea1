"""The pair's shared state, watched: every access to the containers its sides reach, with the
locks the accessing thread held, checked for races (a lockset check, as Eraser's) and for
front-end work split across critical sections (the windows a check-then-act leaves open).

`Watcher.watch(side, root)` walks the objects a side reaches (as `preempt.install_locks`
does) and replaces every `dict`, `OrderedDict`, `list`, `set` and `deque` it finds by a
watched copy (`watched_class`: the same type with each read and write noted; a container of
a subclass of these, such as the reference's `PointedOrder`, gets its class swapped for a
watched subclass, so the object stays the same); the harness calls it after the side is
built and after each restart. A **location** is one container (its path from the side:
`fe0.cache.entries`). Every access a scheduled client makes is noted with the client, read or
write, the locks of the schedule it held (`SchedLock`, reported through `acquired` and
`released`) and the stack of the implementation's frames.

**Races** (threads only). Two accesses to one location by two clients, one a write, with no
lock in common, are a race, whether or not the run went wrong: the check (a lockset check,
as Eraser's) does not need the schedule to interleave them. A location no client ever
accessed under a lock (a dict used lock-free, each of its operations one atomic step under
the GIL) is not reported: it is listed as unguarded (`unguarded`), and the history judges
what its users do. Ordering the check cannot see is the harness's own: the threads start
after the sides are built and end before their views are read (accesses outside the
clients are not noted), and the drift client's restarts run only when no call is open
(`barrier`: what the restart itself does is not noted; a location keeps its path across
restarts, so accesses before and after one are still compared: a lock discipline that holds
only because a restart separated two accesses is still broken). Each race is reported once
per location and pair of code sites, with both stacks.

**Split front-end sections.** The spec's P0 step takes a request's probe and update as one
(without D6, interleaved updates, in the environment). A serve whose front-end accesses,
before it reaches the engine (an access to the engine's state that writes or holds one of
its locks), fall into two critical sections (the lock released and taken again: probe under
one acquisition, update under a second) or, in the asyncio mode, on both sides of an await,
is **split**. Each split is noted with the two sections' sites (`Split`), and the harness
tests it where the environment has D3 and not D6: in a threaded run, the release that ended
the first section is a window from then on; in an asyncio run, every await after the
front end's state was touched is one. At a window whose section found something, a
clear of the front end runs before the serve goes on (`inflight`, **Windows**): a clear the
environment allows at any moment, placed where a check-then-act loses its probed hits. An
implementation that re-checks under its second section (the reference's late misses) is
explained; one that acts on what it probed is not.

**Clears and restarts in flight.** The watcher tells its `InFlight` (`inflight`) where an
open serve stands: a front-end section that found something ended, an engine lock taken
again after an engine section that found something, an engine lock released (or an await)
past the send; it places clears and restarts there, within its bounds.

Limits: an access through a container the walk did not reach (created per call, a module
global, a C extension's own state) is not seen; attributes holding plain values (a byte
count) are not locations, the container they follow is; a lock the schedule does not know
(not a `threading.Lock`/`RLock` reachable from the side) is not in any lockset.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from model_checks.history.inflight import Hold, InFlight, Serving, Site
from model_checks.history.preempt import ImplementationFiles, attributes_of, walkable
from model_checks.history.schedule import SchedLock

READS = ("__getitem__", "__contains__", "__iter__", "__len__", "__reversed__", "get", "keys",
         "values", "items", "copy", "index", "count", "__eq__")
WRITES = ("__setitem__", "__delitem__", "pop", "popitem", "clear", "update", "setdefault",
          "move_to_end", "append", "appendleft", "extend", "insert", "remove", "sort",
          "reverse", "add", "discard", "__iadd__", "rotate", "popleft")
FINDS = ("__getitem__", "__contains__", "get")
"""Reads that look one key up: noted after the call, with whether they found it (a section
that found something is one whose window a clear can change)."""
CONTAINERS: tuple[type, ...] = (dict, OrderedDict, list, set, deque)
HARNESS_MODULES = ("model_checks.history.", "spec.")
"""The harness's machinery below a side (its hooks, its scheduler, its recorder): not walked."""
DRIFT_CLIENTS = frozenset({"drift", "window"})
"""The harness's own clients, which make drift events, not requests (`concurrent`)."""
STACK_DEPTH = 6
_ACTIVE: list[Watcher] = []


def _noted(name: str, kind: str, method: Callable[..., Any]) -> Callable[..., Any]:
    if name in FINDS:
        def find(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = method(self, *args, **kwargs)
            if _ACTIVE:
                _ACTIVE[-1].note(self, kind, result is not None and result is not False)
            return result
        find.__name__ = name
        return find

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _ACTIVE:
            _ACTIVE[-1].note(self, kind)
        return method(self, *args, **kwargs)
    call.__name__ = name
    return call


_CLASSES: dict[type, type] = {}


def watched_class(base: type) -> type:
    """`base` with every read (`READS`) and write (`WRITES`) it has noted to the active
    watcher; no new slots (so a container's class can be swapped for it)."""
    known = _CLASSES.get(base)
    if known is not None:
        return known
    space: dict[str, Any] = {"__slots__": (), "__watched__": True}
    for kind, names in (("read", READS), ("write", WRITES)):
        for name in names:
            method = getattr(base, name, None)
            if method is not None:
                space[name] = _noted(name, kind, method)
    made = type(f"Watched{base.__name__}", (base,), space)
    _CLASSES[base] = made
    return made


@dataclass(frozen=True)
class Access:
    """One noted access: the client, read or write, the locks held (names), the stack."""

    client: str
    kind: str
    locks: frozenset[str]
    stack: tuple[Site, ...]


@dataclass(frozen=True)
class Race:
    """Two accesses to `location` by two clients, one a write, with no lock in common."""

    location: str
    first: Access
    second: Access

    def lines(self) -> list[str]:
        return [f"RACE on {self.location}: accessed under a lock elsewhere, here by two "
                "clients with no lock in common (another schedule runs them at once)",
                *_access_lines(self.first), *_access_lines(self.second)]

    def to_json(self) -> dict[str, object]:
        return {"location": self.location, "accesses": [_access_json(a) for a in
                                                          (self.first, self.second)]}


@dataclass(frozen=True)
class Split:
    """A serve on front end `side` whose work before the engine fell into two sections
    (`first`, `second`: each section's sites) touching `locations`; `how` says what separated
    them ("the lock released and taken again", "an await")."""

    side: str
    how: str
    first: tuple[Site, ...]
    second: tuple[Site, ...]
    locations: tuple[str, ...]

    def lines(self) -> list[str]:
        return [f"split front-end section on {self.side} ({self.how}; touching "
                f"{', '.join(self.locations)}): the spec takes probe and update as one step",
                f"  first section:  {_stack_text(self.first)}",
                f"  second section: {_stack_text(self.second)}"]

    def to_json(self) -> dict[str, object]:
        return {"side": self.side, "how": self.how, "locations": list(self.locations),
                "first": [list(s) for s in self.first], "second": [list(s) for s in self.second]}


def _stack_text(stack: tuple[Site, ...]) -> str:
    return " <- ".join(f"{os.path.basename(f)}:{line} {fn}" for f, line, fn in stack) or "?"


def _access_lines(access: Access) -> list[str]:
    locks = ", ".join(sorted(access.locks)) or "no lock"
    return [f"  {access.kind} by {access.client} holding {locks}: {_stack_text(access.stack)}"]


def _access_json(access: Access) -> dict[str, object]:
    return {"client": access.client, "kind": access.kind, "locks": sorted(access.locks),
            "stack": [list(s) for s in access.stack]}


@dataclass
class Lockset:
    """The race check (module docstring, **Races**): per location, the first access of each
    (client, read or write, locks held). Two of them by two clients, one a write, with no
    lock in common, are a race (`races`), reported once per location and pair of code
    sites; a location no client ever accessed under a lock is not reported (`unguarded`)."""

    races: list[Race] = field(default_factory=list)
    guarded: set[str] = field(default_factory=set)
    """The locations some client accessed holding a lock of the schedule."""

    def __post_init__(self) -> None:
        self._records: dict[str, dict[tuple[str, str, frozenset[str]], Access]] = {}
        self._reported: set[tuple[str, Site | None, Site | None]] = set()

    def note(self, location: str, client: str, kind: str, held: frozenset[str],
             stack: Callable[[], tuple[Site, ...]]) -> None:
        """An access to `location` by `client` holding `held`, checked against the earlier
        ones; `stack` gives its stack, taken only for an access new to the location."""
        records = self._records.setdefault(location, {})
        index = (client, kind, held)
        if index in records:
            return
        access = Access(client, kind, held, stack())
        records[index] = access
        if held:
            self.guarded.add(location)
        for (other, other_kind, other_locks), earlier in list(records.items()):
            if other == client or (kind == other_kind == "read") or (held & other_locks):
                continue
            if not held and not other_locks and location not in self.guarded:
                continue  # no code guards it: its single operations are atomic (the GIL)
            sites = (earlier.stack[0] if earlier.stack else None,
                     access.stack[0] if access.stack else None)
            mark = (location, *sorted(sites, key=str))
            if mark not in self._reported:
                self._reported.add(mark)  # type: ignore[arg-type]
                self.races.append(Race(location, earlier, access))

    def unguarded(self) -> list[str]:
        """The locations the clients accessed and never under a lock: taken as relying on
        their container's single operations being atomic, so races on them are not reported
        (the history judges what they do)."""
        return sorted(set(self._records) - self.guarded)


class Frames:
    """Where an access happens: the frames of the implementation (not the harness's, torch's
    or the standard library's, `preempt.ImplementationFiles`), innermost first."""

    def __init__(self) -> None:
        self.implementation = ImplementationFiles()

    def _frames(self) -> Iterator[FrameType]:
        frame: FrameType | None = sys._getframe(2)  # past this and `stack`/`site`
        while frame is not None:
            if self.implementation(frame.f_code.co_filename):
                yield frame
            frame = frame.f_back

    def stack(self) -> tuple[Site, ...]:
        """The innermost `STACK_DEPTH` sites of the implementation in the current stack."""
        found = []
        for frame in self._frames():
            found.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))
            if len(found) >= STACK_DEPTH:
                break
        return tuple(found)

    def site(self) -> Site:
        """The innermost site of the implementation in the current stack."""
        for frame in self._frames():
            return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        return ("?", 0, "?")

    def awaiting_site(self, coroutine: Any) -> Site:
        """The innermost line of the implementation's own coroutines that awaits."""
        site: Site = ("?", 0, "?")
        while coroutine is not None:
            frame = getattr(coroutine, "cr_frame", None) or getattr(coroutine, "gi_frame",
                                                                     None)
            if frame is not None and self.implementation(frame.f_code.co_filename):
                site = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
            coroutine = (getattr(coroutine, "cr_await", None)
                         or getattr(coroutine, "gi_yieldfrom", None))
        return site


@dataclass
class Locations:
    """What a run watches (module docstring): `names`, each watched container's location
    (its path from its side: `fe0.cache.entries`); `owners`, its side; `lock_names`, each
    lock of the schedule a side reaches, named by its first path. Watched objects are kept
    for the run, so their ids are never another object's."""

    names: dict[int, str] = field(default_factory=dict)
    owners: dict[int, str] = field(default_factory=dict)
    lock_names: dict[int, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._kept: list[object] = []  # watched containers outlive the run: ids not reused

    def watch(self, side: str, root: object, depth: int, seen: set[int]) -> int:
        """Watch every container `root` reaches (to `depth`, past the objects of `seen`);
        the number newly watched."""
        return self._walk(root, side, side, depth, seen | {id(self)})

    def _walk(self, holder: object, side: str, path: str, depth: int, seen: set[int]) -> int:
        if depth < 0 or id(holder) in seen or not walkable(holder):
            return 0
        if path != side and type(holder).__module__.startswith(HARNESS_MODULES):
            return 0  # the harness's own objects below a side (its hooks, its scheduler)
        seen.add(id(holder))
        count = 0
        for name, value in list(attributes_of(holder)):
            where = f"{path}.{name}"
            if isinstance(value, SchedLock):
                if id(value) not in self.lock_names:
                    self.lock_names[id(value)] = where  # a lock is named by its first path
                    self._kept.append(value)  # (kept: its id is never another lock's)
                continue
            if isinstance(value, CONTAINERS):
                watched = self._container(holder, name, value, side, where)
                count += watched is not None
                inner: Any = value if watched is None else watched
                members = list(dict.values(inner) if isinstance(inner, dict)
                               else list.__iter__(inner) if isinstance(inner, list)
                               else ())
                count += sum(self._walk(v, side, f"{where}[]", depth - 1, seen)
                             for v in members)
            else:
                count += self._walk(value, side, where, depth - 1, seen)
        return count

    def _container(self, holder: object, name: str, value: Any, side: str,
                   where: str) -> object | None:
        """Watch `value` (the attribute `name` of `holder`): swap its class where it is a
        subclass, else replace it by a watched copy; None if it was watched already or
        cannot be."""
        if getattr(type(value), "__watched__", False):
            return None
        base = type(value)
        made = watched_class(base)
        if base in CONTAINERS:
            copy = made(value) if base is not deque else made(value, value.maxlen)
            try:
                object.__setattr__(holder, name, copy)
            except (AttributeError, TypeError):
                return None
            value = copy
        else:
            try:
                value.__class__ = made
            except TypeError:
                return None
        self.names[id(value)] = where
        self.owners[id(value)] = side
        self._kept.append(value)
        watched: object = value
        return watched


def split_of(serving: Serving, threads: bool) -> Split | None:
    """The split of `serving` (module docstring), if its last section and an earlier one
    touched its front end's state and the earlier one's end is known."""
    first = next((s for s in serving.sections[:-1] if s[0]), None)
    if first is None or not serving.sections[-1][0] or serving.released is None:
        return None
    touched, sites = serving.sections[-1]
    how = "the lock released and taken again" if threads else "an await"
    return Split(serving.side, how, tuple(first[1]), tuple(sites),
                 tuple(sorted(first[0] | touched)))


@dataclass
class Watcher:
    """The watched state of one run (module docstring). `threads`: whether the clients are
    threads (races are checked, `Lockset`) or asyncio tasks (one thread: only splits). What
    is watched is `Locations`'s, where each access happens `Frames`'s; the clears and
    restarts placed inside open serves are `flight`'s (`InFlight`)."""

    threads: bool
    clients: set[str] = field(default_factory=set)
    splits: list[Split] = field(default_factory=list)
    accesses: int = 0
    window_sites: set[Site] = field(default_factory=set)
    flight: InFlight = field(default_factory=InFlight)
    open_clears: int = 0
    """Clears of a side made while a call of it was open (the drift client's and the
    windows'), counted by the harness (`concurrent`)."""
    hold: Hold = field(default_factory=Hold)
    """The run held by one client for a restart inside a receive (`Hold`, `acquiring`)."""
    touched: Callable[[str], None] | None = None
    """Told "p0" or "p1" at each access a serving client makes to its front end's or the
    engine's state (`Recorder.touched`: the search's hints, for sides without the hook)."""

    def __post_init__(self) -> None:
        self._held: dict[str, dict[int, int]] = {}
        self.located = Locations()
        self._serving: dict[str, Serving] = {}
        self._paused = 0
        self.lockset = Lockset()
        self.frames = Frames()

    def watch(self, side: str, root: object, depth: int = 6) -> int:
        """Watch every container `root` reaches (to `depth`); the number newly watched."""
        return self.located.watch(side, root, depth, {id(self)})

    @property
    def races(self) -> list[Race]:
        """The races found (`Lockset`)."""
        return self.lockset.races

    # -- locks -----------------------------------------------------------------------------

    def acquired(self, lock: object) -> None:
        """A client took a lock of the schedule (outermost acquisition)."""
        client = self._client()
        if client is None:
            return
        held = self._held.setdefault(client, {})
        held[id(lock)] = held.get(id(lock), 0) + 1
        serving = self._serving.get(client)
        if serving is not None and not serving.engine and not serving.open:
            serving.open = True
            serving.sections.append((set(), []))

    def released(self, lock: object) -> None:
        """A client released a lock of the schedule; where this closes a front-end section
        or an engine section, `flight` may place a clear or a restart there (`InFlight`)."""
        client = self._client()
        if client is None:
            return
        held = self._held.get(client, {})
        held.pop(id(lock), None)
        serving = self._serving.get(client)
        if serving is None or held:
            return
        if serving.engine:
            if (self.located.lock_names.get(id(lock), "").startswith("engine")
                    and self.hold.by is None):
                self.flight.front_end(serving, self._serving.values())
            return
        serving.open = False
        if not serving.sections or not serving.sections[-1][0]:
            return
        site = self.frames.site()
        serving.released = site
        if self.hold.by is None:  # else held for a restart inside a receive (`acquiring`)
            if site in self.window_sites:
                self.flight.window(serving)
            elif serving.found:
                self.flight.section_found()
        serving.found = False

    def acquiring(self, lock: object) -> None:
        """A client is about to take a lock of the schedule (holding none): where its serve
        takes an engine lock again after an engine section that found something (a receive
        in two critical sections, the second acting on what the first found), the engine
        may restart in between (`Hold.found_twice`)."""
        client = self._client()
        serving = self._serving.get(client) if client is not None else None
        if (client is None or serving is None or not serving.engine or not serving.hit
                or self._held.get(client)
                or not self.located.lock_names.get(id(lock), "").startswith("engine")):
            return
        self.hold.found_twice(client, serving, self.flight)

    def take_turn(self, client: str) -> None:
        """Before a serve of `client` (threads): `Hold.take_turn`."""
        self.hold.take_turn(client, lambda: not self._serving)

    # -- accesses --------------------------------------------------------------------------

    def note(self, container: object, kind: str, found: bool = False) -> None:
        """An access to a watched container (called by its watched methods)."""
        if self._paused:
            return
        key = id(container)
        location = self.located.names.get(key)
        client = self._client() if location is not None else None
        if client is None or location is None:
            return
        self.accesses += 1
        held = frozenset(self.located.lock_names.get(k, f"lock@{k:x}")
                         for k in self._held.get(client, {}))
        self._front_end_access(client, key, location, found,
                               kind == "write" or any(n.startswith("engine") for n in held))
        if self.threads:
            self.lockset.note(location, client, kind, held, self.frames.stack)

    def _front_end_access(self, client: str, key: int, location: str, found: bool,
                          receiving: bool) -> None:
        """An access in a serve: before the engine, an access to the serving front end's
        state joins the open section (threads: under a lock; tasks: since the last await).
        The engine is reached at an access to its state that writes or holds one of its
        locks (`receiving`): a lock-free read of it (an admission check) is not its
        receive."""
        serving = self._serving.get(client)
        if serving is None:
            return
        owner = self.located.owners.get(key)
        if self.touched is not None and owner is not None:
            self.touched("p1" if owner == "engine" else "p0")
        if serving.engine:
            serving.hit = serving.hit or (owner == "engine" and found)
            return
        if owner != serving.side:
            serving.engine = owner == "engine" and receiving
            serving.hit = serving.engine and found
            return
        if self.threads and not serving.open:
            return  # outside any section: the lockset check's
        if not serving.sections:
            serving.sections.append((set(), []))
        touched, sites = serving.sections[-1]
        touched.add(location)
        serving.found = serving.found or found
        if not sites:
            sites.extend(self.frames.stack())
        self._check_split(serving)

    def _check_split(self, serving: Serving) -> None:
        """Two sections of one serve touching the front end's state: a split (noted once
        per pair of sites), its first section's end a window."""
        split, site = split_of(serving, self.threads), serving.released
        if split is not None and site is not None and site not in self.window_sites:
            self.window_sites.add(site)
            self.splits.append(split)

    def suspended(self, awaiting: Any = None) -> None:
        """The current asyncio task awaits (in the coroutine `awaiting`): in a serve that
        touched its front end and has not reached the engine, a section ends (and its window
        may run a clear: one thread, so every such await lets other tasks in)."""
        client = self._client()
        serving = self._serving.get(client) if client is not None else None
        if serving is not None and serving.engine:
            self.flight.front_end(serving, self._serving.values())
            return
        if serving is None or not serving.sections or not serving.sections[-1][0]:
            return
        serving.released = self.frames.awaiting_site(awaiting)
        serving.sections.append((set(), []))
        self.flight.window(serving)

    @contextlib.contextmanager
    def serving(self, side: str) -> Iterator[Serving | None]:
        """The current client serves a request through front end `side`: its open serve
        (None: not a client's), read after the call for what happened in it."""
        client = self._client()
        opened = Serving(side) if client is not None else None
        if client is not None and opened is not None:
            self._serving[client] = opened
            self.flight.began()
        try:
            yield opened
        finally:
            if client is not None:
                self._serving.pop(client, None)

    def refused(self) -> None:
        """The current client's serve reached the engine, which refused it (D2): what its
        front end does next (keep or undo) is its refusal's handling, not another section."""
        client = self._client()
        serving = self._serving.get(client) if client is not None else None
        if serving is not None:
            serving.engine = True

    @contextlib.contextmanager
    def outside_serve(self) -> Iterator[None]:
        """The harness's own read inside the current client's serve (the shadow after a
        refusal): its accesses are noted for races, but make no section of the serve."""
        client = self._client()
        serving = self._serving.pop(client, None) if client is not None else None
        try:
            yield
        finally:
            if client is not None and serving is not None:
                self._serving[client] = serving

    @contextlib.contextmanager
    def barrier(self) -> Iterator[None]:
        """A restart: no call is open, and what the restart itself does (rebuilding the
        side's state) is not noted. Accesses before and after it are still compared: a
        location is one path (`fe0.cache.entries`) across restarts, and a lock discipline
        that holds only because a restart happened to separate two accesses is still
        broken."""
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Note accesses to this watcher's containers while the run lasts (its `clients`
        set before, and told to `flight`)."""
        self.flight.run_by(len(self.clients), len(self.clients - DRIFT_CLIENTS))
        _ACTIVE.append(self)
        try:
            yield
        finally:
            _ACTIVE.remove(self)

    # -- where -----------------------------------------------------------------------------

    def _client(self) -> str | None:
        if not self.threads:
            try:
                task = asyncio.current_task()
            except RuntimeError:
                return None
            name = task.get_name() if task is not None else None
        else:
            name = threading.current_thread().name
        return name if name in self.clients else None

    def locations(self) -> list[str]:
        """The watched locations, by side."""
        return sorted(set(self.located.names.values()))

    def unguarded(self) -> list[str]:
        """The locations the clients accessed and never under a lock (`Lockset.unguarded`)."""
        return self.lockset.unguarded()
