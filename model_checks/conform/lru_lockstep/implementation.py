"""The implementation's side of a lockstep run: spec actions mapped onto adapter calls.

`ACTION_CALLS` is the mapping, one entry per spec action class (exactly `ACTION_TYPES`; a
test checks it). `Implementation` owns the adapter's sides, the client's attempts and the
channel between the sides; it tells an `Observer` (`observer.RunObserver`, which the driver
hands it) when a message leaves a front end, a shadow changed, the engine received a message
and a reply was taken, so that tags are learnt and the L1-L3 monitors run at the moment each
happens.

An exception escaping an adapter call is the implementation's crash (a `Fault`), except a
`HarnessFailure` or a `Disagreement`, which pass (`Implementation.guarded`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.lru_lockstep.disagreement import Disagreement
from spec import Action, Config, Drift, Outcome, Stage
from spec import transitions as t
from spec.state import ClientItem

if TYPE_CHECKING:
    import torch

EngineFactory = Callable[[api.Setup], api.EngineSide]


@dataclass
class Attempt:
    """The implementation's side of one spec request (rid): the current attempt."""

    front_end: int
    items: tuple[ClientItem, ...]
    stage: Stage = Stage.SUBMITTED
    outcome: Outcome | None = None
    probed: object | None = None
    request_id: int | None = None
    retries: int = 0
    failure: str = ""  # the front end's assertion that failed this attempt, if one did
    resent: tuple[api.ItemIn, ...] | None = None  # what the implementation's client resends
    rejected: tuple[str, ...] | None = None  # the identities a ClientRejected named
    original: tuple[ClientItem, ...] = ()  # the request as the client first sent it
    misses: tuple[tuple[str, ...], ...] = ()  # what each earlier attempt's miss reply named
    missed: tuple[str, ...] = ()  # what this attempt's miss reply named


@dataclass
class Sent:
    rid: int
    front_end: int
    message: api.WireMessage  # as P0 built it
    delivered: api.WireMessage  # as P1 will receive it (after the channel's D9 re-encoding)


class Observer(Protocol):
    """Told of the implementation's events as they happen (they may raise `Disagreement`)."""

    def sent(self, rid: int, front_end: int, message: api.WireMessage,
             front_end_of: Callable[[int], int]) -> None: ...

    def shadow_changed(self, front_end: int, shadow: Sequence[api.ShadowEntry]) -> None: ...

    def received(self, rid: int, missed: tuple[str, ...]) -> None: ...

    def replied(self, rid: int, missed: tuple[str, ...]) -> None: ...


class Implementation:
    """The adapter's front ends and engine, the client's attempts (indexed by rid), the
    channel P0 -> P1 and the replies P1 -> P0. `fault` is set once a side stopped;
    `delivery` is what P1 delivered in the current step (rid, result)."""

    def __init__(
        self, config: Config, adapter: api.Adapter, engine_factory: EngineFactory | None,
        observer: Observer,
    ) -> None:
        self.config = config
        self.observer = observer
        self.processor_calls = 0  # the harness's processor, called by the implementation
        setup = api.Setup(config.budget, config.variant.name, config.front_ends,
                          self._process)
        self.front_ends = [api.build_front_end(adapter, setup, i)
                           for i in range(config.front_ends)]
        self.engine = api.build_engine(engine_factory or adapter.engine, setup)
        self.attempts: list[Attempt] = []
        self.channel: list[Sent] = []
        self.replies: list[tuple[int, int, tuple[str, ...]]] = []  # rid, request id, missed
        self.fault: api.Fault | None = None
        self.delivery: tuple[int, api.Delivered] | None = None
        self.refusals = 0  # rejections run through the front end's own refusal path

    def close(self) -> None:
        self.engine.close()

    def _process(self, media: torch.Tensor) -> tuple[dict[str, torch.Tensor], tuple[int, int]]:
        """`codec.process_media`, counted: the processor calls per step are compared with
        the processings the spec makes in that step (a front end that processes a hit, or
        processes an item twice, costs what the spec does not)."""
        self.processor_calls += 1
        return codec.process_media(media)

    def guarded(self, call: Callable[[], object]) -> object:
        """Run a call into the adapter: an exception escaping it is the implementation's
        crash (a `Fault`), except a `HarnessFailure` or a `Disagreement`, which pass."""
        try:
            return call()
        except (Disagreement, api.HarnessFailure):
            raise
        except api.SideFault as error:
            self.fault = error.fault
        except Exception as error:  # the harness itself must not hide an adapter's crash
            self.fault = api.Fault("crash", f"{type(error).__name__}: {error}")
        return None

    def apply(self, action: Action) -> None:
        """The adapter calls of `action` (`ACTION_CALLS`), guarded."""
        self.guarded(lambda: _call_for(action)(self, action))

    def side_event(self, fault: api.Fault | None) -> None:
        """A clear or restart returned: a `Fault` from it stops the side, as any other."""
        if fault is not None and self.fault is None:
            self.fault = fault

    # -- the client --------------------------------------------------------------------------

    def submit(self, submit: t.Submit) -> None:
        self.attempts.append(Attempt(submit.front_end, submit.items, original=submit.items))

    def retry(self, rid: int) -> None:
        """The client resends request `rid`: through the implementation's own retry loop
        (`api.ClientLoop`, which may give up: then nothing is resent), its resend builder
        (`api.ClientRetry`), or, without either, with media on every item."""
        attempt = self.attempts[rid]
        misses = (*attempt.misses, attempt.missed)
        front_end = self.front_ends[attempt.front_end]
        if isinstance(front_end, api.ClientLoop):
            resent = loop_resend(front_end, self.config, attempt.original, self._media(attempt),
                                 misses)
            if resent is None:
                return  # the loop gave up: the request stays as it ended
        else:
            resent = self._client_retry(attempt)
        items = tuple(ClientItem(i.identity, i.version, True) for i in attempt.items)
        self.attempts[rid] = Attempt(
            attempt.front_end, items, retries=attempt.retries + 1, resent=resent,
            original=attempt.original, misses=misses,
        )

    def _media(self, attempt: Attempt) -> dict[str, torch.Tensor]:
        """The media of every identity of the attempt, for a client that attaches it to the
        items sent UUID-only (an item sent with its media keeps it). An identity the
        request names twice, once UUID-only: the UUID-only item's content."""
        ordered = sorted(attempt.items, key=lambda i: not i.has_data)  # UUID-only ones last
        return {i.identity: codec.media_for(self.config, i.content) for i in ordered}

    def _client_retry(self, attempt: Attempt) -> tuple[api.ItemIn, ...] | None:
        """The items the implementation's own client resends (`api.ClientRetry`), or None
        where the adapter has no client: the harness then attaches media to every item."""
        front_end = self.front_ends[attempt.front_end]
        if not isinstance(front_end, api.ClientRetry):
            return None
        return front_end.retry_items(self.items(attempt), self._media(attempt))

    def items(self, attempt: Attempt) -> tuple[api.ItemIn, ...]:
        if attempt.resent is not None:
            return attempt.resent
        return tuple(
            api.ItemIn(i.identity, codec.media_for(self.config, i.content) if i.has_data else None)
            for i in attempt.items
        )

    def serve(self, submit: t.Submit) -> None:
        """A round trip through the front end's own end-to-end call (`api.EndToEnd`)."""
        rid = len(self.attempts)
        attempt = Attempt(submit.front_end, submit.items, original=submit.items)
        self.attempts.append(attempt)
        front_end = self.front_ends[submit.front_end]
        assert isinstance(front_end, api.EndToEnd)
        result = self.guarded(lambda: front_end.serve(self.engine, self.items(attempt)))
        attempt.stage = Stage.DONE
        if isinstance(result, api.ClientRejected):
            attempt.outcome, attempt.rejected = Outcome.CLIENT_ERROR, tuple(result.identities)
        elif isinstance(result, api.Fault) and result.kind == "p0-assert":
            attempt.outcome, attempt.failure = Outcome.P0_ASSERT, f"{result.kind}: {result.detail}"
        elif isinstance(result, api.Fault):
            self.fault, self.delivery = result, (rid, result)
        elif isinstance(result, api.Missed | api.Served):
            attempt.outcome = Outcome.MISS if isinstance(result, api.Missed) else Outcome.SUCCESS
            attempt.missed = result.identities if isinstance(result, api.Missed) else ()
            self.delivery = (rid, result)
        if self.fault is None:
            self.guarded(lambda: self.shadow_changed(submit.front_end))

    # -- P0 ----------------------------------------------------------------------------------

    def probe(self, rid: int) -> bool:
        attempt = self.attempts[rid]
        probed = self.front_ends[attempt.front_end].probe(self.items(attempt))
        if isinstance(probed, api.ClientRejected):
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.CLIENT_ERROR
            attempt.rejected = tuple(probed.identities)
            return False
        attempt.stage, attempt.probed = Stage.PROCESSED, probed
        return True

    def item_level(self, rid: int) -> bool:
        """Whether request `rid`'s front end updates one item at a time (`api.ItemUpdates`)."""
        return isinstance(self.front_ends[self.attempts[rid].front_end], api.ItemUpdates)

    def update_item(self, rid: int) -> None:
        """One item of request `rid`'s update (`api.ItemUpdates`), or, on a front end whose
        update is atomic, the whole update (the lockstep took every item's spec step)."""
        attempt = self.attempts[rid]
        front_end = self.front_ends[attempt.front_end]
        if not isinstance(front_end, api.ItemUpdates):
            self.update(rid, rejected=False)
            return
        result = front_end.update_item(attempt.probed)
        if result is None:
            attempt.stage = Stage.UPDATING
            self.shadow_changed(attempt.front_end)
            return
        self._updated(rid, result, rejected=False)

    def update(self, rid: int, rejected: bool) -> None:
        attempt = self.attempts[rid]
        front_end = self.front_ends[attempt.front_end]
        self._updated(rid, front_end.update(attempt.probed), rejected)

    def _updated(self, rid: int, result: api.WireMessage | api.ClientRejected | api.Fault,
                 rejected: bool) -> None:
        """The end of request `rid`'s update: the message sent (or abandoned, `rejected`),
        or the update's rejection or fault."""
        attempt = self.attempts[rid]
        front_end = self.front_ends[attempt.front_end]
        attempt.probed = None
        if isinstance(result, api.Fault) and result.kind == "p0-assert":
            # P0's assertion fails this request only; the front end goes on (as in the spec).
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.P0_ASSERT
            attempt.failure = f"{result.kind}: {result.detail}"
            self.shadow_changed(attempt.front_end)
            return
        if isinstance(result, api.Fault):
            self.fault = result
            return
        if isinstance(result, api.ClientRejected):
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.CLIENT_ERROR
            attempt.rejected = tuple(result.identities)
            self.shadow_changed(attempt.front_end)
            return
        attempt.request_id = result.request_id
        if rejected:
            self.shadow_changed(attempt.front_end)
            front_end.abandon(result.request_id)
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.REJECTED
            return
        attempt.stage = Stage.IN_FLIGHT
        self._send(rid, attempt.front_end, result)
        self.shadow_changed(attempt.front_end)

    def _send(self, rid: int, front_end: int, message: api.WireMessage) -> None:
        """A message enters the channel, its sizes re-encoded as P1 will see them (D9)."""
        self.observer.sent(rid, front_end, message, self._front_end_of)
        delivered = api.WireMessage(message.request_id, tuple(
            item if item.payload is None else api.WireItem(
                item.identity, self._reencode(item), item.placeholders, item.tag
            )
            for item in message.items
        ))
        self.channel.append(Sent(rid, front_end, message, delivered))

    def _front_end_of(self, rid: int) -> int:
        """The front end request `rid` was submitted to."""
        return self.attempts[rid].front_end

    def shadow_changed(self, front_end: int) -> None:
        """Tell the observer front end `front_end`'s shadow as it is now (also for the driver:
        the spec's step was re-taken as another allowed choice, and its shadow's tags are
        paired again against it)."""
        self.observer.shadow_changed(front_end, self.front_ends[front_end].shadow())

    def _reencode(self, item: api.WireItem) -> api.Payload:
        assert item.payload is not None
        code = codec.payload_code(item.payload)
        content = None if code is None else codec.content_of(self.config, code)
        if content is None or not self.config.enables(Drift.D9):
            return item.payload
        return codec.resize_payload(item.payload, self.config.receiver_bytes(content))

    def take_reply(self) -> None:
        rid, request_id, missed = self.replies.pop(0)
        attempt = self.attempts[rid]
        self.front_ends[attempt.front_end].handle_reply(request_id, missed)
        attempt.stage = Stage.DONE
        attempt.outcome = Outcome.MISS if missed else Outcome.SUCCESS
        attempt.missed = missed
        self.observer.replied(rid, missed)

    # -- P1 ----------------------------------------------------------------------------------

    def receive(self, index: int) -> None:
        sent = self.channel.pop(index)
        result = self.engine.receive(sent.delivered)
        self.delivery = (sent.rid, result)
        attempt = self.attempts[sent.rid]
        if isinstance(result, api.Fault):
            self.fault = result
            return
        missed = result.identities if isinstance(result, api.Missed) else ()
        self.observer.received(sent.rid, missed)
        assert attempt.request_id is not None
        self.replies.append((sent.rid, attempt.request_id, missed))


def refuses(impl: Implementation, rid: int) -> bool:
    """Whether request `rid`'s rejection runs the front end's own refusal path: its
    front end has `api.EndToEnd` and the engine declares how it refuses (`api.Refuses`)."""
    return (isinstance(impl.front_ends[impl.attempts[rid].front_end], api.EndToEnd)
            and isinstance(impl.engine, api.Refuses))

def refuse(impl: Implementation, rid: int) -> None:
    """Request `rid` through the front end's own end-to-end call, the engine refusing it
    (`api.RefusingEngine`): the refusal escaping the call is the rejection (D2); a call
    that returns instead hid it from its client (its outcome is what it returned)."""
    attempt = impl.attempts[rid]
    front_end = impl.front_ends[attempt.front_end]
    assert isinstance(front_end, api.EndToEnd) and isinstance(impl.engine, api.Refuses)
    engine = api.RefusingEngine(impl.engine)
    attempt.stage = Stage.DONE
    try:
        result = front_end.serve(engine, impl.items(attempt))  # type: ignore[arg-type]
    except Exception as error:
        if not api.refused_by(engine, error):
            raise
        attempt.outcome = Outcome.REJECTED
        impl.refusals += 1
    else:
        if isinstance(result, api.ClientRejected):
            attempt.outcome, attempt.rejected = Outcome.CLIENT_ERROR, result.identities
        elif isinstance(result, api.Fault) and result.kind == "p0-assert":
            attempt.outcome, attempt.failure = Outcome.P0_ASSERT, result.detail
        elif isinstance(result, api.Fault):
            impl.fault = result
            return
        else:
            attempt.outcome = (Outcome.MISS if isinstance(result, api.Missed)
                               else Outcome.SUCCESS)
    impl.shadow_changed(attempt.front_end)


def loop_resend(front_end: api.ClientLoop, config: Config, original: tuple[ClientItem, ...],
                media: Mapping[str, torch.Tensor], misses: tuple[tuple[str, ...], ...]
                ) -> tuple[api.ItemIn, ...] | None:
    """The resend the client's own loop makes after `misses` (one per attempt so far, the
    request first sent as `original`), or None if the loop ends before making it."""
    sent: list[tuple[api.ItemIn, ...]] = []

    def send(items: tuple[api.ItemIn, ...]) -> api.Missed | None:
        sent.append(tuple(items))
        if len(sent) <= len(misses):
            return api.Missed(misses[len(sent) - 1])
        raise api.LoopStopped

    first = tuple(api.ItemIn(i.identity, codec.media_for(config, i.content) if i.has_data
                             else None) for i in original)
    try:
        front_end.retry_loop(send, first, media, config.max_retries)
    except api.LoopStopped:
        return sent[-1]
    except Exception:  # the loop gave up (re-raised the miss, or its own error)
        return None
    return None


# -- the mapping: one entry per spec action class ------------------------------------------

A = TypeVar("A", bound=Action)
Call = Callable[[Implementation, Action], None]


def _entry(kind: type[A], call: Callable[[Implementation, A], None]) -> tuple[type[Action], Call]:
    # The call is only ever looked up by `type(action)`, so it gets an action of its kind.
    return kind, cast(Call, call)


def _handle(impl: Implementation, action: t.P0Handle | t.P0HandleRejected) -> None:
    """P0Handle -> probe + update; P0HandleRejected (and P0HandleRejectedUndo) -> the same,
    then abandon (D2), or, where the engine declares how it refuses (`api.Refuses`) and the
    front end has its own end-to-end call, that call with the engine refusing (`refuse`):
    whether the front end keeps or undoes its update is its own choice, which the driver
    matches to one of the two actions (`driver.Lockstep.apply`)."""
    if isinstance(action, t.P0HandleRejected) and refuses(impl, action.rid):
        refuse(impl, action.rid)
        return
    if impl.probe(action.rid):
        impl.update(action.rid, rejected=isinstance(action, t.P0HandleRejected))


def _process_only(impl: Implementation, action: t.P0Process) -> None:
    """P0Process -> the probe, which processes the misses (D6)."""
    impl.probe(action.rid)


def _clear_both(impl: Implementation, action: t.ClearBoth) -> None:
    for front_end in impl.front_ends:
        impl.side_event(front_end.clear())
    impl.side_event(impl.engine.clear())


def _clear_front_end(impl: Implementation, action: t.P0Clear | t.P0ClearForReset) -> None:
    impl.side_event(impl.front_ends[action.front_end].clear())


def _clear_engine(impl: Implementation, action: t.P1Clear | t.P1Reset) -> None:
    impl.side_event(impl.engine.clear())


ACTION_CALLS: Mapping[type[Action], Call] = dict([
    _entry(t.Submit, lambda impl, a: impl.submit(a)),
    _entry(t.P0Handle, _handle),
    _entry(t.P0HandleRejected, _handle),
    _entry(t.P0HandleRejectedUndo, _handle),
    _entry(t.P0Process, _process_only),
    _entry(t.P0UpdateItem, lambda impl, a: impl.update_item(a.rid)),
    _entry(t.P1Receive, lambda impl, a: impl.receive(a.index)),
    # the receiver's own choice under D9, matched by the driver (`driver.Lockstep.apply`)
    _entry(t.P1ReceiveOwnPayload, lambda impl, a: impl.receive(a.index)),
    _entry(t.P0ReceiveReply, lambda impl, a: impl.take_reply()),
    _entry(t.Retry, lambda impl, a: impl.retry(a.rid)),
    _entry(t.ClearBoth, _clear_both),
    _entry(t.P0Clear, _clear_front_end),
    _entry(t.P0ClearForReset, _clear_front_end),
    _entry(t.P1Clear, _clear_engine),
    _entry(t.P1Reset, _clear_engine),
    _entry(t.P0Restart, lambda impl, a: impl.side_event(impl.front_ends[a.front_end].restart())),
    _entry(t.P1Restart, lambda impl, a: impl.side_event(impl.engine.restart())),
])
"""The adapter calls of each spec action class (docs/conformance.md has the full table)."""


def _call_for(action: Action) -> Call:
    call = ACTION_CALLS.get(type(action))
    if call is None:
        raise TypeError(f"no implementation mapping for {action!r}")
    return call
