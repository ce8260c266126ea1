"""One lockstep driver over the `Design` interface: a design's spec and an implementation of
it stepped together, action for action, their views compared after every step.

The generic part is here, written once: the spec's side (`Design.initial`, `step`,
`enabled`), the comparison of the two views, the first `Disagreement` (its step, the action as
the design writes it, and what differs, one line each), the properties judged on the
implementation after a replay, and the two runs: `replay` (given actions) and `walk` (seeded
random ones over `Design.enabled`, a step budget, never a time limit). A script is followed
by one loop, `follow`, over any `Follower` (this driver's `Lockstep`, and the LRU design's
lockstep, `model_checks.conform.lockstep`, whose implementation steps may each take several
of the script's actions). What is per design is a
`Binding`, declared in one table (`lockstep_bindings.BINDINGS`): how the implementation is
driven and viewed (`Binding.start`, a `Driven` run), how the spec's state is viewed in the same
shape (`Binding.spec_view`), and how two views that differ are told apart (`differences`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from spec.designs.base import Design

A = TypeVar("A", contravariant=True)
F = TypeVar("F", covariant=True)
S = TypeVar("S")
D = TypeVar("D")


class NotDriven(Exception):
    """A step the implementation's side cannot drive (e.g. a handle it has no record of): a
    run stops there, and nothing after it is judged."""


class Unmappable(ValueError):
    """A configuration the adapter cannot state exactly in the implementation's terms."""


class Driven(Protocol):
    """One implementation instance under lockstep, as its design's binding drives it."""

    def drive(self, action: Any, before: Any, after: Any) -> object:
        """Take `action` on the implementation (the spec went from `before` to `after`); the
        implementation's view after it, in the shape of `Binding.spec_view`'s. Raises
        `NotDriven` where it cannot take it."""
        ...

    def broken(self, prop_id: str) -> list[str]:
        """Why the implementation breaks the design's property `prop_id` after the last step,
        judged on its own views (empty: it holds there)."""
        ...

    def close(self) -> None: ...


class LockstepAdapter(Protocol):
    """What `--adapter MODULE:FACTORY` returns for a design with a binding: its name, how the
    model's units map to the implementation's (one line each; `Unmappable` where the map
    cannot be stated exactly), and a fresh implementation instance for a configuration (its
    type is the design's own adapter interface, which its binding drives)."""

    @property
    def name(self) -> str: ...

    def byte_map(self, config: Any) -> list[str]: ...

    def start(self, config: Any) -> Any: ...


@dataclass(frozen=True)
class Binding:
    """The per-design part of the lockstep: the design, its adapter interface (a dotted name,
    for the error naming what an adapter lacks), a fresh `Driven` run of an adapter on a
    configuration, the spec's view of a step (configuration, action, the state after it), and
    the report lines of two views that differ (the spec's, the implementation's)."""

    design: Design
    interface: str
    start: Callable[[Any, Any], Driven]
    spec_view: Callable[[Any, Any, Any], object]
    differences: Callable[[object, object], list[str]]


@dataclass(frozen=True)
class Disagreement:
    """The first step whose views differ: its number (from 1), the action, what the spec and
    the implementation showed, and the step's report (`report`)."""

    step: int
    action: Any
    spec: object
    implementation: object
    lines: tuple[str, ...]
    """The action as the design writes it, then what differs (`Binding.differences`)."""

    def report(self) -> str:
        return "\n".join(self.lines)


class Follower(Protocol[A, F]):
    """A lockstep run following a script (`follow`), its implementation's steps as its
    design's driver groups the script's actions; `F`, the disagreement it reports."""

    def width(self, script: Sequence[A], index: int) -> int:
        """How many of `script`'s actions from `index` the implementation's next step takes:
        one, or several where one implementation step is several of the spec's; 0 where the
        run skips `script[index]`. Raises `NotDriven` where the script cannot be followed
        as written."""
        ...

    def take(self, actions: Sequence[A]) -> F | None:
        """The implementation's next step, the `width` actions `actions` on both sides; the
        disagreement found, if any (a run may raise it instead)."""
        ...


def follow(run: Follower[S, D], script: Sequence[S]) -> tuple[int, D | None]:
    """`script` on `run`, step by step as `run.width` groups it, to its end or to the first
    disagreement: how many of the script's actions were taken or skipped, and the
    disagreement."""
    index = 0
    while index < len(script):
        width = run.width(script, index)
        if width == 0:
            index += 1
            continue
        found = run.take(script[index:index + width])
        index += width
        if found is not None:
            return index, found
    return index, None


class Lockstep:
    """The spec and one implementation run, stepped together from the initial state: a
    `Follower` whose every step takes one action."""

    def __init__(self, binding: Binding, config: Any, driven: Driven) -> None:
        self.binding, self.config, self.driven = binding, config, driven
        self.state: Any = binding.design.initial(config)
        self.steps = 0

    def step(self, action: Any) -> Disagreement | None:
        """Take `action` on both sides (`InvalidAction` where the spec has it disabled,
        `NotDriven` where the implementation cannot take it); the disagreement, if any."""
        binding = self.binding
        before = self.state
        after = binding.design.step(self.config, before, action)
        expected = binding.spec_view(self.config, action, after)
        actual = self.driven.drive(action, before, after)
        self.state, self.steps = after, self.steps + 1
        if actual == expected:
            return None
        heading = f"step {self.steps}: {json.dumps(binding.design.action_to_json(action))}"
        return Disagreement(self.steps, action, expected, actual,
                            (heading, *binding.differences(expected, actual)))

    def width(self, script: Sequence[Any], index: int) -> int:
        return 1

    def take(self, actions: Sequence[Any]) -> Disagreement | None:
        return self.step(actions[0])


@dataclass(frozen=True)
class Outcome:
    """A lockstep run: the steps taken, the actions, and how it stopped (a disagreement, a
    step not driven, or neither); `broken` maps property ids to why the implementation
    breaks them after the last step (replays only)."""

    steps: int
    actions: tuple[Any, ...]
    disagreement: Disagreement | None = None
    not_driven: str | None = None
    broken: dict[str, list[str]] = field(default_factory=dict)


def replay(binding: Binding, adapter: Any, config: Any, actions: Sequence[Any],
           properties: Sequence[str] = ()) -> Outcome:
    """`actions` on the spec and on a fresh implementation run, in lockstep, stopping at the
    first disagreement or step not driven; then the `properties` judged on the
    implementation."""
    driven = binding.start(adapter, config)
    try:
        run = Lockstep(binding, config, driven)
        try:
            taken, found = follow(run, actions)
        except NotDriven as error:
            number = run.steps + 1
            return Outcome(run.steps, tuple(actions[:number]),
                           not_driven=f"step {number}: {error}")
        if found is not None:
            return Outcome(run.steps, tuple(actions[:taken]), found)
        return Outcome(run.steps, tuple(actions),
                       broken={p: driven.broken(p) for p in properties})
    finally:
        driven.close()


def walk(binding: Binding, adapter: Any, config: Any, steps: int, seed: str,
         progress: Callable[[int], None] | None = None) -> Outcome:
    """Seeded random runs over `Design.enabled`, each on a fresh implementation run, until
    `steps` lockstep steps were taken or one disagreed; a run ends where the spec enables
    nothing."""
    chooser = random.Random(seed)
    total = 0
    while total < steps:
        outcome = _one_walk(binding, adapter, config, steps - total, chooser)
        total += outcome.steps
        if progress is not None:
            progress(total)
        if outcome.disagreement is not None or outcome.not_driven is not None:
            return Outcome(total, outcome.actions, outcome.disagreement, outcome.not_driven)
        if outcome.steps == 0:
            break
    return Outcome(total, ())


def _one_walk(binding: Binding, adapter: Any, config: Any, budget: int,
              chooser: random.Random) -> Outcome:
    driven = binding.start(adapter, config)
    actions: list[Any] = []
    try:
        run = Lockstep(binding, config, driven)
        while len(actions) < budget:
            enabled = binding.design.enabled(config, run.state)
            if not enabled:
                break
            actions.append(chooser.choice(enabled))
            try:
                found = run.step(actions[-1])
            except NotDriven as error:
                return Outcome(run.steps, tuple(actions), not_driven=str(error))
            if found is not None:
                return Outcome(run.steps, tuple(actions), found)
        return Outcome(run.steps, tuple(actions))
    finally:
        driven.close()
