"""The recorder: wraps any adapter's sides and records every end-to-end call, clear and
restart as a `Call` of the history.

`Recorder.front_end(side, index)` and `Recorder.engine(side)` return wrappers with the same
methods as the side (`probe`, `update`, ... pass through unrecorded); `serve(engine, items)`
runs one request end to end (the side's own `EndToEnd.serve` where it has one, else probe,
update, the engine's receive and the reply handling in turn) and records it; `clear()` and
`restart()` are recorded too. Each call gets the invoking client's name (the asyncio task's
inside a running loop, else the thread's), its invocation and response times on the
recorder's clock (a monotonic counter: `time.monotonic_ns` by default, the schedule's logical
clock under a controlled schedule), its items and what it returned, in the one notation.
Evictions reported through the yield hook (`Hooks.evicted`) during a call are recorded with
it. `labels` says which content a media tensor, a payload or placeholders stand for (the
harness's codec by default).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.history.log import Call, Header, History, Input, Item, Result
from model_checks.kernel import lru_notation
from spec import Config


@dataclass(frozen=True, slots=True)
class Refused:
    """A request the engine refused after P0's update (D2), as the harness made it refuse
    (`end_to_end`): its front end's own call let the engine's refusal through. `shadow`: the
    identities the front end's shadow held once it handled the refusal, read where no other
    call began or ended during this one (None: not read)."""

    shadow: tuple[str, ...] | None = None


Outcome = api.Served | api.Missed | api.ClientRejected | api.Fault | Refused


def can_refuse(front_end: object, engine: object) -> bool:
    """Whether the harness can make the engine refuse a request of `front_end`: its engine
    declares how it refuses (`api.Refuses`) and the front end has its own end-to-end call
    (`api.EndToEnd`, or `serve_async`), whose refusal path then runs."""
    own = isinstance(front_end, api.EndToEnd) or callable(getattr(front_end, "serve_async",
                                                                  None))
    return own and isinstance(getattr(engine, "inner", engine), api.Refuses)


def client_name() -> str:
    """The current asyncio task's name inside a running loop, else the thread's."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    return task.get_name() if task is not None else threading.current_thread().name


@dataclass(frozen=True)
class Labels:
    """Contents by the harness's codec (`model_checks.conform.codec`) in `config`."""

    config: Config

    def _name(self, code: int | None) -> str:
        content = None if code is None else codec.content_of(self.config, code)
        return "garbled" if content is None else lru_notation.content(content.identity,
                                                                content.version)

    def item(self, item: api.ItemIn, bytes_of: Callable[[str], int]) -> Item:
        if item.media is None:
            return Item(item.identity, item.identity, bytes_of(item.identity), media=False)
        code, size = (int(v) for v in item.media.tolist())
        return Item(item.identity, self._name(code), size)

    def payload(self, payload: api.Payload) -> str:
        return self._name(codec.payload_code(payload))

    def placeholders(self, placeholders: tuple[int, int]) -> str:
        return self._name(placeholders[0])


@dataclass
class Recorder:
    """Collects the calls of one history (thread-safe)."""

    header: Header
    labels: Labels
    clock: Callable[[], int] = time.monotonic_ns
    calls: list[Call] = field(default_factory=list)
    sizes: dict[str, int] = field(default_factory=dict)
    reports_evictions: bool = False
    stopped: Result | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._evicted: dict[str, dict[str, list[str]]] = {}
        self._phases: dict[str, list[tuple[str, int]]] = {}
        self.refused: Callable[[], None] = lambda: None
        """Called as the engine refuses a request (the watcher's `refused`)."""
        self.unwatched: Callable[[], AbstractContextManager[None]] = nullcontext
        """Around the harness's own read of a shadow in a call (the watcher's
        `outside_serve`)."""
        self._changes: Counter[str] = Counter()  # per side, its calls begun and ended
        self._open: Counter[str] = Counter()  # per side, its calls open now
        self._since: dict[str, tuple[str, int]] = {}  # per open call: its side, `_changes`

    def open_on(self, side: str) -> int:
        """How many calls of `side` have begun and not ended."""
        with self._lock:
            return self._open[side]

    def quiet(self) -> bool:
        """Whether, since the current client's call began, no other call of its side began
        or ended and none is open (a call of another side never changes this side's cache)."""
        with self._lock:
            since = self._since.get(client_name())
            return since is not None and self._changes[since[0]] == since[1] and (
                self._open[since[0]] == 1)

    def shadow_after(self, side: object, outcome: Outcome) -> Outcome:
        """A refused `outcome` with the front end's shadow as its refusal left it, where the
        call was quiet (`quiet`): what the explanation compares with the spec's choice."""
        if not isinstance(outcome, Refused) or not self.quiet():
            return outcome
        try:
            with self.unwatched():
                shadow = tuple(e.identity for e in side.shadow())  # type: ignore[attr-defined]
        except Exception:  # a view that faults: the refusal is still judged by the rest
            return outcome
        return Refused(shadow)

    def open(self) -> int:
        """How many calls have begun and not ended."""
        with self._lock:
            return len(self._evicted)

    def history(self) -> History:
        """The calls so far, in invocation order."""
        with self._lock:
            ordered = sorted(self.calls, key=lambda c: c.invoked)
        return History(self.header, tuple(
            Call(n, c.client, c.side, c.op, c.items, c.invoked, c.returned, c.result, c.hints)
            for n, c in enumerate(ordered)))

    def touched(self, side: str) -> None:
        """The yield hook's report: the current client's call changed `side`'s cache now."""
        with self._lock:
            phases = self._phases.get(client_name())
            if phases is None:
                return
        now = self.clock()
        if phases and phases[-1][0] == side:
            phases[-1] = (side, now)
        else:
            phases.append((side, now))

    def evicted(self, side: str, identity: str) -> None:
        """The yield hook's report: the current client's call evicted `identity`."""
        with self._lock:
            buffer = self._evicted.get(client_name())
            if buffer is not None:
                buffer.setdefault(side, []).append(identity)

    def begin(self, side: str = "") -> int | None:
        """A call of `side` begins now: its invocation time; None, and nothing begins, once
        the system stopped (`stopped`)."""
        with self._lock:
            if self.stopped is not None:
                return None
            self._changes[side] += 1
            self._open[side] += 1
            self._since[client_name()] = (side, self._changes[side])
            self._evicted[client_name()] = {}
            self._phases[client_name()] = []
        return self.clock()

    def end(self, side: str, op: str, items: tuple[Item, ...], invoked: int,
            result: Result) -> None:
        returned = self.clock()
        with self._lock:
            self._changes[side] += 1
            self._open[side] -= 1
            self._since.pop(client_name(), None)
            evicted = self._evicted.pop(client_name(), {})
            hints = _hints(self._phases.pop(client_name(), []))
            if op == "serve" and self.reports_evictions:
                result = replace(result, evicted_p0=tuple(evicted.get("p0", ())),
                                 evicted_p1=tuple(evicted.get("p1", ())))
            self.calls.append(Call(len(self.calls), client_name(), side, op, items, invoked,
                                   returned, result, hints))
            if self.stopped is None and stops(result):
                self.stopped = result

    def refusal(self) -> api.Fault:
        """What a call gets once the system stopped (it is not made, not recorded)."""
        stopped = self.stopped
        return api.Fault(stopped.fault if stopped is not None else "crash",
                         "the system stopped at an earlier fault")

    def items(self, items: tuple[api.ItemIn, ...]) -> tuple[Item, ...]:
        recorded = tuple(self.labels.item(i, lambda k: self.sizes.get(k, 1)) for i in items)
        for item in recorded:
            if item.media:
                self.sizes[item.identity] = item.bytes
        return recorded

    def result(self, outcome: Outcome) -> Result:
        """An adapter's outcome in the history's terms."""
        if isinstance(outcome, api.Served):
            return Result("served", inputs=tuple(
                Input(i.identity, self.labels.payload(i.payload),
                      self.labels.placeholders(i.placeholders)) for i in outcome.inputs))
        if isinstance(outcome, api.Missed):
            return Result("missed", tuple(outcome.identities))
        if isinstance(outcome, api.ClientRejected):
            return Result("rejected", tuple(outcome.identities))
        if isinstance(outcome, Refused):
            return Result("refused", shadow_after=outcome.shadow)
        return Result("fault", fault=outcome.kind, detail=outcome.detail)

    def front_end(self, side: api.FrontEndSide, index: int) -> RecordingFrontEnd:
        return RecordingFrontEnd(side, self, f"fe{index}")

    def engine(self, side: api.EngineSide) -> RecordingEngine:
        return RecordingEngine(side, self)


def stops(result: Result) -> bool:
    """Whether a call's result stops the system: a fault other than P0's assertion (which
    fails its request only). The engine's crash is its input thread dying, as in the spec,
    where a fault is absorbing: as lockstep stops a side at its fault, the concurrent runs
    make no call after one (`Recorder.begin`)."""
    return result.kind == "fault" and result.fault != "p0-assert"


def _hints(phases: list[tuple[str, int]]) -> tuple[int | None, int | None, int | None]:
    """(P0 before the engine, the engine, P0 after it): the last time of each phase."""
    p0 = p1 = reply = None
    for side, time_ in phases:
        if side == "p0" and p1 is None:
            p0 = time_
        elif side == "p1":
            p1 = time_
        elif side == "p0":
            reply = time_
    return p0, p1, reply


def _event(recorder: Recorder, side: str, op: str, call: Callable[[], object]) -> object:
    invoked = recorder.begin(side)
    if invoked is None:
        return recorder.refusal()
    try:
        made = call()
    except Exception as error:
        made = api.Fault("crash", f"{type(error).__name__}: {error}")
    result = recorder.result(made) if isinstance(made, api.Fault) else Result("done")
    recorder.end(side, op, (), invoked, result)
    return made


def end_to_end(front_end: Any, engine: Any, items: tuple[api.ItemIn, ...],
               refuse: bool = False, told: Callable[[], None] = lambda: None) -> Outcome:
    """One request through the sides: the front end's own `serve` if it has one (given the
    innermost engine side), else probe, update, receive, reply. `refuse`: the engine refuses
    the request (D2; the caller checked `can_refuse`): the front end's own call meets the
    engine's declared refusal (`api.RefusingEngine`); `told` is called as it refuses."""
    inner = getattr(engine, "inner", engine)
    if isinstance(front_end, api.EndToEnd):
        if not refuse:
            served: Outcome = front_end.serve(inner, items)
            return served
        refusing = api.RefusingEngine(inner, told)
        try:
            served = front_end.serve(refusing, items)  # type: ignore[arg-type]
        except Exception as error:
            if api.refused_by(refusing, error):
                return Refused()
            raise
        return served
    probed = front_end.probe(items)
    if isinstance(probed, api.ClientRejected):
        return probed
    message = front_end.update(probed)
    if not isinstance(message, api.WireMessage):
        updated: Outcome = message
        return updated
    delivered: api.Delivered = engine.receive(message)
    if isinstance(delivered, api.Fault):
        return delivered
    front_end.handle_reply(message.request_id,
                           delivered.identities if isinstance(delivered, api.Missed) else ())
    return delivered


async def async_end_to_end(front_end: Any, engine: Any, items: tuple[api.ItemIn, ...],
                           refuse: bool = False, told: Callable[[], None] = lambda: None
                           ) -> Outcome:
    """One request through the sides from a coroutine: the front end's own `serve_async`
    if it has one, the asyncio reference's `serve_async` for its adapter's side, else the
    synchronous path (no await in it); `refuse` as in `end_to_end`."""
    inner = getattr(engine, "inner", engine)
    own = getattr(front_end, "serve_async", None)
    if callable(own):
        if not refuse:
            outcome: Outcome = await own(inner, items)
            return outcome
        refusing = api.RefusingEngine(inner, told)
        try:
            outcome = await own(refusing, items)
        except Exception as error:
            if api.refused_by(refusing, error):
                return Refused()
            raise
        return outcome
    from reference.aio import AsyncFrontEnd

    if isinstance(getattr(front_end, "front_end", None), AsyncFrontEnd) and not refuse:
        return await _reference_async(front_end.front_end, inner, items)
    return end_to_end(front_end, engine, items, refuse, told)


async def _reference_async(front_end: Any, engine: Any, items: tuple[api.ItemIn, ...]
                           ) -> Outcome:
    """`reference.aio.serve_async` on the asyncio reference's front end and the reference
    engine side's engine (`prepare`, awaited, then `reference.pipeline.deliver`: the engine
    is the side's engine when the message is delivered), its errors as the adapter's
    values."""
    from model_checks.conform.reference_adapter import request_of, round_trip_error, served_of
    from reference.pipeline import deliver

    try:
        message = await front_end.prepare(request_of(items))
        inputs = deliver(front_end, engine.engine, message)
    except Exception as error:
        return round_trip_error(error)
    return served_of(inputs)


@dataclass
class RecordingFrontEnd:
    """A front-end side whose serve, clear and restart are recorded; `after_restart` runs
    after each restart (the harness re-attaches its hook there)."""

    inner: api.FrontEndSide
    recorder: Recorder
    side: str
    after_restart: Callable[[object], None] = lambda side: None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def serve(self, engine: Any, items: tuple[api.ItemIn, ...], refuse: bool = False
              ) -> Outcome:
        """One request recorded; `refuse`: the engine refuses it (`end_to_end`)."""
        recorded = self.recorder.items(items)
        invoked = self.recorder.begin(self.side)
        if invoked is None:
            return self.recorder.refusal()
        try:
            outcome = end_to_end(self.inner, engine, items, refuse,
                                 self.recorder.refused)
            outcome = self.recorder.shadow_after(self.inner, outcome)
        except Exception as error:
            outcome = api.Fault("crash", f"{type(error).__name__}: {error}")
        self.recorder.end(self.side, "serve", recorded, invoked, self.recorder.result(outcome))
        return outcome

    async def serve_async(self, engine: Any, items: tuple[api.ItemIn, ...],
                          refuse: bool = False) -> Outcome:
        recorded = self.recorder.items(items)
        invoked = self.recorder.begin(self.side)
        if invoked is None:
            return self.recorder.refusal()
        try:
            outcome = await async_end_to_end(self.inner, engine, items, refuse,
                                             self.recorder.refused)
            outcome = self.recorder.shadow_after(self.inner, outcome)
        except Exception as error:
            outcome = api.Fault("crash", f"{type(error).__name__}: {error}")
        self.recorder.end(self.side, "serve", recorded, invoked, self.recorder.result(outcome))
        return outcome

    def clear(self) -> object:
        return _event(self.recorder, self.side, "clear", self.inner.clear)

    def restart(self) -> object:
        def restart() -> object:
            made = self.inner.restart()
            self.after_restart(self.inner)
            return made
        return _event(self.recorder, self.side, "restart", restart)


@dataclass
class RecordingEngine:
    """An engine side whose clear and restart are recorded (`receive` passes through)."""

    inner: api.EngineSide
    recorder: Recorder
    after_restart: Callable[[object], None] = lambda side: None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def receive(self, message: api.WireMessage) -> api.Delivered:
        return self.inner.receive(message)

    def clear(self) -> object:
        return _event(self.recorder, "engine", "clear", self.inner.clear)

    def restart(self) -> object:
        def restart() -> object:
            made = self.inner.restart()
            self.after_restart(self.inner)
            return made
        return _event(self.recorder, "engine", "restart", restart)
