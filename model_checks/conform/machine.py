"""Generated conformance runs: the one Hypothesis machine driving a design's implementation
through its lockstep binding.

The ShardStore pattern: the one Hypothesis machine of `model_checks.simulate.machine` with a
design's rules (`simulate.lru_rules.rules_for`: one rule per action type, the spec's guard as
its precondition) picks the actions; instead of stepping only the spec, every step goes
through the design binding's lockstep run (`Stepped`), which applies it to the spec and to the
implementation and compares everything observable. A disagreement (`design_lockstep.Differs`)
fails the example, and Hypothesis shrinks it (and, with a database, remembers it); the final,
shrunk example's disagreement is what the run reports. At teardown the run is ended as its
binding ends it (the LRU design's: settled, driven to quiescence by the spec's fair
scheduler, so the retry path is judged too).

Configuration in the class: the configuration, the binding's fresh run and what aborts it
are class attributes of a class generated per case (`lockstep_machine`), whose constructor
takes no argument. Derandomised: `seed` fixes Hypothesis's random choices, so a run replays
exactly and its verdict is a function of the query; the database, when given, only adds
remembered failures first.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.reporting import with_reporter
from hypothesis.stateful import get_state_machine_test

from model_checks.conform.design_lockstep import Differs
from model_checks.simulate.machine import DesignRules, SpecMachine, machine_class


class Found(Protocol):
    """A disagreement as the machine's shrinking compares them: its step, the actions run."""

    @property
    def step(self) -> int: ...

    @property
    def actions(self) -> tuple[Any, ...]: ...


class Stepped(Protocol):
    """A design binding's lockstep run, as the machine steps it: one action at a time
    (`apply`, raising `Differs`), the spec's state and steps so far, the end of the run
    (`end`, raising `Differs`), the run's report of a disagreement (`finding`, re-raising one
    not its own), and `close`."""

    @property
    def state(self) -> Any: ...

    def records(self) -> list[Any]:
        """The spec's steps so far, as the design's rules record them."""
        ...

    def apply(self, action: Any) -> None: ...

    def end(self) -> None: ...

    def finding(self, differs: Differs) -> Found: ...

    def close(self) -> None: ...


class _Abort(BaseException):
    """Carries a failure of the harness (`LockstepMachine.wiring`'s aborts) through
    Hypothesis, which would otherwise shrink it as a bug of the implementation (Hypothesis
    lets a BaseException that is not an Exception pass at once)."""

    def __init__(self, failure: Exception) -> None:
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
    best: Differs | None = None
    shortest: tuple[int, int] | None = None

    def start_example(self) -> None:
        self.examples += 1
        if self.failed_at is not None and self.examples > self.failed_at + self.budget:
            raise _ShrinkBudgetSpent

    def failed(self, differs: Differs, found: Found) -> None:
        """An example failed with `differs`, which its run reports as `found`."""
        if self.failed_at is None:
            self.failed_at = self.examples
        size = (found.step, len(found.actions))
        if self.shortest is None or size < self.shortest:
            self.best, self.shortest = differs, size


R = TypeVar("R", bound=Stepped)


@dataclass(frozen=True)
class Wiring(Generic[R]):
    """What a generated machine runs: a fresh lockstep run of the binding per example
    (`start`), the exceptions that are the harness's failures, not the implementation's
    (`aborts`: they stop the run), and the sink called with every finished run, failed or
    not."""

    start: Callable[[], R]
    aborts: tuple[type[Exception], ...]
    sink: Callable[[R], None]


class LockstepMachine(SpecMachine):
    """A spec machine whose steps are lockstep steps (subclasses set the class attributes)."""

    wiring: ClassVar[Wiring[Any]]
    shrinking: ClassVar[Shrinking]

    def __init__(self) -> None:
        super().__init__()
        self.shrinking.start_example()
        try:
            self.run = self.wiring.start()
        except self.wiring.aborts as failure:
            raise _Abort(failure) from None

    def take(self, action: Any) -> None:
        try:
            self.run.apply(action)
        except self.wiring.aborts as failure:
            self.failed = True
            raise _Abort(failure) from None
        except Differs as differs:
            self.failed = True
            self.shrinking.failed(differs, self.run.finding(differs))
            raise
        finally:
            self.state = self.run.state
            self.steps = self.run.records()
        self.stats.fired[self.design_rules.rule_of(action)] += 1
        self.stats.steps += 1
        if self.is_event(action):
            self.events_left -= 1

    def teardown(self) -> None:
        try:
            if not self.failed:
                try:
                    self.run.end()
                except self.wiring.aborts as failure:
                    raise _Abort(failure) from None
                except Differs as differs:
                    self.shrinking.failed(differs, self.run.finding(differs))
                    raise
        finally:
            self.wiring.sink(self.run)
            self.run.close()


def lockstep_machine(name: str, config: Any, rules: DesignRules, wiring: Wiring[R],
                     shrink_budget: int = 150) -> type[LockstepMachine]:
    """The lockstep machine for `config` with the design's `rules`, run as `wiring` says:
    the spec machine's rules (checking no spec property itself: the lockstep compares), with
    the lockstep's `take`."""
    rules_class = machine_class(f"conform_{name}", rules, config, ())
    namespace: dict[str, Any] = {
        "wiring": wiring, "shrinking": Shrinking(shrink_budget),
        "__module__": __name__, "__qualname__": f"Lockstep_{name}",
    }
    return type(f"Lockstep_{name}", (LockstepMachine, rules_class), namespace)


def run_machine(
    machine: type[LockstepMachine], examples: int, steps: int, seed: int,
    database: str | None = None,
) -> None:
    """Run `examples` examples of at most `steps` steps; raises the shortest disagreement
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


__all__ = ["LockstepMachine", "Stepped", "Wiring", "lockstep_machine", "run_machine"]
