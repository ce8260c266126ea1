"""Lockstep runs: a script, and shrinking a disagreement to a shorter script.

Each run is a `Lockstep` that is always closed, and whose `Disagreement` carries the steps
taken and the properties broken so far.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from model_checks.conform import adapter as api
from model_checks.conform.design_lockstep import follow
from model_checks.conform.lru_lockstep.disagreement import Disagreement, NotFollowed
from model_checks.conform.lru_lockstep.driver import Lockstep
from model_checks.conform.lru_lockstep.implementation import EngineFactory
from model_checks.kernel import lru_notation
from spec import Config
from spec.machine import initial, is_enabled, step
from spec.trace import Step, Trace
from spec.transitions import Action


@dataclass(frozen=True)
class Driving:
    """How `run_actions` drives a script: `settle`, settle the run at the end; the
    `engine_factory` (None: the adapter's engine); `served`: every round trip the
    implementation's own end-to-end call can take (`Lockstep.served_block`) goes through it;
    `exact` (a replay): every action is one spec step, followed as written, or `NotFollowed`
    names the first one that cannot be driven; otherwise (shrinking, scripts) an action the
    spec does not enable is skipped."""

    settle: bool = True
    engine_factory: EngineFactory | None = None
    served: bool = False
    exact: bool = False


def run_actions(config: Config, adapter: api.Adapter, actions: Iterable[Action],
                driving: Driving = Driving()) -> Lockstep:
    """Run a script in lockstep, as `driving` says, by the one script loop
    (`design_lockstep.follow`). Raises `Disagreement` with `actions` set to the steps taken."""
    with _session(config, adapter, driving.engine_factory) as run:
        run.served = driving.served
        follow(_Script(config, run, driving.exact), list(actions))
        if driving.settle:
            run.settle()
    return run


@dataclass(frozen=True)
class _Script:
    """A script followed on a `Lockstep` run (`design_lockstep.Follower`): a round trip its
    implementation's end-to-end call can take is one step of four actions (where the run is
    `served`); an atomic update's item steps are one step, written once in a script and each
    in a trace (`exact`); an action the spec does not enable is skipped, or, in a trace,
    `NotFollowed`. A disagreement is raised."""

    config: Config
    run: Lockstep
    exact: bool

    def width(self, script: Sequence[Action], index: int) -> int:
        run = self.run
        if run.served and run.served_block(script[index:]):
            return 4
        action = script[index]
        if not is_enabled(self.config, run.state, action):
            if self.exact:
                raise NotFollowed(index + 1, action, "the spec does not enable it here: "
                                  "the file is not a trace of its configuration")
            return 0
        if not self.exact:
            return 1
        taken = len(run.spec_steps(action))
        _check_atomic(script, index, taken)
        return taken

    def take(self, actions: Sequence[Action]) -> None:
        if self.run.served and self.run.served_block(actions):
            self.run.apply_served(actions)
        else:
            self.run.apply(actions[0])
        return None


def _check_atomic(script: Sequence[Action], index: int, taken: int) -> None:
    """An atomic update takes `taken` item steps at once: the script must have them there,
    consecutively, else the step that interleaves cannot be driven."""
    action = script[index]
    for offset in range(1, taken):
        other = script[index + offset] if index + offset < len(script) else None
        if other != action:
            where = ("the trace ends" if other is None else
                     f"step {index + offset + 1} is {lru_notation.action(other)}")
            raise NotFollowed(index + 1, action, (
                f"the front end's update is atomic (it has no update_item, "
                f"adapter.ItemUpdates): it takes the {taken} item steps of this update at "
                f"once, but {where} before its item {offset + 1}"))


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
        found.served = run.served
        raise
    finally:
        run.close()


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
                again = _replay(config, adapter, candidate, engine_factory, found.served)
                if again is not None and again.caught_by == best.caught_by and (
                    again.step < best.step
                ):
                    best, actions, changed = again, list(again.actions[: again.step]), True
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


def _replay(
    config: Config,
    adapter: api.Adapter,
    actions: Sequence[Action],
    engine_factory: EngineFactory | None,
    served: bool,
) -> Disagreement | None:
    if spec_trace(config, actions) is None:  # a candidate must be a valid spec trace
        return None
    try:
        run_actions(config, adapter, actions,
                    Driving(engine_factory=None if served else engine_factory, served=served))
    except Disagreement as found:
        return found
    return None
