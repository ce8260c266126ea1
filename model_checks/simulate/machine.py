"""Hypothesis state machines over the spec: rules are the spec's actions, invariants its
properties.

One subclass per configuration (`machine_class`): the configuration and the properties checked
are class attributes and the constructor takes no argument, so the trace Hypothesis prints
(`state = V2_D1()`, `state.p1_receive(pick=1)`, ...) replays as it was found
(the configuration lives in the class, not in constructor arguments Hypothesis would drop).
Every generated class is also registered in this module's namespace (an attribute of its
name), where a printed trace finds it.

Rules: one per action type. A rule's precondition is "the spec enables at least one action of
this type" (the spec's guard, not a copy of it); its argument `pick` chooses among the enabled
actions of that type, in the spec's candidate order, modulo their number, so it never draws an
invalid action and shrinks towards the oldest request or message. `submit` draws the request
itself (identities, contents, media attached or not, front end), filtered by the spec's
guard. After a fault nothing is enabled (a fault is absorbing); the machine then only
stutters (`halted`), which is no step of the spec and is left out of traces. If nothing is
enabled and the system has not faulted, that is a deadlock: the invariant fails loudly.

Focused swarm testing (`machine_class(..., focused=True)`, what `simulate` runs): Hypothesis's
swarm testing (rules turned off for a whole example) applies to the events only (`SWARMED`:
drift actions and the synchronised clear), never to a protocol step; and whether requests may
carry UUID-only items is drawn once per example (`UUID_ONLY`). Both keep examples from
spending the instance's four requests on nothing (`_OrderedRules`,
`tests/simulate/test_sim_swarm.py`). Generated conformance runs keep Hypothesis's own swarm
(`focused=False`, the default), so their derandomised verdicts stay as they were.

Checks: after every step, every checked state property of the registry (S1-S4, H1) on the new
state, and the checked trace properties (L1-L4) over the trace so far: L1-L3 are bounded-
response monitors, L4 judges quiescent states. At teardown the machine drives the system to
quiescence under the fairness assumption (`spec.fairness`) and checks the whole trace again, so
L3 and L4 are judged on the recovery path.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from model_checks.kernel.judged import Judged, Table
from model_checks.simulate.hypothesis_private import OrderedRules, use_rules
from spec import Config, Drift, Kind, State, Trace, by_id, initial, registry, step
from spec.fairness import FairnessBoundExceeded, drive_to_quiescence
from spec.state import ClientItem
from spec.trace import Step
from spec.transitions import ACTION_TYPES, Action, ClearBoth, P1Reset, Submit
from spec.transitions.client import request_fits_unless_d8

PICK = st.integers(min_value=0, max_value=7)
"""Which enabled action of a type to take, modulo how many there are."""


class PropertyViolated(AssertionError):
    """A checked property broke; carries the trace (the fair tail included, at teardown)."""

    def __init__(self, property_id: str, step_number: int, reason: str, trace: Trace) -> None:
        super().__init__(f"{property_id} violated at step {step_number}: {reason}")
        self.property_id = property_id
        self.step_number = step_number
        self.reason = reason
        self.trace = trace
        self.prefix = len(trace.steps)  # steps the machine took; the fair tail follows


class Deadlock(PropertyViolated):
    """Nothing is enabled and the system has not faulted: a finding, never a silent stop."""

    def __init__(self, trace: Trace) -> None:
        reason = "no action is enabled and the system has not faulted"
        super().__init__("deadlock", len(trace.steps), reason, trace)


@dataclass
class RuleStats:
    """Per machine class: how often each rule's action type was enabled when a rule was drawn,
    and how often its action was taken (by the rule, or by the fair tail of an example, which
    every check includes)."""

    enabled: Counter[str] = field(default_factory=Counter)
    fired: Counter[str] = field(default_factory=Counter)
    steps: int = 0

    def merge(self, other: RuleStats) -> None:
        self.enabled.update(other.enabled)
        self.fired.update(other.fired)
        self.steps += other.steps

    def never_fired(self, at_least: int = 10) -> list[str]:
        """Rules enabled after at least `at_least` steps that never fired (a coverage failure).
        A rule enabled only a few times (a retry after a rare miss) may legitimately lose
        every draw; the statistics table still shows it."""
        return sorted(
            n for n, count in self.enabled.items() if count >= at_least and not self.fired[n]
        )


PRIORITY: tuple[str, ...] = (
    "p1_receive",
    "p0_receive_reply",
    "retry",
    "p0_handle",
    "p0_update_item",
    "submit",
    "p0_process",
    "p0_handle_rejected",
    "p0_handle_rejected_undo",
    "p1_receive_own_payload",
    "p1_clear",
    "p1_restart",
    "p1_reset",
    "p0_clear_for_reset",
    "p0_clear",
    "p0_restart",
    "clear_both",
    "halted",
)
"""The order rules are offered in. Hypothesis sorts rules by name and draws low indices more
often; in name order the always-enabled `clear_both` came first and fired five times as often
as `p1_clear`, and messages were rarely delivered. Protocol steps first, then drift events."""


class _OrderedRules(OrderedRules):
    """The rules in `PRIORITY` order, and swarm testing on the events only."""

    priority = PRIORITY

    def swarmed(self, name: str) -> bool:
        """Hypothesis's swarm testing turns each rule off for a whole example with a
        probability drawn per example; when every rule whose precondition holds is off, the
        example is rejected. Turning off a protocol step (submit, handle, receive, reply)
        cuts an example short wherever that step is the only way on: 3 of 4 examples of
        V2 under D7+D8 ended so, and V2's S1 there (11 steps) and under D6+D7 (17) were not
        found in 1,000 examples (`tests/simulate/test_sim_swarm.py`). So only the events
        (`is_event`: drift actions and the synchronised clear) are swarmed: an example with
        no clears, or without rejections, is what swarm testing is for. Unfocused machines
        (conformance) keep Hypothesis's rule: every rule may be turned off."""
        return not (getattr(self.machine, "focused", False) and name not in SWARMED)


class SpecMachine(RuleBasedStateMachine):
    """Base of the generated machines; subclasses set `config`, `checked` and `stats`."""

    config: ClassVar[Config]
    checked: ClassVar[tuple[str, ...]] = ()
    stats: ClassVar[RuleStats]
    focused: ClassVar[bool] = False
    """Focused swarm testing (module doc): events swarmed only, UUID-only items per example."""
    events: ClassVar[int] = 3
    """At most this many drift events and synchronised clears per example (see
    `is_event`): the fairness assumption's "finitely many drift events", and without it the
    always-enabled clears crowd out the protocol's own steps."""

    def __init__(self) -> None:
        super().__init__()
        use_rules(self, _OrderedRules(self))
        self.state: State = initial(self.config)
        self.steps: list[Step] = []
        self.fair_steps: list[Step] = []
        self._enabled_at = -1
        self._enabled: list[Action] = []
        self.failed = False
        self.events_left = self.events

    # -- the spec ---------------------------------------------------------------------------

    def current_enabled(self) -> list[Action]:
        """The spec's enabled actions, except that of `Submit` only the first is listed: the
        submit rule draws its own request, and listing hundreds of request shapes every step
        would dominate the run time."""
        if self._enabled_at != len(self.steps):
            self._enabled = _enabled_cheaply(self.config, self.state)
            self._enabled_at = len(self.steps)
        return self._enabled

    def of_type(self, action_type: type[Action]) -> list[Action]:
        return [a for a in self.current_enabled() if type(a) is action_type]

    def take(self, action: Action) -> None:
        # Counted where a rule is drawn, not after every step: a rule enabled only in an
        # example's last state (a retry after a late miss) had no draw to lose.
        for action_type in {type(a) for a in self.current_enabled()}:
            self.stats.enabled[action_type.label] += 1
        self.state = step(self.config, self.state, action)
        self.steps.append(Step(action, self.state))
        self.stats.fired[action.label] += 1
        self.stats.steps += 1
        if is_event(type(action)):
            self.events_left -= 1

    def trace(self) -> Trace:
        steps = (*self.steps, *self.fair_steps)
        return Trace(self.config, initial(self.config), tuple(steps))

    # -- rules ------------------------------------------------------------------------------

    @precondition(lambda self: self.is_over())
    @rule()
    def halted(self) -> None:
        """Stutter: the system faulted (absorbing), or only events are enabled and the
        example's events are used up. Not a step of the spec; left out of traces."""

    def is_over(self) -> bool:
        if self.state.fault is not None:
            return True
        return self.events_left <= 0 and all(is_event(type(a)) for a in self.current_enabled())

    # `submit` and the pick rules are added per class by `machine_class`.

    # -- checks -----------------------------------------------------------------------------

    @invariant()
    def properties_hold(self) -> None:
        actions = self.current_enabled()
        if not actions and self.state.fault is None:
            self._fail(Deadlock(self.trace()))
        self._check(final=False)

    def teardown(self) -> None:
        if self.failed or self.state.fault is not None or not self.checked:
            return
        try:
            tail = drive_to_quiescence(self.config, self.state)
        except FairnessBoundExceeded as error:
            self._fail(PropertyViolated("L4", len(self.steps), str(error), self.trace()))
        self.fair_steps = [Step(a, s) for a, s in tail]
        for action, _ in tail:  # the fair tail is part of every checked trace
            self.stats.fired[action.label] += 1
        self._check(final=True)

    def _fail(self, error: PropertyViolated) -> NoReturn:
        """Raise every finding from this one line: Hypothesis tells bugs apart by where they are
        raised, and a property broken inside a step or at teardown is the same finding."""
        self.failed = True
        error.prefix = len(self.steps)
        raise error

    def _check(self, final: bool) -> None:
        trace = self.trace()
        state = trace.final
        number = len(trace.steps)
        for prop_id in self.checked:
            prop = by_id(prop_id)
            if prop.kind is Kind.LIVENESS:
                if prop_id == "L4" and not final and state.fault is None:
                    # L4 judges quiescent traces only, and what it judges there (a fault, a
                    # request ended as a miss with no retry left) is final: judging it at
                    # teardown, after the fair tail, finds the same violations, without a full
                    # `enabled` at every step.
                    continue
                violation = prop.check_trace(trace)
                if violation is not None:
                    self._fail(PropertyViolated(prop_id, violation.step, violation.reason, trace))
            elif not final:
                reasons = prop.check_state(self.config, state)
                if reasons:
                    self._fail(PropertyViolated(prop_id, number, "; ".join(reasons), trace))
            else:
                found = prop.check_trace(trace)  # the fair tail's states too
                if found is not None:
                    self._fail(PropertyViolated(prop_id, found.step, found.reason, trace))


def _enabled_cheaply(config: Config, state: State) -> list[Action]:
    if state.fault is not None:
        return []
    found: list[Action] = []
    for action_type in ACTION_TYPES:
        if not _available(action_type, config):
            continue
        for action in action_type.enabled_instances(config, state):
            found.append(action)
            if action_type is Submit:
                break
    return found


COMPLETIONS: frozenset[type[Action]] = frozenset({P1Reset})
"""Drift steps that finish an event an example already took (D4's reset reaching P1 after
P0's clear): owed, not chosen, so neither budgeted nor swarmed. Budgeting one stranded it
whenever the clear was the example's last event: enabled in every later step, never fired."""


def is_event(action_type: type[Action]) -> bool:
    """Drift events (a clear, a restart, a rejection, a split P0 update) and the protocol's
    synchronised clear: the steps an example may take only `events` times. The completion of
    an event taken (`COMPLETIONS`) is none."""
    if action_type in COMPLETIONS:
        return False
    return action_type.drift is not None or action_type is ClearBoth


SWARMED = frozenset(t.label for t in ACTION_TYPES if is_event(t))
"""The rules Hypothesis's swarm testing may turn off for an example (`_OrderedRules`)."""


def _pick_rule(action_type: type[Action]) -> Callable[..., None]:
    def take_one(self: SpecMachine, pick: int) -> None:
        options = self.of_type(action_type)
        self.take(options[pick % len(options)])

    take_one.__name__ = action_type.label
    take_one.__qualname__ = action_type.label
    take_one.__doc__ = f"Take an enabled `{action_type.__name__}` (index `pick`, modulo)."
    def has_one(self: SpecMachine) -> bool:
        if is_event(action_type) and self.events_left <= 0:
            return False
        return bool(self.of_type(action_type))

    return rule(pick=PICK)(precondition(has_one)(take_one))


UUID_ONLY = "UUID-only items in this example"
"""The key of the example-wide choice whether requests may carry UUID-only items."""


def _items_strategy(config: Config, focused: bool) -> st.SearchStrategy[tuple[ClientItem, ...]]:
    @st.composite
    def items(draw: st.DrawFn) -> tuple[ClientItem, ...]:
        identities = draw(
            st.lists(
                st.sampled_from(config.identities),
                min_size=1,
                max_size=config.max_items,
                unique=not config.duplicates,  # with duplicates, one identity may recur
            )
        )
        # Swarm testing of a request feature: UUID-only items appear in an example or not at
        # all (drawn once per example; shrinks towards none). A UUID-only item P0 does not
        # hold ends its request as a client error at once, spending one of the instance's
        # few requests: breaks that need every request (V2's S1 under D7+D8 takes all 4)
        # were out of reach while every example spent some that way.
        uuid_only = draw(st.shared(st.booleans(), key=UUID_ONLY)) if focused else True
        drawn = []
        for identity in identities:
            version = draw(st.integers(0, config.versions - 1))
            # UUID-only one time in four where allowed (it shrinks towards media attached).
            has_data = not uuid_only or draw(st.integers(0, 3)) != 3
            drawn.append(ClientItem(identity, version, has_data))
        return tuple(drawn)

    # Without D8 the spec's guard also asks that the items fit the budget together.
    return items().filter(lambda drawn: request_fits_unless_d8(config, drawn))


def _submit_rule(config: Config, focused: bool) -> Callable[..., None]:
    def submit(self: SpecMachine, items: tuple[ClientItem, ...], front_end: int) -> None:
        self.take(Submit(items, front_end))

    submit.__doc__ = "Submit a new request (the spec's `Submit`)."
    can_submit: Callable[[SpecMachine], bool] = lambda self: bool(self.of_type(Submit))  # noqa: E731
    return rule(
        items=_items_strategy(config, focused), front_end=st.integers(0, config.front_ends - 1)
    )(precondition(can_submit)(submit))


def rule_names(config: Config) -> tuple[str, ...]:
    """The rules of a machine for `config`: one per action type the configuration allows."""
    return tuple(t.label for t in ACTION_TYPES if _available(t, config))


def _available(action_type: type[Action], config: Config) -> bool:
    return action_type.requires is None or config.enables(action_type.requires)


def default_events(config: Config) -> int:
    """R+1 events, enough for an adversary to defeat R retries; 2(R+1) under D4, where each P1
    wipe takes two events (the clear and the reset). More events only add noise: the always-
    enabled clears crowd out the protocol's steps."""
    return (config.max_retries + 1) * (2 if config.enables(Drift.D4) else 1)


_REGISTERED: dict[str, type[SpecMachine]] = {}


def machine_class(
    name: str, config: Config, checked: Sequence[str], events: int | None = None,
    focused: bool = False,
) -> type[SpecMachine]:
    """The machine for `config` checking `checked`, named `name` and registered in this module
    (the same name always gives the same class, so printed traces replay); `focused`: focused
    swarm testing (module doc)."""
    if events is None:
        events = default_events(config)
    existing = _REGISTERED.get(name)
    if existing is not None:
        same = (existing.config, existing.checked, existing.events, existing.focused)
        if same != (config, tuple(checked), events, focused):
            raise ValueError(f"machine {name!r} already exists with another configuration")
        return existing
    namespace: dict[str, Any] = {
        "config": config,
        "checked": tuple(checked),
        "stats": RuleStats(),
        "events": events,
        "focused": focused,
        "__module__": __name__,
        "__qualname__": name,
    }
    for action_type in ACTION_TYPES:
        if not _available(action_type, config):
            continue
        if action_type is Submit:
            namespace["submit"] = _submit_rule(config, focused)
        else:
            namespace[action_type.label] = _pick_rule(action_type)
    cls = type(name, (SpecMachine,), namespace)
    _REGISTERED[name] = cls
    setattr(sys.modules[__name__], name, cls)
    return cls


def judged() -> Table:
    """What the Hypothesis machines judge: every property of the registry, a state property
    on every state after every step and on the fair tail's states at teardown, a trace
    property over the trace so far and over the whole trace at teardown (`_check`)."""
    return {
        prop.id: Judged("every state after every step, and the fair tail at teardown")
        if prop.state_check is not None else
        Judged("the trace so far after every step, and the whole trace at teardown")
        for prop in registry()
    }
