"""The one runner of the conformance tests of a choice the spec allows a correct
implementation (`tests/conform/test_conform_choices.py`, D2's keep or undo on a rejection;
`tests/conform/test_conform_receive_choices.py`, D9's miss or own payload on a receive): a
`Choice` names the step the reference makes, the spec's other step, and a script that reaches
the choice under either; its checks run the script in lockstep and say which step the
implementation was observed making, and `check_neither_disagrees` that an implementation
making neither step is caught."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep import Disagreement, Driving, Lockstep, raised, replay
from model_checks.conform.lru_lockstep.choices import NAMES, alternatives, choice_of
from model_checks.conform.reference_adapter import factory
from spec import V3, Action, Config, Variant
from tests.conform.finished_run import finished


@dataclass(frozen=True)
class Choice:
    """`reference` is the step the reference makes, `other` the spec's other step (a
    subclass of it); `script(named)` reaches the choice with `named` as the scripted step,
    and request `succeeds` of it ends in success whichever step is made."""

    reference: type[Action]
    other: type[Action]
    config: Callable[[Variant], Config]
    script: Callable[[type[Action]], list[Action]]
    succeeds: int

    def run(self, variant: Variant, adapter: api.Adapter, named: type[Action]) -> Lockstep:
        return finished(self.config(variant), adapter, self.script(named))

    def check_made_by(self, variant: Variant, adapter: api.Adapter,
                      named: type[Action]) -> None:
        """An implementation making the other step conforms whichever step the script
        names, and the run records that it made it, once."""
        run = self.run(variant, adapter, named)
        assert run.choices == {NAMES[self.other]: 1}
        assert any(isinstance(a, self.other) for a in run.actions)
        outcome = run.state.requests[self.succeeds].outcome
        assert outcome is not None and outcome.value == "success"

    def check_reference(self, named: type[Action], seen: int) -> None:
        """The reference makes its step whichever the script names, and is seen making it
        `seen` times (and the other step never)."""
        run = self.run(V3, factory(), named)
        assert run.choices == {NAMES[self.reference]: seen}
        assert not any(isinstance(a, self.other) for a in run.actions)

    def check_alternatives(self, *args: int) -> None:
        """Each step has the other as its one alternative; the choice is named by its step."""
        assert alternatives(self.reference(*args)) == (self.other(*args),)
        assert alternatives(self.other(*args)) == (self.reference(*args),)
        assert choice_of(self.other(*args)) == NAMES[self.other]
        assert choice_of(self.reference(*args)) == NAMES[self.reference]


def check_neither_disagrees(config: Config, adapter: api.Adapter, script: list[Action]) -> None:
    """An implementation making neither of a choice's steps is still a disagreement."""
    with pytest.raises(Disagreement):
        raised(replay(config, adapter, script, Driving()))
