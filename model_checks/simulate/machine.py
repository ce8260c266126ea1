"""The one Hypothesis state machine over any design: rules are the design's actions,
invariants its properties.

A design is driven through its `Design` interface (`spec/designs/base.py`: initial state,
step) and a declaration of its rules (`DesignRules`): which rules the machine has for a
configuration, which enabled actions each rule picks among, which are drift events, how the
run is settled at teardown and what is checked after each step. `GenericRules` declares them
for any design from its interface alone (one rule over every enabled action, the design's
properties checked on every state, quiescent ones on quiescent states);
`model_checks.simulate.lru_rules` declares the LRU design's (one rule per action type,
requests drawn whole, trace properties, the fair tail) and `rules_for` picks a design's.

One subclass per configuration (`machine_class`): the design's rules, the configuration and
the properties checked are class attributes and the constructor takes no argument, so the
trace Hypothesis prints (`state = V2_D1()`, `state.p1_receive(pick=1)`, ...) replays as it was
found (the configuration lives in the class, not in constructor arguments Hypothesis would
drop). Every generated class is also registered in this module's namespace (an attribute of
its name), where a printed trace finds it.

Rules: a pick rule's precondition is "the design enables at least one action of this rule"
(the design's guard, not a copy of it); its argument `pick` chooses among those actions, in
the design's order, modulo their number, so it never draws an invalid action and shrinks
towards the first. A drawn rule (the LRU's `submit`) draws its action's arguments itself. In
a halted state (`DesignRules.halted`: the LRU's fault is absorbing) the machine only stutters
(`halted`), which is no step of the design and is left out of traces. If nothing is enabled
and the design has not halted, that is a deadlock: the invariant fails loudly.

Focused swarm testing (`machine_class(..., focused=True)`, what `simulate` runs): Hypothesis's
swarm testing (rules turned off for a whole example) applies to the events only
(`DesignRules.event_rules`), never to a protocol step; at most `events` events per example.
Both keep examples from spending the instance on nothing (`tests/simulate/test_sim_swarm.py`).
Generated conformance runs keep Hypothesis's own swarm (`focused=False`, the default).

Checks: after every step, `DesignRules.broken` on the trace so far; at teardown the design's
run is settled (`DesignRules.settle`, the LRU's fair tail) and the whole trace checked again.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn, Protocol, cast

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from model_checks.explore.exploration import breaks
from model_checks.simulate.hypothesis_private import OrderedRules, use_rules
from spec.designs.base import Design


class PropertyViolated(AssertionError):
    """A checked property broke; carries the trace (the settling tail included, at
    teardown)."""

    def __init__(self, property_id: str, step_number: int, reason: str, trace: Any) -> None:
        super().__init__(f"{property_id} violated at step {step_number}: {reason}")
        self.property_id = property_id
        self.step_number = step_number
        self.reason = reason
        self.trace = trace
        self.prefix = step_number  # steps the machine took; the settling tail follows


class Deadlock(PropertyViolated):
    """Nothing is enabled and the design has not halted: a finding, never a silent stop."""

    def __init__(self, trace: Any, steps: int) -> None:
        reason = "no action is enabled and the system has not faulted"
        super().__init__("deadlock", steps, reason, trace)


@dataclass
class RuleStats:
    """Per machine class: how often each rule's actions were enabled when a rule was drawn,
    and how often one was taken (by the rule, or by the settling tail of an example, which
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


@dataclass(frozen=True)
class Rule:
    """One rule of a design's machine. A pick rule (`drawn` None) takes one of the enabled
    actions `DesignRules.rule_of` assigns to it, by `pick`; a drawn rule draws the keyword
    arguments `drawn(config, focused)` gives strategies for and takes `build(**drawn)`."""

    label: str
    pick: st.SearchStrategy[int] | None = None
    drawn: Callable[[Any, bool], Mapping[str, st.SearchStrategy[Any]]] | None = None
    build: Callable[..., Any] | None = None


class DesignRules(Protocol):
    """How the one machine drives a design (module doc): a design's declaration."""

    @property
    def design(self) -> Design: ...

    @property
    def priority(self) -> tuple[str, ...]:
        """The order rules are offered in (Hypothesis draws low indices more often); rules
        not named come after, in Hypothesis's order."""
        ...

    @property
    def event_rules(self) -> frozenset[str]:
        """The rules whose actions are events: at most `events` of them per example, and
        the only rules focused swarm testing may turn off for an example."""
        ...

    def rules(self, config: Any) -> tuple[Rule, ...]: ...

    def rule_of(self, action: Any) -> str:
        """The label of the rule that takes `action`."""
        ...

    def enabled(self, config: Any, state: Any) -> Sequence[Any]:
        """The enabled actions the rules pick among (in the design's order)."""
        ...

    def halted(self, config: Any, state: Any) -> bool:
        """No step follows, by design (not a deadlock)."""
        ...

    def events(self, config: Any) -> int: ...

    def record(self, action: Any, state: Any) -> Any:
        """One step of a trace: `action`, and the state it led to."""
        ...

    def trace(self, config: Any, steps: Sequence[Any]) -> Any:
        """The trace from the initial state through `steps`."""
        ...

    def actions(self, trace: Any) -> tuple[Any, ...]:
        """The actions of `trace`, in order."""
        ...

    def settle(self, config: Any, state: Any) -> tuple[Sequence[tuple[Any, Any]],
                                                       tuple[str, str] | None]:
        """The steps that settle the run at teardown (action, state after), or the property
        and reason of a failure to settle."""
        ...

    def broken(self, config: Any, trace: Any, checked: Sequence[str], final: bool
               ) -> tuple[str, int, str] | None:
        """The first of `checked` that `trace` breaks (property, step, reason), or None;
        `final`: the settled trace at teardown."""
        ...


@dataclass(frozen=True)
class GenericRules:
    """Any design's rules from its `Design` interface alone: one pick rule `step` over every
    enabled action, no events, the design halted where nothing is enabled, nothing to
    settle, and its properties checked on every state after every step (quiescent ones on
    quiescent states: `exploration.breaks`). A trace is the tuple of actions taken."""

    design: Design
    priority: tuple[str, ...] = ("step", "halted")
    event_rules: frozenset[str] = frozenset()

    def rules(self, config: Any) -> tuple[Rule, ...]:
        del config
        return (Rule("step", pick=st.integers(min_value=0, max_value=255)),)

    def rule_of(self, action: Any) -> str:
        del action
        return "step"

    def enabled(self, config: Any, state: Any) -> Sequence[Any]:
        return self.design.enabled(config, state)

    def halted(self, config: Any, state: Any) -> bool:
        return not self.design.enabled(config, state)

    def events(self, config: Any) -> int:
        del config
        return 0

    def record(self, action: Any, state: Any) -> Any:
        return (action, state)

    def trace(self, config: Any, steps: Sequence[Any]) -> Any:
        del config
        return tuple(steps)

    def actions(self, trace: Any) -> tuple[Any, ...]:
        return tuple(action for action, _ in trace)

    def settle(self, config: Any, state: Any) -> tuple[Sequence[tuple[Any, Any]],
                                                       tuple[str, str] | None]:
        del config, state
        return (), None

    def broken(self, config: Any, trace: Any, checked: Sequence[str], final: bool
               ) -> tuple[str, int, str] | None:
        if final:
            return None  # nothing settled: the last state was asked after its step
        state = trace[-1][1] if trace else self.design.initial(config)
        watched = [p for p in self.design.properties if p.id in checked]
        found = next(breaks(self.design, config, state, watched), None)
        return None if found is None else (found[0].id, len(trace), found[1])


class _OrderedRules(OrderedRules):
    """The rules in the design's `priority` order, and swarm testing on its `event_rules`
    only when focused (subclassed per design with its priority: `machine_class`)."""

    def swarmed(self, name: str) -> bool:
        """Hypothesis's swarm testing turns each rule off for a whole example with a
        probability drawn per example; when every rule whose precondition holds is off, the
        example is rejected. Turning off a protocol step cuts an example short wherever that
        step is the only way on (`tests/simulate/test_sim_swarm.py`), so a focused machine
        swarms only the design's `event_rules`. Unfocused machines
        (conformance) keep Hypothesis's rule: every rule may be turned off."""
        machine = self.machine
        return not (isinstance(machine, SpecMachine) and machine.focused
                    and name not in machine.design_rules.event_rules)


class SpecMachine(RuleBasedStateMachine):
    """Base of the generated machines; subclasses set `design_rules`, `config`, `checked`
    and `stats`."""

    design_rules: ClassVar[DesignRules]
    ordered: ClassVar[type[_OrderedRules]]
    config: ClassVar[Any]
    checked: ClassVar[tuple[str, ...]] = ()
    stats: ClassVar[RuleStats]
    focused: ClassVar[bool] = False
    """Focused swarm testing (module doc): events swarmed only."""
    events: ClassVar[int] = 3
    """At most this many events per example (`DesignRules.event_rules`): the LRU's fairness
    assumption's "finitely many drift events", and without it always-enabled events crowd
    out the protocol's own steps."""

    def __init__(self) -> None:
        super().__init__()
        use_rules(self, self.ordered(self))
        self.state: Any = self.design_rules.design.initial(self.config)
        self.steps: list[Any] = []
        self.fair_steps: list[Any] = []
        self._enabled_at = -1
        self._enabled: Sequence[Any] = []
        self.failed = False
        self.events_left = self.events

    # -- the design -------------------------------------------------------------------------

    def current_enabled(self) -> Sequence[Any]:
        """The design's enabled actions as its rules list them, once per step."""
        if self._enabled_at != len(self.steps):
            self._enabled = self.design_rules.enabled(self.config, self.state)
            self._enabled_at = len(self.steps)
        return self._enabled

    def of_rule(self, label: str) -> list[Any]:
        return [a for a in self.current_enabled() if self.design_rules.rule_of(a) == label]

    def take(self, action: Any) -> None:
        # Counted where a rule is drawn, not after every step: a rule enabled only in an
        # example's last state (a retry after a late miss) had no draw to lose.
        for label in {self.design_rules.rule_of(a) for a in self.current_enabled()}:
            self.stats.enabled[label] += 1
        self.state = self.design_rules.design.step(self.config, self.state, action)
        self.steps.append(self.design_rules.record(action, self.state))
        self.stats.fired[self.design_rules.rule_of(action)] += 1
        self.stats.steps += 1
        if self.is_event(action):
            self.events_left -= 1

    def is_event(self, action: Any) -> bool:
        return self.design_rules.rule_of(action) in self.design_rules.event_rules

    def trace(self) -> Any:
        return self.design_rules.trace(self.config, (*self.steps, *self.fair_steps))

    # -- rules ------------------------------------------------------------------------------

    @precondition(lambda self: self.is_over())
    @rule()
    def halted(self) -> None:
        """Stutter: the design halted, or only events are enabled and the example's events
        are used up. Not a step of the design; left out of traces."""

    def is_over(self) -> bool:
        if self.design_rules.halted(self.config, self.state):
            return True
        return self.events_left <= 0 and all(self.is_event(a) for a in self.current_enabled())

    # the design's rules are added per class by `machine_class`.

    # -- checks -----------------------------------------------------------------------------

    @invariant()
    def properties_hold(self) -> None:
        actions = self.current_enabled()
        if not actions and not self.design_rules.halted(self.config, self.state):
            self._fail(Deadlock(self.trace(), len(self.steps)))
        self._check(final=False)

    def teardown(self) -> None:
        if self.failed or self.design_rules.halted(self.config, self.state) or not self.checked:
            return
        tail, unsettled = self.design_rules.settle(self.config, self.state)
        if unsettled is not None:
            prop, reason = unsettled
            self._fail(PropertyViolated(prop, len(self.steps), reason, self.trace()))
        self.fair_steps = [self.design_rules.record(a, s) for a, s in tail]
        for action, _ in tail:  # the settling tail is part of every checked trace
            self.stats.fired[self.design_rules.rule_of(action)] += 1
        self._check(final=True)

    def _fail(self, error: PropertyViolated) -> NoReturn:
        """Raise every finding from this one line: Hypothesis tells bugs apart by where they are
        raised, and a property broken inside a step or at teardown is the same finding."""
        self.failed = True
        error.prefix = len(self.steps)
        raise error

    def _check(self, final: bool) -> None:
        trace = self.trace()
        found = self.design_rules.broken(self.config, trace, self.checked, final)
        if found is not None:
            self._fail(PropertyViolated(*found, trace))


def _pick_rule(declared: Rule, event: bool) -> Callable[..., None]:
    label = declared.label

    def take_one(self: SpecMachine, pick: int) -> None:
        options = self.of_rule(label)
        self.take(options[pick % len(options)])

    take_one.__name__ = label
    take_one.__qualname__ = label
    take_one.__doc__ = f"Take an enabled action of rule `{label}` (index `pick`, modulo)."

    def has_one(self: SpecMachine) -> bool:
        if event and self.events_left <= 0:
            return False
        return bool(self.of_rule(label))

    assert declared.pick is not None
    return rule(pick=declared.pick)(precondition(has_one)(take_one))


def _drawn_rule(declared: Rule, config: Any, focused: bool) -> Callable[..., None]:
    assert declared.drawn is not None and declared.build is not None
    build, label = declared.build, declared.label

    def take_drawn(self: SpecMachine, **drawn: Any) -> None:
        self.take(build(**drawn))

    take_drawn.__name__ = label
    take_drawn.__qualname__ = label
    take_drawn.__doc__ = f"Take a drawn `{label}` action."
    can_take: Callable[[SpecMachine], bool] = lambda self: bool(self.of_rule(label))  # noqa: E731
    drawn = dict(declared.drawn(config, focused))
    decorate: Callable[[Callable[..., None]], Callable[..., None]] = cast(Any, rule)(**drawn)
    return decorate(precondition(can_take)(take_drawn))


def rule_names(rules: DesignRules, config: Any) -> tuple[str, ...]:
    """The rules of a machine for `config`, in the design's declaration order."""
    return tuple(r.label for r in rules.rules(config))


_REGISTERED: dict[str, type[SpecMachine]] = {}
_ORDERED: dict[tuple[str, ...], type[_OrderedRules]] = {}


def machine_class(
    name: str, rules: DesignRules, config: Any, checked: Sequence[str],
    focused: bool = False, registered: bool = True,
) -> type[SpecMachine]:
    """The machine driving `rules.design` on `config`, checking `checked`, named `name` and
    registered in this module (the same name always gives the same class, so printed traces
    replay; `registered=False`: a new class, not registered); `focused`: focused swarm
    testing (module doc); at most the design's `events` per example.

    The name is what a derandomized search's seed derives from (Hypothesis digests a state
    machine class it has no source for by its name), so one name always searches alike."""
    events = rules.events(config)
    existing = _REGISTERED.get(name) if registered else None
    if existing is not None:
        same = (existing.design_rules, existing.config, existing.checked, existing.events,
                existing.focused)
        if same != (rules, config, tuple(checked), events, focused):
            raise ValueError(f"machine {name!r} already exists with another configuration")
        return existing
    ordered = _ORDERED.setdefault(rules.priority, type(
        "_OrderedRules", (_OrderedRules,), {"priority": rules.priority}))
    namespace: dict[str, Any] = {
        "design_rules": rules, "ordered": ordered, "config": config, "checked": tuple(checked),
        "stats": RuleStats(), "events": events, "focused": focused,
        "__module__": __name__, "__qualname__": name,
    }
    for declared in rules.rules(config):
        namespace[declared.label] = (
            _pick_rule(declared, declared.label in rules.event_rules) if declared.drawn is None
            else _drawn_rule(declared, config, focused))
    cls = type(name, (SpecMachine,), namespace)
    if registered:
        _REGISTERED[name] = cls
        setattr(sys.modules[__name__], name, cls)
    return cls
