"""Lockstep: the spec and an implementation driven side by side, action for action.

The driver owns the client and the channel between the sides: it picks spec actions, applies
each to the spec (`spec.step`) and, through the adapter, to the implementation, then compares
everything observable (`_compare`). The first difference raises `Disagreement`, labelled with
the step, the action and both observations.

Mapping of spec actions onto the implementation (docs/conformance.md has the full table):

- Submit -> a client request: media for items sent with data, UUID only otherwise.
- P0Handle -> probe + update; P0HandleRejected -> the same, then abandon (D2).
- P0Process -> probe (D6); P0UpdateItem -> update. The implementation's update is atomic per
  request, so P0UpdateItem is a macro step: the spec takes per-item steps until the attempt
  leaves PROCESSED/UPDATING (or faults), while the implementation does one update.
- P1Receive(i) -> the engine receives the i-th message of the channel (i > 0: D1).
- P0ReceiveReply -> the front end takes the oldest reply.
- Retry -> the client resends with media on every item (the retry helper's semantics).
- ClearBoth, P0Clear, P1Clear, P0ClearForReset, P1Reset, P0Restart, P1Restart -> clear()
  or restart() of the matching side at that moment.
- D9: the channel re-encodes each payload to the spec's P1 size (`codec.resize_payload`).

Tags: the spec's tags are processing ids, the implementation's are its own values; a bijection
is learnt whenever both sides create a payload for the same item, and every tag is compared
through it.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import torch

from model_checks import render
from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.notation import observation_text, value_text, wrap
from spec import Config, Drift, Outcome, Stage, State, registry
from spec import lru as spec_lru
from spec.fairness import fair_choice, is_quiescent, pending
from spec.machine import initial, is_enabled, step
from spec.state import ClientItem
from spec.trace import Step, Trace
from spec.transitions import (
    ACTION_TYPES,
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

EngineFactory = Callable[[api.Setup], api.EngineSide]

SPEC_JUDGED = ("S4", "H1")
"""Properties judged on the agreed lockstep trace (`Lockstep.judge_agreed_trace`); every other
property has a monitor on the implementation's own observations."""


class Disagreement(Exception):
    """The spec and the implementation disagree, or the implementation broke a property the
    spec keeps. `caught_by` is the property id (S1-S3, L1-L4) or the observation's name;
    `sentence`, where set, says in one line what the difference means (e.g. a tagless
    implementation checked against a tagged variant)."""

    def __init__(
        self, step: int, action: Action, caught_by: str, spec_side: object, impl_side: object,
        sentence: str = "",
    ) -> None:
        self.step = step
        self.action = action
        self.caught_by = caught_by
        self.spec_side = spec_side
        self.impl_side = impl_side
        self.sentence = sentence
        self.actions: tuple[Action, ...] = ()
        self.broken: dict[str, Broken] = {}
        super().__init__(
            sentence or f"step {step} ({render.action(action)}): {caught_by}: "
            f"spec {self.spec_text} / impl {self.impl_text}"
        )

    @property
    def spec_text(self) -> str:
        """The spec's side of the compared observation, in the trace notation."""
        return observation_text(self.caught_by, self.spec_side)

    @property
    def impl_text(self) -> str:
        return observation_text(self.caught_by, self.impl_side)

    def report(self) -> str:
        """The step table and both sides, in the notation, within 100 columns."""
        lines = [f"disagreement at step {self.step}, caught by {self.caught_by}"]
        if self.sentence:
            lines.append(f"  {self.sentence}")
        lines += steps_text(self.actions, self.step)
        if not self.sentence:
            lines.append(f"  spec: {self.spec_text}")
            lines.append(f"  impl: {self.impl_text}")
        return "\n".join(wrap(lines))


def steps_text(actions: Sequence[Action], at: int) -> list[str]:
    """The actions as numbered lines in the replay notation (`model_checks.render`), the
    step `at` marked."""
    return [
        f"  {number:3d}. {render.action(action)}{'  <-- here' if number == at else ''}"
        for number, action in enumerate(actions, start=1)
    ]


@dataclass(frozen=True)
class Broken:
    """A property the implementation broke, judged on its own observations: at lockstep step
    `step` (the first `step` actions replay it), why, and whether the spec breaks it at that
    step too (then it is the variant's weakness, not a disagreement)."""

    property_id: str
    step: int
    reason: str
    spec_too: bool
    actions: tuple[Action, ...]


@dataclass
class _Attempt:
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


@dataclass
class _Sent:
    rid: int
    front_end: int
    message: api.WireMessage  # as P0 built it
    delivered: api.WireMessage  # as P1 will receive it (after the channel's D9 re-encoding)


@dataclass
class _Monitors:
    """Liveness monitors over the implementation's own observations (L1-L3)."""

    owed: dict[tuple[int, str], int] = field(default_factory=dict)  # (rid, identity) -> step
    excused: set[tuple[int, str]] = field(default_factory=set)  # owed, payload sent since
    listed: dict[int, tuple[str, ...]] = field(default_factory=dict)  # rid -> last miss
    watching: dict[int, int] = field(default_factory=dict)  # rid -> step of P1's miss


def _stage(stage: Stage) -> Stage:
    # UPDATING is invisible on an implementation whose update is atomic.
    return Stage.PROCESSED if stage is Stage.UPDATING else stage


class Lockstep:
    """One lockstep run from the initial state. `apply` raises `Disagreement`."""

    def __init__(
        self,
        config: Config,
        adapter: api.Adapter,
        engine_factory: EngineFactory | None = None,
    ) -> None:
        self.config = config
        self.processor_calls = 0  # the harness's processor, called by the implementation
        self.processings_before = 0  # the spec's processings before the current step
        self.spec_delivery: object | None = None  # set by `apply_served`: P1's receive in it
        setup = api.Setup(config.budget, config.variant.name, config.front_ends,
                          self._process)
        self.front_ends = [api.build_front_end(adapter, setup, i)
                           for i in range(config.front_ends)]
        self.engine = api.build_engine(engine_factory or adapter.engine, setup)
        self.state: State = initial(config)
        self.before: State = self.state  # the spec's state before the current step
        self.steps: list[Step] = []
        self.actions: list[Action] = []
        self.attempts: list[_Attempt] = []
        self.channel: list[_Sent] = []
        self.replies: list[tuple[int, int, tuple[str, ...]]] = []  # rid, request id, missed
        self.fault: api.Fault | None = None
        self.delivery: tuple[int, api.Delivered] | None = None
        self.tag_to_pid: dict[int, int] = {}
        self.pid_to_tag: dict[int, int] = {}
        self.monitors = _Monitors()
        self.broken: dict[str, Broken] = {}
        self.action_of_step: list[int] = []  # spec step index -> lockstep action number

    def close(self) -> None:
        self.engine.close()

    def _process(self, media: torch.Tensor) -> tuple[dict[str, torch.Tensor], tuple[int, int]]:
        """`codec.process_media`, counted: the processor calls per step are compared with
        the processings the spec makes in that step (a front end that processes a hit, or
        processes an item twice, costs what the spec does not)."""
        self.processor_calls += 1
        return codec.process_media(media)

    # -- driving ---------------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply `action` (enabled in the spec) to both sides and compare."""
        number = len(self.actions) + 1
        self.actions.append(action)
        before = self.state
        self.state = step(self.config, self.state, action)
        self.steps.append(Step(action, self.state))
        self.action_of_step.append(number)
        if isinstance(action, P0UpdateItem):
            while self.state.fault is None and self.state.requests[action.rid].stage in (
                Stage.PROCESSED, Stage.UPDATING
            ):
                self.state = step(self.config, self.state, action)
                self.steps.append(Step(action, self.state))
                self.action_of_step.append(number)
        self.delivery = None
        self.spec_delivery = None
        self.before = before
        self.processings_before = len(before.processings)
        self.processor_calls = 0
        if action.drift_event() is not None:
            self.monitors.watching.clear()  # L3 assumes no drift between the miss and the retry
        self._guarded(lambda: self._impl(action))
        self._compare(number, action)

    def served_block(self, actions: Sequence[Action]) -> bool:
        """Whether `actions` (from here) start with a round trip the implementation's own
        end-to-end call can take: submit, P0's handle, P1's receive of that message (the only
        one in flight), the reply taken (the only one), each enabled in turn, no D9 on the
        channel, and a front end that offers `EndToEnd`."""
        if len(actions) < 4 or self.config.enables(Drift.D9) or self.channel or self.replies:
            return False
        submit, handle, receive, reply = actions[:4]
        if not (isinstance(submit, Submit) and isinstance(handle, P0Handle)
                and isinstance(receive, P1Receive) and isinstance(reply, P0ReceiveReply)):
            return False
        if handle.rid != len(self.state.requests) or receive.index != 0:
            return False
        if not isinstance(self.front_ends[submit.front_end], api.EndToEnd):
            return False
        state = self.state
        for action in actions[:4]:
            if not is_enabled(self.config, state, action):
                return False
            state = step(self.config, state, action)
        return state.fault is None

    def apply_served(self, actions: Sequence[Action]) -> None:
        """One round trip (`served_block`) through the implementation's own end-to-end call:
        the spec takes its four steps, the implementation one call; everything is compared
        after it, P1's delivery against the spec's receive step."""
        submit = actions[0]
        assert isinstance(submit, Submit)
        before = self.state
        for action in actions[:4]:
            self.actions.append(action)
            self.state = step(self.config, self.state, action)
            self.steps.append(Step(action, self.state))
            self.action_of_step.append(len(self.actions))
            if isinstance(action, P1Receive):
                self.spec_delivery = self._spec_delivery()
        if submit.drift_event() is not None:
            self.monitors.watching.clear()
        self.before = before
        self.processings_before = len(before.processings)
        self.processor_calls = 0
        rid = len(self.attempts)
        attempt = _Attempt(submit.front_end, submit.items)
        self.attempts.append(attempt)
        front_end = self.front_ends[submit.front_end]
        assert isinstance(front_end, api.EndToEnd)
        result = self._guarded(lambda: front_end.serve(self.engine, self._items(attempt)))
        attempt.stage = Stage.DONE
        if isinstance(result, api.ClientRejected):
            attempt.outcome, attempt.rejected = Outcome.CLIENT_ERROR, tuple(result.identities)
        elif isinstance(result, api.Fault) and result.kind == "p0-assert":
            attempt.outcome, attempt.failure = Outcome.P0_ASSERT, f"{result.kind}: {result.detail}"
        elif isinstance(result, api.Fault):
            self.fault, self.delivery = result, (rid, result)
        elif isinstance(result, api.Missed | api.Served):
            attempt.outcome = Outcome.MISS if isinstance(result, api.Missed) else Outcome.SUCCESS
            self.delivery = (rid, result)
        if self.fault is None:
            self._guarded(lambda: self._learn_from_shadow(submit.front_end))
        self._compare(len(self.actions), actions[3])
        self.spec_delivery = None

    def _guarded(self, call: Callable[[], object]) -> object:
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

    def _side_event(self, fault: api.Fault | None) -> None:
        """A clear or restart returned: a `Fault` from it stops the side, as any other."""
        if fault is not None and self.fault is None:
            self.fault = fault

    def _impl(self, action: Action) -> None:
        if isinstance(action, Submit):
            self.attempts.append(_Attempt(action.front_end, action.items))
        elif isinstance(action, P0Handle | P0HandleRejected):
            if self._probe(action.rid):
                self._update(action.rid, rejected=isinstance(action, P0HandleRejected))
        elif isinstance(action, P0Process):
            self._probe(action.rid)
        elif isinstance(action, P0UpdateItem):
            self._update(action.rid, rejected=False)
        elif isinstance(action, P1Receive):
            self._receive(action.index)
        elif isinstance(action, P0ReceiveReply):
            self._take_reply()
        elif isinstance(action, Retry):
            attempt = self.attempts[action.rid]
            items = tuple(ClientItem(i.identity, i.version, True) for i in attempt.items)
            self.attempts[action.rid] = _Attempt(
                attempt.front_end, items, retries=attempt.retries + 1,
                resent=self._client_retry(attempt),
            )
        elif isinstance(action, ClearBoth):
            for front_end in self.front_ends:
                self._side_event(front_end.clear())
            self._side_event(self.engine.clear())
        elif isinstance(action, P0Clear | P0ClearForReset):
            self._side_event(self.front_ends[action.front_end].clear())
        elif isinstance(action, P1Clear | P1Reset):
            self._side_event(self.engine.clear())
        elif isinstance(action, P0Restart):
            self._side_event(self.front_ends[action.front_end].restart())
        elif isinstance(action, P1Restart):
            self._side_event(self.engine.restart())
        else:
            raise TypeError(f"no implementation mapping for {action!r}")

    def _client_retry(self, attempt: _Attempt) -> tuple[api.ItemIn, ...] | None:
        """The items the implementation's own client resends (`api.ClientRetry`), or None
        where the adapter has no client: the harness then attaches media to every item."""
        front_end = self.front_ends[attempt.front_end]
        if not isinstance(front_end, api.ClientRetry):
            return None
        media = {i.identity: codec.media_for(self.config, i.content) for i in attempt.items}
        return front_end.retry_items(self._items(attempt), media)

    def _items(self, attempt: _Attempt) -> tuple[api.ItemIn, ...]:
        if attempt.resent is not None:
            return attempt.resent
        return tuple(
            api.ItemIn(i.identity, codec.media_for(self.config, i.content) if i.has_data else None)
            for i in attempt.items
        )

    def _probe(self, rid: int) -> bool:
        attempt = self.attempts[rid]
        probed = self.front_ends[attempt.front_end].probe(self._items(attempt))
        if isinstance(probed, api.ClientRejected):
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.CLIENT_ERROR
            attempt.rejected = tuple(probed.identities)
            return False
        attempt.stage, attempt.probed = Stage.PROCESSED, probed
        return True

    def _update(self, rid: int, rejected: bool) -> None:
        attempt = self.attempts[rid]
        front_end = self.front_ends[attempt.front_end]
        result = front_end.update(attempt.probed)
        attempt.probed = None
        if isinstance(result, api.Fault) and result.kind == "p0-assert":
            # P0's assertion fails this request only; the front end goes on (as in the spec).
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.P0_ASSERT
            attempt.failure = f"{result.kind}: {result.detail}"
            self._learn_from_shadow(attempt.front_end)
            return
        if isinstance(result, api.Fault):
            self.fault = result
            return
        if isinstance(result, api.ClientRejected):
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.CLIENT_ERROR
            return
        attempt.request_id = result.request_id
        if rejected:
            self._learn_from_shadow(attempt.front_end)
            front_end.abandon(result.request_id)
            attempt.stage, attempt.outcome = Stage.DONE, Outcome.REJECTED
            return
        attempt.stage = Stage.IN_FLIGHT
        self._sent(rid, attempt.front_end, result)
        self._learn_from_shadow(attempt.front_end)

    def _sent(self, rid: int, front_end: int, message: api.WireMessage) -> None:
        """A message enters the channel: learn tags, run L1, re-encode sizes (D9)."""
        spec_message = self.state.to_engine[-1] if self.state.to_engine else None
        number = len(self.actions)
        if spec_message is not None and spec_message.rid == rid:
            for spec_item, item in zip(spec_message.items, message.items, strict=False):
                tags = (spec_item.tag, item.tag)
                if spec_item.data is not None and tags[0] is not None and tags[1] is not None:
                    self._learn(number, tags[0], tags[1])
        monitors = self.monitors
        for item in message.items:
            key = (rid, item.identity)
            since = monitors.owed.pop(key, None)
            if since is not None and item.payload is None and key not in monitors.excused:
                self._fail_property(
                    "L1", f"the retry of request {rid} sent {item.identity} as a reference "
                    f"after the miss reply taken at step {since}",
                )
            monitors.excused.discard(key)
        payloads = {item.identity for item in message.items if item.payload is not None}
        for owed_rid, identity in monitors.owed:
            same_front_end = self.attempts[owed_rid].front_end == front_end
            if owed_rid != rid and same_front_end and identity in payloads:
                monitors.excused.add((owed_rid, identity))
        delivered = api.WireMessage(message.request_id, tuple(
            item if item.payload is None else api.WireItem(
                item.identity, self._reencode(item), item.placeholders, item.tag
            )
            for item in message.items
        ))
        self.channel.append(_Sent(rid, front_end, message, delivered))

    def _reencode(self, item: api.WireItem) -> api.Payload:
        assert item.payload is not None
        code = codec.payload_code(item.payload)
        content = None if code is None else codec.content_of(self.config, code)
        if content is None or not self.config.enables(Drift.D9):
            return item.payload
        return codec.resize_payload(item.payload, self.config.receiver_bytes(content))

    def _learn_from_shadow(self, front_end: int) -> None:
        """Pair the new shadow entries of both sides by identity (a request rejected after its
        update (D2) sends no message, but its entries are referenced later)."""
        impl = {e.identity: e.tag for e in self.front_ends[front_end].shadow()}
        for entry in spec_lru.entries(self.state.shadows[front_end]):
            tag = impl.get(entry.identity)
            if entry.tag is None or tag is None:
                continue
            if entry.tag not in self.pid_to_tag and tag not in self.tag_to_pid:
                self._learn(len(self.actions), entry.tag, tag)

    def _learn(self, number: int, pid: int, tag: int) -> None:
        known_tag, known_pid = self.pid_to_tag.get(pid), self.tag_to_pid.get(tag)
        if known_tag is None and known_pid is None:
            self.pid_to_tag[pid], self.tag_to_pid[tag] = tag, pid
        elif known_tag != tag or known_pid != pid:
            raise Disagreement(
                number, self.actions[-1], "tags",
                f"processing {pid} (tag {self.pid_to_tag.get(pid)!r})",
                f"tag {tag:#x} (processing {known_pid!r})",
            )

    def _receive(self, index: int) -> None:
        sent = self.channel.pop(index)
        result = self.engine.receive(sent.delivered)
        self.delivery = (sent.rid, result)
        attempt = self.attempts[sent.rid]
        if isinstance(result, api.Fault):
            self.fault = result
            return
        missed = result.identities if isinstance(result, api.Missed) else ()
        since = self.monitors.watching.pop(sent.rid, None)
        if since is not None and missed:
            self._fail_property(
                "L3", f"request {sent.rid}: the retry after the miss at step {since} missed "
                f"again ({', '.join(missed)}) with no drift event in between",
            )
        if missed:  # L3 watches from P1's miss (as the spec's monitor)
            self.monitors.watching[sent.rid] = len(self.actions)
        assert attempt.request_id is not None
        self.replies.append((sent.rid, attempt.request_id, missed))

    def _take_reply(self) -> None:
        rid, request_id, missed = self.replies.pop(0)
        attempt = self.attempts[rid]
        self.front_ends[attempt.front_end].handle_reply(request_id, missed)
        attempt.stage = Stage.DONE
        attempt.outcome = Outcome.MISS if missed else Outcome.SUCCESS
        if missed:
            number, monitors = len(self.actions), self.monitors
            again = sorted(set(monitors.listed.get(rid, ())).intersection(missed))
            if again:
                self._fail_property(
                    "L2", f"request {rid}: its retry, which carried data for "
                    f"{', '.join(again)}, was answered with a miss for them",
                )
            monitors.listed[rid] = missed
            monitors.owed.update({(rid, h): number for h in missed})
            monitors.excused.difference_update((rid, h) for h in missed)

    def _fail_property(self, prop: str, reason: str) -> None:
        """An implementation-side property broke: recorded in `broken` (its first time), and a
        disagreement unless the spec breaks it at the same step too (then the implementation
        conforms, and the property is the variant's weakness)."""
        spec_reason = _spec_violation(self.config, self.steps, prop, self._at)
        number = len(self.actions)
        if prop not in self.broken:
            self.broken[prop] = Broken(prop, number, reason, spec_reason is not None,
                                       tuple(self.actions))
        if spec_reason is None:
            raise Disagreement(number, self.actions[-1], prop, "holds", reason)

    @property
    def _at(self) -> int:
        return len(self.steps)

    # -- comparing -------------------------------------------------------------------------

    def _compare(self, number: int, action: Action) -> None:
        views = self._guarded(self._impl_views) if self.fault is None else None
        pairs: list[tuple[str, object, object]] = [
            ("fault", self._spec_fault(), None if self.fault is None else self.fault.kind),
        ]
        if self.state.fault is None and self.fault is None:
            made = len(self.state.processings) - self.processings_before
            pairs.append(("processor calls", made, self.processor_calls))
            pairs += self._rejections()
        if (self.state.fault is None and self.fault is None) or self.delivery is not None:
            pairs.append(("delivery", self._spec_delivery(), self._impl_delivery()))
        if self.state.fault is None and self.fault is None and isinstance(views, dict):
            self._check_tagless(number, action, views["shadows"])
            pairs += [
                ("requests", self._spec_requests(), self._impl_requests()),
                ("channel", self._spec_channel(), self._impl_channel()),
                ("replies", self._spec_replies(), self._impl_replies()),
                *(
                    (f"shadow {fe}", self._spec_shadow(fe), views[f"shadow {fe}"])
                    for fe in range(self.config.front_ends)
                ),
                ("receiver", self._spec_receiver(), views["receiver"]),
            ]
        for prop, reason in self._impl_state_properties(views):
            self._fail_property(prop, reason)
        for label, spec_side, impl_side in pairs:
            if spec_side != impl_side:
                raise Disagreement(number, action, label, spec_side, impl_side)

    def _rejections(self) -> list[tuple[str, object, object]]:
        """A request P0's probe rejected in this step: the UUID-only identities the shadow
        did not hold (the spec's probe, on the state before the step), against the ones the
        implementation's rejection named, in request order."""
        pairs: list[tuple[str, object, object]] = []
        for rid, request in enumerate(self.state.requests):
            was = self.before.requests[rid] if rid < len(self.before.requests) else None
            attempt = self.attempts[rid] if rid < len(self.attempts) else None
            if (request.outcome is not Outcome.CLIENT_ERROR or attempt is None or was is None
                    or was.outcome is Outcome.CLIENT_ERROR or attempt.rejected is None):
                continue
            shadow = self.before.shadows[request.front_end]
            spec_side = tuple(i.identity for i in request.items
                              if not i.has_data and not spec_lru.probe(shadow, i.identity))
            if spec_side:  # rejected at probe (V3's late misses are rejected at update)
                pairs.append((f"rejection of request {rid}", spec_side, attempt.rejected))
        return pairs

    def _impl_views(self) -> dict[str, object]:
        """The implementation's caches as the comparison sees them, read once per step."""
        shadows = [front_end.shadow() for front_end in self.front_ends]
        views: dict[str, object] = {
            f"shadow {fe}": self._impl_shadow(shadow) for fe, shadow in enumerate(shadows)
        }
        entries = self.engine.receiver()
        views["receiver"] = self._impl_receiver(entries)
        views["receiver entries"] = entries
        views["shadows"] = shadows
        return views

    def _check_tagless(
        self, number: int, action: Action, shadows: Sequence[Sequence[api.ShadowEntry]]
    ) -> None:
        """One sentence, not a tag-column diff, when the implementation has no tags at all and
        the variant tags everything."""
        if not self.config.variant.tagged:
            return
        spec_tags = [w.tag for m in self.state.to_engine for w in m.items]
        spec_tags += [e.tag for s in self.state.shadows for e in spec_lru.entries(s)]
        impl_tags = [w.tag for s in self.channel for w in s.message.items]
        impl_tags += [e.tag for shadow in shadows for e in shadow]
        if any(t is not None for t in spec_tags) and impl_tags and all(
            t is None for t in impl_tags
        ):
            raise Disagreement(
                number, action, "tags", "tagged", "untagged",
                sentence=f"the implementation sends and records no tags, but "
                f"{self.config.variant.name} tags every shadow entry and wire item: it cannot "
                f"conform to {self.config.variant.name}; check it against an untagged variant "
                f"(V0-V2) or give it tags",
            )

    def _content(self, pid: int) -> object:
        return self.state.processings[pid].content

    def _spec_fault(self) -> str | None:
        return None if self.state.fault is None else self.state.fault.kind.value

    def _spec_delivery(self) -> object:
        if self.spec_delivery is not None:
            return self.spec_delivery
        delivery = self.state.last_delivery
        if delivery is None:
            if self.state.fault is not None and self.delivery is not None:
                return ("fault", self.state.fault.kind.value)
            return None
        rid = delivery.message.rid
        if delivery.missed:
            if not self.config.variant.reports_misses:
                return ("fault", "engine-crash")
            return (rid, "missed", self.config.variant.reported(delivery.missed))
        return (rid, "served", tuple(
            (s.identity, self._content(s.tensor), self._content(s.placeholders))
            for s in delivery.served
        ))

    def _impl_delivery(self) -> object:
        if self.delivery is None:
            return None
        rid, result = self.delivery
        if isinstance(result, api.Fault):
            return ("fault", result.kind)
        if isinstance(result, api.Missed):
            return (rid, "missed", result.identities)
        return (rid, "served", tuple(
            (i.identity, self._payload_content(i.payload), self._placeholders_content(
                i.placeholders))
            for i in result.inputs
        ))

    def _payload_content(self, payload: api.Payload) -> object:
        code = codec.payload_code(payload)
        content = None if code is None else codec.content_of(self.config, code)
        return ("garbled", tuple(sorted(payload))) if content is None else content

    def _placeholders_content(self, placeholders: tuple[int, int]) -> object:
        content = codec.content_of(self.config, placeholders[0])
        if content is None or placeholders[1] != codec.placeholder_length(
            self.config.shadow_bytes(content)
        ):
            return ("garbled", placeholders)
        return content

    def _impl_tag(self, tag: int | None) -> object:
        if tag is None:
            return None
        return self.tag_to_pid.get(tag, ("unmapped", tag))

    def _spec_requests(self) -> object:
        return tuple((r.rid, _stage(r.stage), r.outcome, r.retries) for r in self.state.requests)

    def _impl_requests(self) -> object:
        return tuple(
            (rid, a.stage, a.outcome, a.retries) for rid, a in enumerate(self.attempts)
        )

    def _spec_channel(self) -> object:
        return tuple(
            (m.rid, m.front_end, tuple(
                (w.identity, None if w.data is None else self._content(w.data),
                 None if w.data is None else self.config.shadow_bytes(
                     self.state.processings[w.data].content),
                 self._content(w.placeholders), w.tag)
                for w in m.items
            ))
            for m in self.state.to_engine
        )

    def _impl_channel(self) -> object:
        return tuple(
            (s.rid, s.front_end, tuple(
                (w.identity,
                 None if w.payload is None else self._payload_content(w.payload),
                 None if w.payload is None else codec.payload_nbytes(w.payload),
                 self._placeholders_content(w.placeholders), self._impl_tag(w.tag))
                for w in s.message.items
            ))
            for s in self.channel
        )

    def _spec_replies(self) -> object:
        return tuple((r.rid, r.missed) for r in self.state.to_front_end)

    def _impl_replies(self) -> object:
        return tuple((rid, missed) for rid, _, missed in self.replies)

    def _spec_shadow(self, front_end: int) -> object:
        return tuple(
            (e.identity, e.size, self._content(e.processing), e.tag)
            if isinstance(e, spec_lru.Entry) else ("ghost", e.identity)
            for e in self.state.shadows[front_end]
        )

    def _impl_shadow(self, shadow: Sequence[api.ShadowEntry]) -> object:
        return tuple(
            (e.identity, e.size, self._placeholders_content(e.placeholders), self._impl_tag(e.tag))
            for e in shadow
        )

    def _spec_receiver(self) -> object:
        return tuple(
            (e.identity, e.size, self._content(e.processing), e.tag)
            if isinstance(e, spec_lru.Entry) else ("ghost", e.identity)
            for e in self.state.receiver
        )

    def _impl_receiver(self, entries: Sequence[api.ReceiverEntry]) -> object:
        return tuple(
            (e.identity, e.size, self._payload_content(e.payload), self._impl_tag(e.tag))
            for e in entries
        )

    def _impl_state_properties(self, views: object) -> list[tuple[str, str]]:
        """S1 on tensor values, S2 on real byte counts, S3 on the implementation's faults and
        on requests its front end's assertion failed."""
        found: list[tuple[str, str]] = []
        if self.fault is not None or not isinstance(views, dict):
            fault = self.fault or api.Fault("crash", "no cache views")
            found.append(("S3", f"{fault.kind}: {fault.detail}"))
            return found
        found += [("S3", a.failure) for a in self.attempts if a.outcome is Outcome.P0_ASSERT]
        if self.delivery is not None and isinstance(self.delivery[1], api.Served):
            for model_input in self.delivery[1].inputs:
                tensor = self._payload_content(model_input.payload)
                placeholders = self._placeholders_content(model_input.placeholders)
                if tensor != placeholders:
                    found.append(("S1", f"{model_input.identity}: tensor of "
                                        f"{value_text(tensor)} paired with placeholders of "
                                        f"{value_text(placeholders)}"))
        entries: Sequence[api.ReceiverEntry] = views["receiver entries"]
        real = sum(codec.payload_nbytes(e.payload) for e in entries)
        recorded = sum(e.size for e in entries)
        if max(real, recorded) > self.config.budget:
            found.append(("S2", f"P1 holds {real} bytes of tensors ({recorded} recorded), "
                                f"budget {self.config.budget}"))
        shadows: Sequence[Sequence[api.ShadowEntry]] = views["shadows"]
        for index, shadow in enumerate(shadows):
            used = sum(e.size for e in shadow)
            if used > self.config.budget:
                found.append(("S2", f"shadow {index} records {used} bytes"))
        return found

    # -- the end of a run --------------------------------------------------------------------

    def settle(self, max_steps: int = 200) -> None:
        """Drive both sides to quiescence under fairness, then check L4 on the implementation."""
        for _ in range(max_steps):
            owed = pending(self.config, self.state)
            if self.state.fault is not None or not owed:
                break
            self.apply(fair_choice(owed))
        if self.state.fault is not None or pending(self.config, self.state):
            return
        for rid, attempt in enumerate(self.attempts):
            if attempt.outcome is None or not attempt.outcome.final_for_client:
                how = attempt.outcome.value if attempt.outcome else attempt.stage.value
                if self.state.requests[rid].outcome is attempt.outcome:
                    continue  # the spec ends the same way: its L4 verdict, not a disagreement
                raise Disagreement(len(self.actions), self.actions[-1], "L4", "final",
                                   f"request {rid} ended as {how}")

    def trace(self) -> Trace:
        return Trace(self.config, initial(self.config), tuple(self.steps))

    def judge_agreed_trace(self) -> None:
        """S4 and H1 have no monitor of their own on the implementation: they are judged on
        the spec's trace, which the implementation matched observation for observation, so
        the spec's verdict on it is the implementation's."""
        trace = self.trace()
        for prop in registry():
            if prop.id not in SPEC_JUDGED or prop.id in self.broken:
                continue
            violation = prop.check_trace(trace)
            if violation is not None:
                number = self.action_of_step[max(violation.step, 1) - 1]
                self.broken[prop.id] = Broken(prop.id, number, violation.reason, True,
                                              tuple(self.actions[:number]))


def _spec_violation(
    config: Config, steps: Sequence[Step], prop: str, at: int
) -> str | None:
    """The spec's own violation of `prop` at step `at` of its trace, if any."""
    trace = Trace(config, initial(config), tuple(steps[:at]))
    for candidate in registry():
        if candidate.id == prop:
            violation = candidate.check_trace(trace)
            return None if violation is None else violation.reason
    return None


def run_actions(
    config: Config,
    adapter: api.Adapter,
    actions: Iterable[Action],
    *,
    settle: bool = True,
    engine_factory: EngineFactory | None = None,
    served: bool = False,
) -> Lockstep:
    """Run a script in lockstep; actions the spec does not enable (after a macro step or a
    fault) are skipped. Raises `Disagreement` with `actions` set to the steps taken.
    `served`: every round trip the implementation's own end-to-end call can take
    (`Lockstep.served_block`) goes through it."""
    script = list(actions)
    with _session(config, adapter, engine_factory) as run:
        index = 0
        while index < len(script):
            if served and run.served_block(script[index:]):
                run.apply_served(script[index:index + 4])
                index += 4
                continue
            action = script[index]
            index += 1
            if is_enabled(config, run.state, action):
                run.apply(action)
        if settle:
            run.settle()
    return run


@contextlib.contextmanager
def _session(
    config: Config, adapter: api.Adapter, engine_factory: EngineFactory | None
) -> Iterator[Lockstep]:
    """A lockstep run that is always closed, and whose `Disagreement` carries its steps."""
    run = Lockstep(config, adapter, engine_factory)
    try:
        yield run
        run.judge_agreed_trace()
    except Disagreement as found:
        found.actions = tuple(run.actions)
        found.broken = dict(run.broken)
        raise
    finally:
        run.close()


def choose(config: Config, state: State, rng: random.Random) -> Action | None:
    """A random enabled action: first a kind of action, then one of its instances.

    Submit is sampled instead of enumerated (a wide configuration has thousands of possible
    requests): mostly requests with media on every item, since a UUID-only item P0 does not
    hold ends the request at once as a client error.
    """
    if state.fault is not None:
        return None
    by_label: dict[str, list[Action]] = {}
    for action_type in ACTION_TYPES:
        if action_type is Submit:
            continue
        for action in action_type.candidates(config, state):
            if is_enabled(config, state, action):
                by_label.setdefault(action.label, []).append(action)
    submit = _sample_submit(config, state, rng)
    if submit is not None:
        by_label[Submit.label] = [submit]
    if not by_label:
        return None
    return rng.choice(by_label[rng.choice(sorted(by_label))])


def _sample_submit(config: Config, state: State, rng: random.Random) -> Submit | None:
    if len(state.requests) >= config.max_requests or state.unfinished() >= config.max_in_flight:
        return None
    for _ in range(20):
        count = rng.randint(1, min(config.max_items, len(config.identities)))
        identities = rng.sample(config.identities, count)
        all_media = rng.random() < 0.8
        items = tuple(
            ClientItem(i, rng.randrange(config.versions), all_media or rng.random() < 0.5)
            for i in identities
        )
        action = Submit(items, rng.randrange(config.front_ends))
        if is_enabled(config, state, action):
            return action
    return None


def random_walk(
    config: Config,
    adapter: api.Adapter,
    seed: int,
    length: int,
    *,
    engine_factory: EngineFactory | None = None,
) -> Lockstep:
    """`length` random steps in lockstep, then settle. Raises `Disagreement`."""
    rng = random.Random(seed)
    with _session(config, adapter, engine_factory) as run:
        for _ in range(length):
            if len(run.state.requests) >= config.max_requests and is_quiescent(config, run.state):
                break  # only clears and drift are left: nothing more to compare
            action = choose(config, run.state, rng)
            if action is None:
                break
            run.apply(action)
        run.settle()
    return run


def shrink(
    config: Config,
    adapter: api.Adapter,
    found: Disagreement,
    *,
    engine_factory: EngineFactory | None = None,
    budget: int = 300,
) -> Disagreement:
    """A shorter script with a disagreement caught by the same check: greedy deletion of
    single actions, then blocks of 2, then of 4 (a round trip), until nothing goes."""
    best = found
    actions = list(found.actions[: found.step])
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for width in (1, 2, 4):
            for index in range(len(actions) - width, -1, -1):
                if tries >= budget or index + width > len(actions):
                    continue
                candidate = actions[:index] + actions[index + width :]
                tries += 1
                again = _replay(config, adapter, candidate, engine_factory)
                if again is not None and again.caught_by == best.caught_by and (
                    again.step < best.step
                ):
                    best, actions, changed = again, list(again.actions[: again.step]), True
    return best


def spec_trace(config: Config, actions: Sequence[Action]) -> Trace | None:
    """The spec's trace of a lockstep script (P0UpdateItem as its macro step), or None if
    the script is not a valid spec trace as written."""
    state = initial(config)
    steps: list[Step] = []
    for action in actions:
        if not is_enabled(config, state, action):
            return None
        state = step(config, state, action)
        steps.append(Step(action, state))
        if isinstance(action, P0UpdateItem):
            while state.fault is None and state.requests[action.rid].stage in (
                Stage.PROCESSED, Stage.UPDATING
            ):
                state = step(config, state, action)
                steps.append(Step(action, state))
    return Trace(config, initial(config), tuple(steps))


def _replay(
    config: Config,
    adapter: api.Adapter,
    actions: Sequence[Action],
    engine_factory: EngineFactory | None,
) -> Disagreement | None:
    if spec_trace(config, actions) is None:  # a candidate must be a valid spec trace
        return None
    try:
        run_actions(config, adapter, actions, engine_factory=engine_factory)
    except Disagreement as found:
        return found
    return None
