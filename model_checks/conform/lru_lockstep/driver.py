"""The LRU design's lockstep run: one spec action at a time, to the spec and to the
implementation, as the one lockstep driver takes it (`design_lockstep.take_step`, `settle`).

`Lockstep` declares the driver's capabilities (`design_lockstep.Stepping`, `Settling`): the
spec's steps of an implementation step (`spec_steps`: several for an atomic update), the
implementation's step (`Implementation` makes the action's adapter calls), the judgement
(every observation compared, `views`, and S1-S3 judged on the implementation,
`properties`), the choices the spec allows (`choices`) with the spec's side marked and
rewound, and the end of a run (`owed` under fairness, then L4 at rest). The implementation's
events go to the run's observer (`observer.RunObserver`, which feeds the L1-L3 monitors and
the tag bijection as they happen). The run owns the spec's run so far (`observer.SpecRun`),
the observer and the implementation; the implementation knows only the observer. The first
difference raises `Disagreement`, labelled with the step, the action and both observations.
"""

from __future__ import annotations

from collections.abc import Sequence

from model_checks.conform import adapter as api
from model_checks.conform.design_lockstep import take_step
from model_checks.conform.lru_lockstep import choices
from model_checks.conform.lru_lockstep.disagreement import Broken, Disagreement
from model_checks.conform.lru_lockstep.implementation import EngineFactory, Implementation
from model_checks.conform.lru_lockstep.judged import on_agreed_trace
from model_checks.conform.lru_lockstep.monitors import Monitors, unfinished
from model_checks.conform.lru_lockstep.observer import RunObserver, SpecRun
from model_checks.conform.lru_lockstep.properties import state_properties
from model_checks.conform.lru_lockstep.views import (
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
conformance's table (`judged`) says; every other property it judges has a monitor on the
implementation's own observations."""

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


Taken = tuple[Action, ...]
"""The actions of one implementation step: one action (its spec steps `Lockstep.spec_steps`),
or a round trip's four, which the implementation's end-to-end call takes at once."""

Mark = tuple[State, tuple[Step, ...], tuple[Action, ...], tuple[int, ...], dict[str, Broken]]
"""The spec's side of a run at one moment (`Lockstep.mark`): its state, its steps, their
actions and lockstep numbers, and the properties broken."""


class Lockstep:
    """One lockstep run from the initial state: the LRU design's `design_lockstep.Stepping`
    and `Settling` run. `apply` raises `Disagreement`."""

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
        """Apply `action` (enabled in the spec) to both sides and compare, by the one
        lockstep step (`design_lockstep.take_step`). `actions` gets one entry per spec step
        taken (an atomic update's item steps each): it is always the spec's trace. Where the
        spec allows a choice (`choices.alternatives`: keep or undo the shadow on a rejection;
        under D9, a reference missing the cache served from its own message's payload), the
        step takes the alternative the implementation's step agrees with, and `choices`
        counts what was observed."""
        before = self.state
        (action,) = take_step(self, (action,))
        observed = choices.choice_of(action)
        others = choices.enabled_alternatives(self.config, action, before)
        if observed is not None and any(
                step(self.config, before, other) != self.state for other in others):
            self.choices[observed] = self.choices.get(observed, 0) + 1

    # -- the capabilities of `design_lockstep.Stepping` --------------------------------------
    # A step's actions (`Taken`): one action, or a round trip's four (`apply_served`).

    def mark(self) -> Mark:
        """The spec's side now: its state, its trace so far, what was broken."""
        return (self.state, tuple(self.steps), tuple(self.actions), tuple(self.action_of_step),
                dict(self.broken))

    def rewind(self, mark: Mark) -> None:
        self.spec.state, self.steps[:], self.actions[:], self.action_of_step[:], broken = mark
        self.broken.clear()
        self.broken.update(broken)

    def take_spec(self, taken: Taken) -> None:
        """The spec's steps of the implementation's step: an action's (`spec_steps`), or a
        round trip's four, P1's delivery the spec's receive step (`views.spec_delivery`);
        the state before them is the step's `before`."""
        self.before = self.state
        if len(taken) > 1:
            for action in taken:
                self._take(Step(action, step(self.config, self.state, action)))
                if isinstance(action, P1Receive) and self.spec_delivery is None:
                    self.spec_delivery = spec_delivery(
                        self.config, self.state, self.impl.delivery is not None)
            return
        for spec_step in self.spec_steps(taken[0]):
            self._take(spec_step)

    def _take(self, spec_step: Step) -> None:
        self.spec.state = spec_step.state
        self.steps.append(spec_step)
        self.actions.append(spec_step.action)
        self.action_of_step.append(len(self.actions))

    def alternatives(self, taken: Taken) -> tuple[Taken, ...]:
        if len(taken) > 1:
            return ()
        return tuple((other,) for other in
                     choices.enabled_alternatives(self.config, taken[0], self.before))

    def drive(self, taken: Taken, choosing: bool) -> list[tuple[str, str]]:
        """The step's adapter calls (a round trip: the front end's own end-to-end call); the
        observer judges the implementation's events as they happen, deferring while the step
        is a choice (`SpecRun.deferred`)."""
        if len(taken) == 1:
            self.impl.delivery = None
            self.spec_delivery = None
        if taken[0].drift_event() is not None:
            self.monitors.drift()
        self.processings_before = len(self.before.processings)
        self.impl.processor_calls = 0
        submit = taken[0]
        if len(taken) > 1 and isinstance(submit, Submit):
            self.impl.serve(submit)
            return []
        self.spec.deferred = [] if choosing else None
        try:
            self.impl.apply(taken[0])
        finally:
            deferred, self.spec.deferred = self.spec.deferred or [], None
        return deferred

    def judge(self, taken: Taken, deferred: Sequence[tuple[str, str]], again: bool) -> None:
        """The properties broken during the step (`SpecRun.deferred`), then the comparison;
        a step re-taken as another choice has its shadows' tags paired again first."""
        if again:
            for front_end in range(len(self.impl.front_ends)):
                self.impl.shadow_changed(front_end)
        for prop, reason in deferred:
            self.observer.fail_property(prop, reason)
        self._compare(len(self.actions), taken[-1])
        if len(taken) > 1:
            self.spec_delivery = None

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
        """One round trip (`served_block`) through the implementation's own end-to-end call,
        by the one lockstep step: the spec takes its four steps, the implementation one
        call; everything is compared after it, P1's delivery against the spec's receive
        step."""
        take_step(self, tuple(actions[:4]))

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

    def owed(self) -> Action | None:
        """The action the spec's fair scheduler owes the run next (None: quiescent or
        faulted)."""
        owed = pending(self.config, self.state)
        return None if self.state.fault is not None or not owed else fair_choice(owed)

    def at_rest(self) -> None:
        """L4 on the implementation at quiescence (nothing judged where the spec faulted or
        is still owed a step)."""
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

