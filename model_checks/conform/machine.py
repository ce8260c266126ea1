"""Generated conformance runs: the spec's own Hypothesis machines driving the implementation.

The ShardStore pattern: the one Hypothesis machine of `model_checks.simulate.machine` with the
LRU design's rules (`simulate.lru_rules`: one rule per spec action type, the spec's guard as its
precondition, `submit` drawing whole requests) picks the actions; instead of stepping only the
spec, every step goes through a `Lockstep`, which applies it to the spec and, through the
adapter, to the implementation and compares everything observable. A `Disagreement` fails the
example, and Hypothesis shrinks it (and, with a database, remembers it); the final, shrunk
example's disagreement is what the run reports. At teardown the run is settled (driven to
quiescence by the spec's fair scheduler), so the retry path is judged too.

Configuration in the class: the configuration, the adapter and the engine factory are class
attributes of a class generated per case (`lockstep_machine`), whose constructor takes no
argument. Derandomised: `seed` fixes Hypothesis's random choices, so a run replays exactly and
its verdict is a function of the query; the database, when given, only adds remembered
failures first.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.reporting import with_reporter
from hypothesis.stateful import get_state_machine_test

from model_checks.conform.adapter import Adapter, AdapterError, HarnessFailure
from model_checks.conform.lru_lockstep import Broken, Disagreement, EngineFactory, Lockstep
from model_checks.simulate.lru_rules import LRU_RULES
from model_checks.simulate.machine import SpecMachine, machine_class
from spec import Config
from spec.transitions import Action


class _Abort(BaseException):
    """Carries a `HarnessFailure` (or an `AdapterError`) through Hypothesis, which would
    otherwise shrink it as a bug of the implementation (Hypothesis lets a BaseException that
    is not an Exception pass at once)."""

    def __init__(self, failure: HarnessFailure | AdapterError) -> None:
        super().__init__(str(failure))
        self.failure = failure


class _ShrinkBudgetSpent(BaseException):
    """Stops Hypothesis once the shrink budget (examples after the first failure) is spent."""


@dataclass
class Shrinking:
    """A deterministic bound on Hypothesis's shrinking, counted in examples, not seconds (a
    trace's length must not depend on the machine): after the first failing example at most
    `budget` more examples run; the shortest disagreement seen is the finding."""

    budget: int
    examples: int = 0
    failed_at: int | None = None
    best: Disagreement | None = None

    def start_example(self) -> None:
        self.examples += 1
        if self.failed_at is not None and self.examples > self.failed_at + self.budget:
            raise _ShrinkBudgetSpent

    def failed(self, found: Disagreement) -> None:
        if self.failed_at is None:
            self.failed_at = self.examples
        if self.best is None or (found.step, len(found.actions)) < (
            self.best.step, len(self.best.actions)
        ):
            self.best = found


class LockstepMachine(SpecMachine):
    """A spec machine whose steps are lockstep steps (subclasses set the class attributes)."""

    wiring: ClassVar[tuple[Adapter, EngineFactory | None, Callable[[Lockstep], None]]]
    """The adapter, the engine factory (None: the adapter's), and the sink called with every
    finished run, failed or not (a tuple: a function class attribute would become a method)."""
    shrinking: ClassVar[Shrinking]

    def __init__(self) -> None:
        super().__init__()
        self.shrinking.start_example()
        try:
            adapter, engine_factory, _ = self.wiring
            self.run = Lockstep(self.config, adapter, engine_factory)
        except (HarnessFailure, AdapterError) as failure:
            raise _Abort(failure) from None

    def take(self, action: Action) -> None:
        try:
            self.run.apply(action)
        except (HarnessFailure, AdapterError) as failure:
            self.failed = True
            raise _Abort(failure) from None
        except Disagreement as found:
            self.failed = True
            found.actions, found.broken = tuple(self.run.actions), dict(self.run.broken)
            self.shrinking.failed(found)
            raise
        finally:
            self.state = self.run.state
            self.steps = list(self.run.steps)
        self.stats.fired[action.label] += 1
        self.stats.steps += 1
        if self.is_event(action):
            self.events_left -= 1

    def teardown(self) -> None:
        try:
            if not self.failed:
                try:
                    self.run.settle()
                    self.run.judge_agreed_trace()
                except (HarnessFailure, AdapterError) as failure:
                    raise _Abort(failure) from None
                except Disagreement as found:
                    found.actions, found.broken = tuple(self.run.actions), dict(self.run.broken)
                    self.shrinking.failed(found)
                    raise
        finally:
            self.wiring[2](self.run)
            self.run.close()


def lockstep_machine(
    name: str, config: Config, adapter: Adapter, engine_factory: EngineFactory | None,
    sink: Callable[[Lockstep], None], shrink_budget: int = 150,
) -> type[LockstepMachine]:
    """The lockstep machine for `config` on `adapter`: the spec machine's rules (checking no
    spec property itself: the lockstep compares), with the lockstep's `take`."""
    rules = machine_class(f"conform_{name}", LRU_RULES, config, ())
    namespace: dict[str, Any] = {
        "wiring": (adapter, engine_factory, sink), "shrinking": Shrinking(shrink_budget),
        "__module__": __name__, "__qualname__": f"Lockstep_{name}",
    }
    return type(f"Lockstep_{name}", (LockstepMachine, rules), namespace)


def run_machine(
    machine: type[LockstepMachine], examples: int, steps: int, seed: int,
    database: str | None = None,
) -> None:
    """Run `examples` examples of at most `steps` steps; raises the shortest `Disagreement`
    Hypothesis's shrinking found within the machine's shrink budget.
    Health checks that depend on the machine's speed are off (a verdict must not depend on
    the machine), and so is `filter_too_much`: the spec machine's request strategy filters
    out requests over the budget, most of them where the budget is one byte (D5); the
    others stay on."""
    test = get_state_machine_test(machine, settings=settings(
        max_examples=examples,
        stateful_step_count=steps,
        derandomize=False,
        database=DirectoryBasedExampleDatabase(database) if database else None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                               HealthCheck.large_base_example, HealthCheck.filter_too_much],
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink),
        print_blob=False,
    ))
    _storage_outside_the_working_directory()
    try:
        with with_reporter(_discard):
            hypothesis_seed(seed)(test)()
    except _Abort as abort:
        raise abort.failure from None
    except KeyboardInterrupt:
        raise
    except BaseException:
        # the final disagreement, or Hypothesis stopped by the spent budget (it may wrap
        # the stop in an error of its own): the shortest disagreement seen is the finding
        if machine.shrinking.best is None:
            raise
    if machine.shrinking.best is not None:
        raise machine.shrinking.best


def _storage_outside_the_working_directory() -> None:
    """Hypothesis keeps a cache of constants in `.hypothesis/` of the working directory;
    conform runs put it in the temporary directory instead (a user's checkout gets no new
    folder), unless `HYPOTHESIS_STORAGE_DIRECTORY` names one."""
    if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:
        set_hypothesis_home_dir(str(Path(tempfile.gettempdir()) / "paired-caches-hypothesis"))


def _discard(text: object) -> None:
    """Hypothesis's printed program: the lockstep report replaces it."""
    del text


__all__ = ["Broken", "LockstepMachine", "lockstep_machine", "run_machine"]
