"""The one lockstep step (`design_lockstep.take_step`) and end of a run (`settle`) over a run
with the optional capabilities (`Stepping`, `Settling`), on a toy run whose spec side is a
list of actions and whose implementation makes a choice of its own: the choice the spec
allows is matched with the spec's side rewound, the findings deferred while the step ran are
judged against each choice, a choice the spec does not allow is the first disagreement with
the run left as the named action's judgement left it, and a run is driven by what it is owed
and judged at rest. A planted run that does not rewind leaves both choices in its trace, which
the check sees."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from model_checks.conform.design_lockstep import Differs, settle, take_step


class Toy:
    """The spec takes any action; action 1 is a choice between 1 and 2 (`alternatives`); the
    implementation always takes `chooses`. Each step defers one finding, judged with it."""

    def __init__(self, chooses: int, rewinds: bool = True) -> None:
        self.chooses, self.rewinds = chooses, rewinds
        self.trace: list[int] = []
        self.impl: list[int] = []
        self.judged: list[tuple[int, tuple[str, ...], bool]] = []

    def mark(self) -> list[int]:
        return list(self.trace)

    def rewind(self, mark: list[int]) -> None:
        if self.rewinds:
            self.trace[:] = mark

    def take_spec(self, action: int) -> None:
        self.trace.append(action)

    def alternatives(self, action: int) -> Sequence[int]:
        return (2,) if action == 1 else ()

    def drive(self, action: int, choosing: bool) -> list[str]:
        self.impl.append(self.chooses if action == 1 else action)
        return [f"deferred {action}"] if choosing else []

    def judge(self, action: int, deferred: Sequence[str], again: bool) -> None:
        self.judged.append((action, tuple(deferred), again))
        if self.trace[-1] != self.impl[-1]:
            raise Differs(f"spec {self.trace[-1]} / impl {self.impl[-1]}")


def test_a_step_that_is_no_choice_is_judged_once() -> None:
    run = Toy(chooses=1)
    assert take_step(run, 5) == 5
    assert (run.trace, run.judged) == ([5], [(5, (), False)])


def test_the_choice_the_implementation_made_is_taken_with_the_spec_rewound() -> None:
    run = Toy(chooses=2)
    assert take_step(run, 1) == 2
    assert run.trace == [2]
    assert run.judged == [(1, ("deferred 1",), False), (2, ("deferred 1",), True)]


def test_a_choice_the_spec_does_not_allow_is_the_first_disagreement() -> None:
    run = Toy(chooses=3)
    with pytest.raises(Differs, match="spec 1 / impl 3"):
        take_step(run, 1)
    assert run.trace == [1]  # as the named action's judgement left it


def test_the_check_sees_a_run_that_does_not_rewind() -> None:
    """Planted: no rewind, so the spec's trace keeps both choices of one step."""
    run = Toy(chooses=2, rewinds=False)
    take_step(run, 1)
    assert run.trace != [2]


class Owed(Toy):
    """Owed actions 7, 8, then quiescent; at rest, it disagrees if `broken_at_rest`."""

    def __init__(self, broken_at_rest: bool) -> None:
        super().__init__(chooses=1)
        self.owing, self.broken_at_rest = [7, 8], broken_at_rest

    def owed(self) -> int | None:
        return self.owing.pop(0) if self.owing else None

    def apply(self, action: int) -> None:
        take_step(self, action)

    def at_rest(self) -> None:
        if self.broken_at_rest:
            raise Differs("not finished at rest")


def test_a_run_is_settled_by_what_it_is_owed_then_judged_at_rest() -> None:
    run = Owed(broken_at_rest=False)
    settle(run)
    assert run.trace == [7, 8]
    with pytest.raises(Differs, match="at rest"):
        settle(Owed(broken_at_rest=True))


def test_settling_stops_at_its_step_budget() -> None:
    run = Owed(broken_at_rest=False)
    settle(run, max_steps=1)
    assert run.trace == [7]
