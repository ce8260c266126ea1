"""The implementation's events, judged as they happen against the spec's run so far.

`SpecRun` is the spec's side of one lockstep run (its state, its steps, the actions taken,
the properties the implementation broke); the driver (`driver.Lockstep`) writes it, step by
step. `RunObserver` is the `implementation.Observer` of the run: it reads `SpecRun` and is
told by `Implementation` when a message leaves a front end, a shadow changed, the engine
received a message and a reply was taken, so that tags are learnt and the L1-L3 monitors run
at the moment each happens. Neither knows the driver; the driver owns both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep.disagreement import Broken, Disagreement
from model_checks.conform.lru_lockstep.monitors import Monitors
from model_checks.conform.lru_lockstep.views import Tags
from spec import Config, State, registry
from spec.machine import initial
from spec.trace import Step, Trace
from spec.transitions import Action


@dataclass
class SpecRun:
    """The spec's side of a lockstep run so far: its state, its steps (one per spec step),
    the action of each step, and the properties the implementation broke (their first time);
    `served`: the run's round trips go through the implementation's end-to-end call;
    `deferred`: while a step the spec offers a choice for runs (not None), the properties the
    implementation broke where the spec's step so far keeps them, judged once the choice the
    implementation made is known (`driver.Lockstep.apply`)."""

    config: Config
    state: State
    steps: list[Step] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    broken: dict[str, Broken] = field(default_factory=dict)
    served: bool = False
    deferred: list[tuple[str, str]] | None = None


class RunObserver:
    """Judges the implementation's events against `run` as they happen: tags are learnt
    into `tags` (a conflict is a disagreement), the L1-L3 `monitors` run, and a property
    they find broken goes through `fail_property`."""

    def __init__(self, run: SpecRun, tags: Tags, monitors: Monitors) -> None:
        self.run = run
        self.tags = tags
        self.monitors = monitors

    def sent(self, rid: int, front_end: int, message: api.WireMessage,
             front_end_of: Callable[[int], int]) -> None:
        """A message of request `rid` enters the channel from `front_end`: learn tags, run
        L1 (`front_end_of(rid)`: the front end a request was submitted to)."""
        run = self.run
        spec_message = run.state.to_engine[-1] if run.state.to_engine else None
        conflict = self.tags.learn_message(spec_message, rid, message)
        if conflict is not None:
            raise Disagreement(len(run.actions), run.actions[-1], "tags", *conflict)
        self.monitors.sent(rid, front_end, message.items, front_end_of, self.fail_property)

    def shadow_changed(self, front_end: int, shadow: Sequence[api.ShadowEntry]) -> None:
        """Front end `front_end`'s shadow changed (now `shadow`): pair its new tags."""
        self.tags.learn_shadow(self.run.state.shadows[front_end], shadow)

    def received(self, rid: int, missed: tuple[str, ...]) -> None:
        self.monitors.received(rid, missed, len(self.run.actions), self.fail_property)

    def replied(self, rid: int, missed: tuple[str, ...]) -> None:
        self.monitors.replied(rid, missed, len(self.run.actions), self.fail_property)

    def fail_property(self, prop: str, reason: str) -> None:
        """An implementation-side property broke: recorded in `broken` (its first time), and a
        disagreement unless the spec breaks it at the same step too (then the implementation
        conforms, and the property is the variant's weakness)."""
        run = self.run
        spec_reason = _spec_violation(run.config, run.steps, prop, len(run.steps))
        if spec_reason is None and run.deferred is not None:
            run.deferred.append((prop, reason))  # the spec's other choice may break it too
            return
        number = len(run.actions)
        if prop not in run.broken:
            run.broken[prop] = Broken(prop, number, reason, spec_reason is not None,
                                      tuple(run.actions), run.served)
        if spec_reason is None:
            raise Disagreement(number, run.actions[-1], prop, "holds", reason)


def _spec_violation(
    config: Config, steps: Sequence[Step], prop: str, at: int
) -> str | None:
    """The spec's own violation of `prop` at step `at` of its trace, if any."""
    trace = Trace(config, initial(config), tuple(steps[:at]))
    for candidate in registry():
        if candidate.id == prop:
            violation = candidate.check_trace(trace)
            return None if violation is None else violation.reason
    return None
