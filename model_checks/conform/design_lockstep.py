"""One lockstep driver over the `Design` interface: a design's spec and an implementation of
it stepped together, action for action, their views compared after every step.

The generic part is here, written once: the spec's side (`Design.initial`, `step`,
`enabled`), the comparison of the two views, the first `Disagreement` (its step, the action as
the design writes it, and what differs, one line each), the properties judged on the
implementation after a replay, and the two runs: `replay` (given actions) and `walk` (seeded
random ones over `Design.enabled`, a step budget, never a time limit). A script is followed
by one loop, `follow`, over any `Follower`, and a scripted run (a replay) by one function,
`run_script`, over any `Session` (a follower its design ends, closes and reports on, in an
`Outcome` of its design's own disagreement and broken-property types: the LRU design's is
`model_checks.conform.lru_lockstep.runs.Session`). What is per design is a `Binding`,
declared in one table (`lockstep_bindings.BINDINGS`): how the implementation is driven and viewed
(`Binding.start`, a `Driven` run), how the spec's state is viewed in the same shape
(`Binding.spec_view`), and how two views that differ are told apart (`differences`).

Every lockstep step, of any design, is taken by one function, `take_step`, over a `Stepping`
run: the spec's steps of the implementation's step, the implementation's step, the judgement,
and, where the spec allows a correct implementation a choice, the choice matched with the
spec's side rewound. A run ends, where its design asks for it, by `settle` over a `Settling`
run. This driver's `Lockstep` is the `Stepping` run of a `Binding` (one spec step per
implementation step, no choices); a design whose implementation steps need more declares its
run with the optional capabilities (`Stepping`'s): several spec steps per implementation step
(`take_spec`), choices with the spec rewound and the judgement deferred (`alternatives`,
`mark`/`rewind`, what `drive` defers while a choice is open), an observer that finds a
disagreement in the middle of the implementation's step (`drive` raising it), and an
end-of-run hook (`Settling.at_rest`). The LRU design's is
`model_checks.conform.lru_lockstep.driver.Lockstep`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from spec.designs.base import Design

A = TypeVar("A", contravariant=True)
F = TypeVar("F", covariant=True)
S = TypeVar("S")
D = TypeVar("D")
M = TypeVar("M")
J = TypeVar("J")
B = TypeVar("B")
FD = TypeVar("FD")


class NotDriven(Exception):
    """A step the implementation's side cannot drive (e.g. a handle it has no record of): a
    run stops there, and nothing after it is judged. `step`, where set, is the step (from 1)
    its text already names, as its design's report writes it (`run_script` names it
    otherwise)."""

    step: int | None = None


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


class Differs(Exception):
    """A disagreement a `Stepping` run raises from its judgement (or from its implementation's
    step, where an observer finds it there): the spec's side and the implementation's
    differ. A design's own report subclasses it."""


class Stepping(Protocol[S, M, J]):
    """A lockstep run as `take_step` drives it, step by step: the capabilities its design's
    binding declares. `S`, the design's action; `M`, a mark of the run's spec side (its
    state, its trace so far, what the implementation broke), to rewind to; `J`, a finding
    whose judgement waits for the implementation's choice."""

    def mark(self) -> M:
        """The run's spec side now."""
        ...

    def rewind(self, mark: M) -> None:
        """Back to `mark`: the spec's steps taken since undone."""
        ...

    def take_spec(self, action: S) -> None:
        """The spec's steps of the implementation's next step, taking `action`: one, or
        several where one implementation step is several of the spec's (e.g. an atomic
        update's item steps). Raises where the spec has `action` disabled."""
        ...

    def alternatives(self, action: S) -> Sequence[S]:
        """The other actions the spec allows for this step, enabled in the state before it
        (the implementation's choice among them is matched after its step): none where the
        step is no choice. Asked after `take_spec(action)`."""
        ...

    def drive(self, action: S, choosing: bool) -> Sequence[J]:
        """The implementation's step of `action`. `choosing`: the spec offers alternatives,
        so what the implementation's events break while the step runs is judged only once
        the choice is known: returned (the deferred findings), and handed to `judge`. Raises
        `Differs` where an observer finds a disagreement during the step."""
        ...

    def judge(self, action: S, deferred: Sequence[J], again: bool) -> None:
        """Compare the two sides after the step the spec took as `action` (`again`: the
        spec's step was re-taken as an alternative, after `rewind`), the `deferred`
        findings first; raises `Differs` at the first difference."""
        ...


def take_step(run: Stepping[S, M, J], action: S) -> S:
    """One lockstep step of `run`: the spec's steps (`take_spec`), the implementation's
    step, then the judgement. Where the spec allows a choice (`alternatives`), the
    implementation's step is judged against `action`'s spec step and, if they differ,
    against each alternative's, the spec's side rewound and re-taken with it: the spec's
    trace takes the first that agrees (refinement: the implementation's step is one of the
    spec's), and returned is the action taken; if none agrees, the run is left as `action`'s
    judgement left it and its disagreement raised."""
    before = run.mark()
    run.take_spec(action)
    offered = run.alternatives(action)
    deferred = run.drive(action, bool(offered))
    try:
        run.judge(action, deferred, False)
    except Differs as first:
        judged = run.mark()
        for alternative in offered:
            run.rewind(before)
            run.take_spec(alternative)
            try:
                run.judge(alternative, deferred, True)
            except Differs:
                continue
            return alternative
        run.rewind(judged)
        raise first
    return action


class Settling(Protocol[S]):
    """A run its design ends by settling: driven to quiescence, then judged at rest."""

    def owed(self) -> S | None:
        """The next action the spec's fair scheduler owes the run (None: quiescent)."""
        ...

    def apply(self, action: S) -> None:
        """One lockstep step (`take_step`)."""
        ...

    def at_rest(self) -> None:
        """The end-of-run judgement (e.g. what every request is owed in the end); raises
        `Differs`."""
        ...


def settle(run: Settling[S], max_steps: int = 200) -> None:
    """Drive `run` by the actions it is owed, at most `max_steps`, then judge it at rest."""
    for _ in range(max_steps):
        action = run.owed()
        if action is None:
            break
        run.apply(action)
    run.at_rest()


class _Differs(Differs):
    def __init__(self, found: Disagreement) -> None:
        super().__init__(found.report())
        self.found = found


class Lockstep:
    """The spec and one implementation run, stepped together from the initial state: the
    `Stepping` run of a `Binding` (one spec step per implementation step, no choices), and a
    `Session` whose every step takes one action, `properties` judged on the implementation
    after a run that agreed."""

    def __init__(self, binding: Binding, config: Any, driven: Driven,
                 properties: Sequence[str] = ()) -> None:
        self.binding, self.config, self.driven = binding, config, driven
        self.properties = properties
        self.state: Any = binding.design.initial(config)
        self.steps = 0
        self.actions: list[Any] = []
        self.disagreed = False
        self._before: Any = None
        self._actual: object = None

    def step(self, action: Any) -> Disagreement | None:
        """Take `action` on both sides (`InvalidAction` where the spec has it disabled,
        `NotDriven` where the implementation cannot take it); the disagreement, if any."""
        try:
            take_step(self, action)
        except _Differs as differs:
            return differs.found
        return None

    def mark(self) -> tuple[Any, int]:
        return self.state, self.steps

    def rewind(self, mark: tuple[Any, int]) -> None:
        self.state, self.steps = mark

    def take_spec(self, action: Any) -> None:
        self._before = self.state
        self.state = self.binding.design.step(self.config, self.state, action)

    def alternatives(self, action: Any) -> Sequence[Any]:
        return ()

    def drive(self, action: Any, choosing: bool) -> Sequence[object]:
        self._actual = self.driven.drive(action, self._before, self.state)
        self.steps += 1
        return ()

    def judge(self, action: Any, deferred: Sequence[object], again: bool) -> None:
        binding = self.binding
        expected = binding.spec_view(self.config, action, self.state)
        if self._actual == expected:
            return
        heading = f"step {self.steps}: {json.dumps(binding.design.action_to_json(action))}"
        raise _Differs(Disagreement(self.steps, action, expected, self._actual,
                                    (heading, *binding.differences(expected, self._actual))))

    def width(self, script: Sequence[Any], index: int) -> int:
        return 1

    def take(self, actions: Sequence[Any]) -> Disagreement | None:
        found = self.step(actions[0])
        self.actions.append(actions[0])
        self.disagreed = found is not None
        return found

    def taken(self) -> tuple[Any, ...]:
        return tuple(self.actions)

    def end(self) -> None:
        return None

    def finding(self, differs: Differs) -> Disagreement:
        raise differs

    def broken(self) -> dict[str, list[str]]:
        return {} if self.disagreed else {p: self.driven.broken(p) for p in self.properties}

    def close(self) -> None:
        self.driven.close()


class Session(Follower[A, F], Protocol[A, F, B]):
    """A lockstep run of one implementation that `run_script` follows a script on (its
    `Follower` part) and then ends: `F`, the disagreement it reports; `B`, what it reports of
    a property the implementation broke. A `take` returns its disagreement or raises it
    (`Differs`, turned into the report by `finding`)."""

    @property
    def steps(self) -> int:
        """The steps taken so far, as the run's reports number them."""
        ...

    def taken(self) -> tuple[Any, ...]:
        """The actions taken so far, one per step."""
        ...

    def end(self) -> None:
        """The end of a run that followed its whole script (e.g. settled, the trace judged);
        raises `Differs`."""
        ...

    def finding(self, differs: Differs) -> F:
        """The disagreement `differs` reports (re-raised if it is not the run's own)."""
        ...

    def broken(self) -> dict[str, B]:
        """The properties the implementation broke, by id (after the run ended)."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class Outcome(Generic[FD, B]):
    """A lockstep run: the steps taken, the actions, and how it stopped (a disagreement, a
    step not driven, or neither); `broken`, the properties the implementation broke, by id,
    as its run reports them."""

    steps: int
    actions: tuple[Any, ...]
    disagreement: FD | None = None
    not_driven: str | None = None
    broken: dict[str, B] = field(default_factory=dict)


def run_script(session: Session[S, D, B], script: Sequence[S]) -> Outcome[D, B]:
    """`script` followed on `session` (`follow`) to its end, which `Session.end` ends, or to
    the first disagreement or step not driven; the session closed. The actions are those
    taken (to a step not driven: the script's up to it)."""
    try:
        try:
            _, found = follow(session, script)
            if found is None:
                session.end()
        except NotDriven as error:
            number = error.step or session.steps + 1
            text = str(error) if error.step else f"step {number}: {error}"
            return Outcome(session.steps, tuple(script[:number]), not_driven=text)
        except Differs as differs:
            found = session.finding(differs)
        return Outcome(session.steps, session.taken(), found, broken=session.broken())
    finally:
        session.close()


def replay(binding: Binding, adapter: Any, config: Any, actions: Sequence[Any],
           properties: Sequence[str] = ()) -> Outcome[Disagreement, list[str]]:
    """`actions` on the spec and on a fresh implementation run, in lockstep, stopping at the
    first disagreement or step not driven (`run_script`); then the `properties` judged on
    the implementation."""
    driven = binding.start(adapter, config)
    try:
        run = Lockstep(binding, config, driven, properties)
    except BaseException:
        driven.close()
        raise
    return run_script(run, actions)


def walk(binding: Binding, adapter: Any, config: Any, steps: int, seed: str,
         progress: Callable[[int], None] | None = None) -> Outcome[Disagreement, list[str]]:
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
              chooser: random.Random) -> Outcome[Disagreement, list[str]]:
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
