"""Lockstep runs of the LRU design: a script followed by the one lockstep run
(`design_lockstep.run_script`) on the binding's `Session`, and shrinking a disagreement to a
shorter script.

Each run is a `Lockstep` that is always closed; its `Outcome` reports the binding's
`Disagreement` (carrying the steps taken and the properties broken so far) and its `Broken`
properties.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from model_checks.conform import adapter as api
from model_checks.conform.design_lockstep import Differs, NotDriven, Outcome, run_script, settle
from model_checks.conform.lru_lockstep.disagreement import Broken, Disagreement
from model_checks.conform.lru_lockstep.driver import Lockstep
from model_checks.conform.lru_lockstep.implementation import EngineFactory
from model_checks.kernel import lru_notation
from spec import Config, State
from spec.machine import initial, is_enabled, step
from spec.trace import Step, Trace
from spec.transitions import Action

Ran = Outcome[Disagreement, Broken]
"""A lockstep run of the LRU design, as `replay` reports it."""


@dataclass(frozen=True)
class Driving:
    """How `replay` drives a script: `settle`, settle the run at the end; the
    `engine_factory` (None: the adapter's engine); `served`: every round trip the
    implementation's own end-to-end call can take (`Lockstep.served_block`) goes through it;
    `exact` (a trace file's replay): every action is one spec step, followed as written, or
    the run stops at the first one that cannot be driven (`not_followed`); otherwise
    (shrinking, scripts) an action the spec does not enable is skipped."""

    settle: bool = True
    engine_factory: EngineFactory | None = None
    served: bool = False
    exact: bool = False


def replay(config: Config, adapter: api.Adapter, actions: Iterable[Action],
           driving: Driving = Driving(),
           sink: Callable[[Lockstep], None] | None = None) -> Ran:
    """A script in lockstep, as `driving` says, by the one lockstep run
    (`design_lockstep.run_script`): its steps are spec steps, its actions the spec's trace
    taken, its disagreement carrying them. `sink` is called with the run when it agreed."""
    run = session(config, adapter, driving)
    outcome = run_script(run, list(actions))
    if sink is not None and outcome.disagreement is None and outcome.not_driven is None:
        sink(run.run)
    return outcome


def session(config: Config, adapter: api.Adapter, driving: Driving = Driving()) -> Session:
    """A fresh lockstep run of `adapter` on `config`, as `driving` says."""
    return Session(config, Lockstep(config, adapter, driving.engine_factory), driving)


def raised(outcome: Ran) -> None:
    """Raise the run's `Disagreement`, if any (the conformance run's cases report it so);
    a step not driven is a `NotDriven`."""
    if outcome.disagreement is not None:
        raise outcome.disagreement
    if outcome.not_driven is not None:
        raise NotDriven(outcome.not_driven)


@dataclass
class Session:
    """A script followed on a `Lockstep` run (`design_lockstep.Session`): a round trip its
    implementation's end-to-end call can take is one step of four actions (where the run is
    `served`); an atomic update's item steps are one step, written once in a script and each
    in a trace (`exact`); an action the spec does not enable is skipped, or, in a trace,
    not followed (`not_followed`). A disagreement is raised; the run ends settled (where
    `driving` says) and with the agreed trace judged (`Lockstep.judge_agreed_trace`). The
    one Hypothesis machine steps it too (`conform.machine.Stepped`)."""

    config: Config
    run: Lockstep
    driving: Driving

    def __post_init__(self) -> None:
        self.run.served = self.driving.served

    def width(self, script: Sequence[Action], index: int) -> int:
        run = self.run
        if run.served and run.served_block(script[index:]):
            return 4
        action = script[index]
        if not is_enabled(self.config, run.state, action):
            if self.driving.exact:
                raise not_followed(index + 1, action, "the spec does not enable it here: "
                                   "the file is not a trace of its configuration")
            return 0
        if not self.driving.exact:
            return 1
        taken = len(run.spec_steps(action))
        _check_atomic(script, index, taken)
        return taken

    @property
    def state(self) -> State:
        return self.run.state

    def records(self) -> list[Step]:
        return list(self.run.steps)

    def apply(self, action: Action) -> None:
        """One action in lockstep (`Lockstep.apply`), as the one Hypothesis machine steps a
        run (`conform.machine.Stepped`)."""
        self.run.apply(action)

    def take(self, actions: Sequence[Action]) -> None:
        if self.run.served and self.run.served_block(actions):
            self.run.apply_served(actions)
        else:
            self.run.apply(actions[0])
        return None

    @property
    def steps(self) -> int:
        return len(self.run.actions)

    def taken(self) -> tuple[Action, ...]:
        return tuple(self.run.actions)

    def end(self) -> None:
        if self.driving.settle:
            settle(self.run)  # to quiescence under fairness, then L4 (`Lockstep.at_rest`)
        self.run.judge_agreed_trace()

    def finding(self, differs: Differs) -> Disagreement:
        if not isinstance(differs, Disagreement):
            raise differs
        differs.actions = tuple(self.run.actions)
        differs.broken = dict(self.run.broken)
        differs.served = self.run.served
        return differs

    def broken(self) -> dict[str, Broken]:
        return dict(self.run.broken)

    def close(self) -> None:
        self.run.close()


def not_followed(step: int, action: Action | None, why: str) -> NotDriven:
    """A trace step the lockstep cannot drive on this implementation (`step` from 1, its
    `action`, and why): a replay stops there, and nothing after it is judged."""
    what = "" if action is None else f" ({lru_notation.action(action)})"
    stopped = NotDriven(f"step {step}{what}: {why}")
    stopped.step = step
    return stopped


def _check_atomic(script: Sequence[Action], index: int, taken: int) -> None:
    """An atomic update takes `taken` item steps at once: the script must have them there,
    consecutively, else the step that interleaves cannot be driven."""
    action = script[index]
    for offset in range(1, taken):
        other = script[index + offset] if index + offset < len(script) else None
        if other != action:
            where = ("the trace ends" if other is None else
                     f"step {index + offset + 1} is {lru_notation.action(other)}")
            raise not_followed(index + 1, action, (
                f"the front end's update is atomic (it has no update_item, "
                f"adapter.ItemUpdates): it takes the {taken} item steps of this update at "
                f"once, but {where} before its item {offset + 1}"))


def shrink(
    config: Config,
    adapter: api.Adapter,
    found: Disagreement,
    *,
    engine_factory: EngineFactory | None = None,
    budget: int = 300,
) -> Disagreement:
    """A shorter script with a disagreement caught by the same check (`deleted`)."""

    def again(candidate: list[Action]) -> Disagreement | None:
        ran = replayed(config, adapter, candidate, Driving(
            engine_factory=None if found.served else engine_factory, served=found.served))
        return None if ran is None or ran.disagreement is None or (
            ran.disagreement.caught_by != found.caught_by) else ran.disagreement

    return deleted(found, list(found.actions[: found.step]), again,
                   lambda d: (d.step, list(d.actions[: d.step])), budget)


T = TypeVar("T")


def deleted(found: T, actions: list[Action], again: Callable[[list[Action]], T | None],
            measure: Callable[[T], tuple[int, list[Action]]], budget: int) -> T:
    """Greedy deletion of `found`'s `actions`: single actions, then blocks of 2, then of 4
    (a round trip), until nothing goes or `budget` candidates were tried, keeping a
    candidate only where `again` finds it again, earlier (`measure`: the step it is found
    at, and the actions to delete from next)."""
    best, tries, changed = found, 0, True
    while changed and tries < budget:
        changed = False
        for width in (1, 2, 4):
            for index in range(len(actions) - width, -1, -1):
                if tries >= budget or index + width > len(actions):
                    continue
                tries += 1
                candidate = again(actions[:index] + actions[index + width:])
                if candidate is not None and measure(candidate)[0] < measure(best)[0]:
                    best, actions, changed = candidate, measure(candidate)[1], True
    return best


def spec_trace(config: Config, actions: Sequence[Action]) -> Trace | None:
    """The spec's trace of a lockstep script (one spec step per action, as `Lockstep.actions`
    records them), or None if the script is not a valid spec trace as written."""
    state = initial(config)
    steps: list[Step] = []
    for action in actions:
        if not is_enabled(config, state, action):
            return None
        state = step(config, state, action)
        steps.append(Step(action, state))
    return Trace(config, initial(config), tuple(steps))


def replayed(config: Config, adapter: api.Adapter, actions: Sequence[Action],
            driving: Driving) -> Ran | None:
    """A shrinking candidate in lockstep, as `driving` says; None where it is not a valid
    spec trace."""
    return None if spec_trace(config, actions) is None else replay(
        config, adapter, actions, driving)
