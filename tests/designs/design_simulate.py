"""Hypothesis's stateful testing over any design: a `RuleBasedStateMachine` built for one
(design, configuration) pair takes, each step, one of the design's enabled actions (drawn
with `st.sampled_from`, so a failing run shrinks towards earlier actions and fewer steps)
and checks every property after it: every-state properties always, quiescent ones when the
design calls the state quiescent.

The search is derandomized and budgeted in examples and steps, not seconds. A broken
property comes back with Hypothesis's shrunk action list (replayable with
`model_checks.explore.exploration.replay`); the search then runs again without it, until no
other property breaks. A run that took no step (no example, no step allowed, or no action
enabled in the initial state) decided nothing and says so (`failed`): it is never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from model_checks.explore.exploration import Witness, breaks
from spec.designs.base import Design, DesignProperty

Counterexample = Witness
"""The one witness type under the name the state machine's text uses: Hypothesis derives its
derandomized seed from that text, so renaming it there would change every search."""

BREAKS, NOT_FOUND, NOT_RUN = "breaks", "not found", "not run"
"""The verdicts: a shrunk break; no break in the budget; no step taken (a failure)."""


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What one budgeted search found on one instance: `steps` counts the actions taken
    over every run (examples and shrinking included)."""

    design: str
    variant: str
    environment: frozenset[str]
    examples: int
    steps_per_example: int
    steps: int
    property_ids: tuple[str, ...]
    counterexamples: tuple[Witness, ...]

    @property
    def failed(self) -> bool:
        """No step was taken: nothing was checked beyond the initial state."""
        return self.steps == 0

    def verdict(self, property_id: str) -> str:
        if self.counterexample(property_id) is not None:
            return BREAKS
        return NOT_RUN if self.failed else NOT_FOUND

    def counterexample(self, property_id: str) -> Witness | None:
        return next((c for c in self.counterexamples if c.property_id == property_id), None)


_PHASES = (Phase.explicit, Phase.generate, Phase.shrink)
"""No example database (derandomized runs repeat themselves), and no explain phase (which
reruns the shrunk example many times over to annotate it, for a report this one replaces)."""


class PropertyBroken(AssertionError):
    """Raised inside the state machine when a watched property breaks."""


@dataclass
class _Tally:
    """Shared by every machine of one search: the steps taken, and the last break seen
    (Hypothesis replays the shrunk example last, so it is the shrunk one)."""

    steps: int = 0
    last: Witness | None = None
    watched: tuple[DesignProperty, ...] = field(default=())


def simulate(design: Design, config: Any, *, examples: int = 100, steps: int = 30,
             variant: str = "", environment: frozenset[str] = frozenset()) -> SimulationResult:
    """Search `config` with at most `examples` runs of at most `steps` actions each, per
    round; each round that breaks a property removes it from the next round's checks."""
    found: list[Witness] = []
    tally = _Tally()
    while True:
        tally.watched = tuple(p for p in design.properties
                              if p.id not in {c.property_id for c in found})
        tally.last = None
        broken = _round(design, config, tally, examples, steps)
        if broken is None:
            break
        found.append(broken)
    return SimulationResult(design.name, variant, environment, examples, steps, tally.steps,
                            tuple(p.id for p in design.properties), tuple(found))


def _round(design: Design, config: Any, tally: _Tally, examples: int, steps: int
           ) -> Witness | None:
    """One Hypothesis search over the watched properties: the shrunk break, or None."""
    if not tally.watched or examples < 1 or steps < 1:
        return None
    budget = settings(max_examples=examples, stateful_step_count=steps, derandomize=True,
                      deadline=None, database=None, print_blob=False,
                      report_multiple_bugs=False, suppress_health_check=list(HealthCheck),
                      phases=_PHASES)
    try:
        run_state_machine_as_test(machine_for(design, config, tally), settings=budget)
    except PropertyBroken:
        return tally.last
    return None


def machine_for(design: Design, config: Any, tally: _Tally) -> type[RuleBasedStateMachine]:
    """A state machine class over `design` on `config` that checks `tally.watched`."""

    class DesignMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.state = design.initial(config)
            self.actions: list[Any] = []

        @rule(data=st.data())
        def take_an_enabled_action(self, data: st.DataObject) -> None:
            """One enabled action, or nothing where none is (a deadlock or a dead engine)."""
            enabled = design.enabled(config, self.state)
            if not enabled:
                return
            action = data.draw(st.sampled_from(enabled), label="action")
            self.state = design.step(config, self.state, action)
            self.actions.append(action)
            tally.steps += 1

        @invariant()
        def watched_properties_hold(self) -> None:
            broken = _first_break(design, config, self.state, tally.watched)
            if broken is not None:
                prop, reason = broken
                tally.last = Counterexample(prop.id, tuple(self.actions), reason)
                raise PropertyBroken(f"{prop.id}: {reason}")

    DesignMachine.__name__ = f"{type(design).__name__}Machine"
    return DesignMachine


def _first_break(design: Design, config: Any, state: Any,
                 watched: tuple[DesignProperty, ...]) -> tuple[DesignProperty, str] | None:
    return next(breaks(design, config, state, watched), None)
