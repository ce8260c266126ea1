"""The lockstep driver: one spec action at a time, to the spec and to the implementation.

`Lockstep.apply` steps the spec (`spec.step`), has `Implementation` make the action's adapter
calls, then compares every observation (`views`) and judges S1-S3 on the implementation
(`properties`); the implementation's events go to the run's observer (`observer.RunObserver`,
which feeds the L1-L3 monitors and the tag bijection as they happen), and `settle` ends a run
with L4. The driver owns the spec's run so far (`observer.SpecRun`), the observer and the
implementation; the implementation knows only the observer. The first difference raises
`Disagreement`, labelled with the step, the action and both observations.
"""

from __future__ import annotations

from collections.abc import Sequence

from model_checks.conform import adapter as api
from model_checks.conform.judged import on_agreed_trace
from model_checks.conform.lockstep import choices
from model_checks.conform.lockstep.disagreement import Broken, Disagreement
from model_checks.conform.lockstep.implementation import EngineFactory, Implementation
from model_checks.conform.lockstep.monitors import Monitors, unfinished
from model_checks.conform.lockstep.observer import RunObserver, SpecRun
from model_checks.conform.lockstep.properties import state_properties
from model_checks.conform.lockstep.views import (
    CacheViews,
    Decoder,
    SpecStep,
    Tags,
    cache_pairs,
    early_pairs,
    spec_delivery,
    tagless,
)
from spec import Config, Drift, Stage, State, registry
from spec.fairness import fair_choice, pending
from spec.machine import initial, is_enabled, step
from spec.trace import Step, Trace
from spec.transitions import Action, P0Handle, P0ReceiveReply, P0UpdateItem, P1Receive, Submit

SPEC_JUDGED = on_agreed_trace()
"""Properties judged on the agreed lockstep trace (`Lockstep.judge_agreed_trace`), as
conformance's table (`conform.judged`) says; every other property it judges has a monitor on
the implementation's own observations."""

def spec_steps(config: Config, state: State, action: Action, atomic: bool = True) -> list[Step]:
    """The spec's steps for one implementation step: one, except P0UpdateItem on a front end
    whose update is atomic (`atomic`; no `api.ItemUpdates`): the per-item steps until the
    attempt leaves PROCESSED/UPDATING (or faults), which its one `update` takes at once."""
    state = step(config, state, action)
    steps = [Step(action, state)]
    if atomic and isinstance(action, P0UpdateItem):
        while state.fault is None and state.requests[action.rid].stage in (
            Stage.PROCESSED, Stage.UPDATING
        ):
            state = step(config, state, action)
            steps.append(Step(action, state))
    return steps


class Lockstep:
    """One lockstep run from the initial state. `apply` raises `Disagreement`."""

    def __init__(
        self,
        config: Config,
        adapter: api.Adapter,
        engine_factory: EngineFactory | None = None,
    ) -> None:
        self.config = config
        self.tags = Tags()
        self.decoder = Decoder(config, self.tags)
        self.monitors = Monitors()
        self.spec = SpecRun(config, initial(config))
        self.observer = RunObserver(self.spec, self.tags, self.monitors)
        self.impl = Implementation(config, adapter, engine_factory, self.observer)
        self.processings_before = 0  # the spec's processings before the current step
        self.spec_delivery: object | None = None  # set by `apply_served`: P1's receive in it
        self.before: State = self.spec.state  # the spec's state before the current step
        self.action_of_step: list[int] = []  # spec step index -> lockstep action number
        # implementation choices observed (`choices.NAMES`) where they made a difference
        self.choices: dict[str, int] = {}

    # -- the spec's run so far (`observer.SpecRun`) ------------------------------------------

    @property
    def state(self) -> State:
        """The spec's state now."""
        return self.spec.state

    @property
    def steps(self) -> list[Step]:
        """The spec's steps so far, one per spec step."""
        return self.spec.steps

    @property
    def actions(self) -> list[Action]:
        """The action of each spec step so far."""
        return self.spec.actions

    @property
    def broken(self) -> dict[str, Broken]:
        """The properties the implementation broke, each its first time."""
        return self.spec.broken

    @property
    def served(self) -> bool:
        """Whether round trips go through the end-to-end call (`apply_served`)."""
        return self.spec.served

    @served.setter
    def served(self, served: bool) -> None:
        self.spec.served = served

    def close(self) -> None:
        self.impl.close()

    # -- driving ---------------------------------------------------------------------------

    def spec_steps(self, action: Action) -> list[Step]:
        """The spec's steps `apply(action)` takes now: one per implementation step (several
        only for an item update on a front end whose update is atomic)."""
        atomic = isinstance(action, P0UpdateItem) and not self.impl.item_level(action.rid)
        return spec_steps(self.config, self.state, action, atomic)

    def apply(self, action: Action) -> None:
        """Apply `action` (enabled in the spec) to both sides and compare. `actions` gets one
        entry per spec step taken (an atomic update's item steps each), so that it is always
        the spec's trace, step for step.

        Where the spec allows the implementation a choice (`choices.alternatives`: keep or
        undo the shadow on a rejection; a reference missing the cache served from its own
        message's payload under D9), the implementation's step is compared with the
        action's spec step and, if they disagree, with each alternative's: the spec's trace
        takes the one that agrees (refinement: the implementation's step is one of the
        spec's), `choices` counts what was observed, and only if none agrees is the first
        disagreement raised."""
        before = self.state
        marks = (len(self.steps), len(self.actions), len(self.action_of_step))
        broken = dict(self.broken)
        self._take_spec_steps(action)
        self.impl.delivery = None
        self.spec_delivery = None
        self.before = before
        self.processings_before = len(before.processings)
        self.impl.processor_calls = 0
        if action.drift_event() is not None:
            self.monitors.drift()
        offered = choices.enabled_alternatives(self.config, action, before)
        self.spec.deferred = [] if offered else None
        try:
            self.impl.apply(action)
        finally:
            deferred, self.spec.deferred = self.spec.deferred or [], None
        try:
            self._judge(deferred, action)
        except Disagreement as first:
            action = self._alternative_agreeing(action, before, marks, broken, first, deferred)
        observed = choices.choice_of(action)
        others = choices.enabled_alternatives(self.config, action, before)
        if observed is not None and any(
                step(self.config, before, other) != self.state for other in others):
            self.choices[observed] = self.choices.get(observed, 0) + 1

    def _take_spec_steps(self, action: Action) -> None:
        for taken in self.spec_steps(action):
            self.spec.state = taken.state
            self.steps.append(taken)
            self.actions.append(action)
            self.action_of_step.append(len(self.actions))

    def _rewind(self, before: State, marks: tuple[int, int, int],
                broken: dict[str, Broken]) -> None:
        steps, actions, numbers = marks
        del self.steps[steps:], self.actions[actions:], self.action_of_step[numbers:]
        self.spec.state = before
        self.broken.clear()
        self.broken.update(broken)

    def _judge(self, deferred: Sequence[tuple[str, str]], action: Action) -> None:
        """The properties broken during the step (`SpecRun.deferred`), then the comparison."""
        for prop, reason in deferred:
            self.observer.fail_property(prop, reason)
        self._compare(len(self.actions), action)

    def _alternative_agreeing(self, action: Action, before: State, marks: tuple[int, int, int],
                              broken: dict[str, Broken], first: Disagreement,
                              deferred: Sequence[tuple[str, str]] = ()) -> Action:
        """The alternative of `action` whose spec step the implementation's step agrees with
        (the spec's side rewound and re-taken with it); raises `first` if there is none,
        with the run as `action`'s comparison left it (its broken properties too)."""
        found = dict(self.broken)
        for alternative in choices.enabled_alternatives(self.config, action, before):
            self._rewind(before, marks, broken)
            self._take_spec_steps(alternative)
            for front_end in range(len(self.impl.front_ends)):  # its tags, against this step
                self.impl.shadow_changed(front_end)
            try:
                self._judge(deferred, alternative)
            except Disagreement:
                continue
            return alternative
        self._rewind(before, marks, found)
        self._take_spec_steps(action)
        raise first

    def served_block(self, actions: Sequence[Action]) -> bool:
        """Whether `actions` (from here) start with a round trip the implementation's own
        end-to-end call can take: submit, P0's handle, P1's receive of that message (the only
        one in flight), the reply taken (the only one), each enabled in turn, no D9 on the
        channel, and a front end that offers `EndToEnd`."""
        impl = self.impl
        if len(actions) < 4 or self.config.enables(Drift.D9) or impl.channel or impl.replies:
            return False
        submit, handle, receive, reply = actions[:4]
        if not (isinstance(submit, Submit) and isinstance(handle, P0Handle)
                and isinstance(receive, P1Receive) and isinstance(reply, P0ReceiveReply)):
            return False
        if handle.rid != len(self.state.requests) or receive.index != 0:
            return False
        if not isinstance(impl.front_ends[submit.front_end], api.EndToEnd):
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
            self.spec.state = step(self.config, self.state, action)
            self.steps.append(Step(action, self.state))
            self.action_of_step.append(len(self.actions))
            if isinstance(action, P1Receive) and self.spec_delivery is None:
                self.spec_delivery = spec_delivery(
                    self.config, self.state, self.impl.delivery is not None)
        if submit.drift_event() is not None:
            self.monitors.drift()
        self.before = before
        self.processings_before = len(before.processings)
        self.impl.processor_calls = 0
        self.impl.serve(submit)
        self._compare(len(self.actions), actions[3])
        self.spec_delivery = None

    # -- comparing -------------------------------------------------------------------------

    def _compare(self, number: int, action: Action) -> None:
        impl, config = self.impl, self.config
        read = impl.guarded(lambda: self.decoder.read(impl)) if impl.fault is None else None
        views = read if isinstance(read, CacheViews) else None
        spec = SpecStep(self.state, self.before, self.processings_before, self.spec_delivery)
        pairs = early_pairs(config, self.decoder, spec, impl)
        if self.state.fault is None and impl.fault is None and views is not None:
            if tagless(config, self.state, impl, views):
                raise Disagreement(
                    number, action, "tags", "tagged", "untagged",
                    sentence=f"the implementation sends and records no tags, but "
                    f"{config.variant.name} tags every shadow entry and wire item: it cannot "
                    f"conform to {config.variant.name}; check it against an untagged variant "
                    f"(V0-V2) or give it tags",
                )
            pairs += cache_pairs(config, self.decoder, self.state, impl, views)
        for prop, reason in state_properties(config, self.decoder, impl, views):
            self.observer.fail_property(prop, reason)
        for label, spec_side, impl_side in pairs:
            if spec_side != impl_side:
                raise Disagreement(number, action, label, spec_side, impl_side)

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
        found = unfinished(self.state, self.impl.attempts)
        if found is not None:
            rid, how = found
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
                                              tuple(self.actions[:number]), self.served)

