"""The shared-memory design in lockstep with an implementation: each model action is taken by
the spec (`SHM.step`) and driven on the implementation's side (`ShmSide`), and the two
observations (`shm_views.Observation`) must be equal after every step.

The harness keeps the engine between P0 and the workers (`Engine`: the sent, the executed,
and how far each worker has read), as the spec does: the implementations under test have no
code for it. `Lockstep.step` is one step; `replay` runs a given list of actions and `walk`
seeded random ones (a step budget, never a time limit).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from model_checks.designs.shm_views import (
    NotDriven,
    Observation,
    RingView,
    Served,
    ServedItem,
    ShmAdapter,
    ShmSide,
    breaks,
    client_action,
    issued_refs,
    spec_observation,
)
from spec.config import Content
from spec.designs.shm import SHM
from spec.designs.shm.actions import (
    Check,
    ClearP0,
    ClientHandle,
    Copy,
    Execute,
    Preempt,
    Reject,
    ShmAction,
    Submit,
)
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.readers import next_item
from spec.designs.shm.state import Handle, ShmState


@dataclass
class Engine:
    """The messages between P0 and the workers, each with what the client sent for it."""

    readers: int
    queued: list[tuple[Any, tuple[Content, ...]]] = field(default_factory=list)
    executed: list[tuple[Any, tuple[Content, ...]]] = field(default_factory=list)
    position: list[int] = field(default_factory=list)
    copied: list[list[ServedItem]] = field(default_factory=list)
    """Per worker, the items of its next message it copied so far."""
    scheduled: list[tuple[Any, tuple[Content, ...]]] = field(default_factory=list)
    """The executed messages the engine may preempt and send again (under R1)."""

    def __post_init__(self) -> None:
        self.position = [0] * self.readers
        self.copied = [[] for _ in range(self.readers)]

    def next_for(self, worker: int) -> tuple[Any, tuple[Content, ...]]:
        return self.executed[self.position[worker]]

    def advance(self, worker: int) -> None:
        """Worker `worker` read its next message; one every worker read is retired."""
        self.position[worker] += 1
        self.copied[worker] = []
        while self.executed and min(self.position) > 0:
            self.executed.pop(0)
            self.position = [p - 1 for p in self.position]

    def idle(self) -> bool:
        return not self.queued and not self.executed


@dataclass(frozen=True)
class Disagreement:
    """The first step whose observations differ: its number (from 1), the action, and what
    the spec and the implementation observed."""

    step: int
    action: ShmAction
    spec: Observation
    implementation: Observation

    def report(self) -> str:
        """The step, then each observation that differs (the ring: only what differs)."""
        lines = [f"step {self.step}: {json.dumps(SHM.action_to_json(self.action))}"]
        for name in self.spec.differences(self.implementation):
            lines.append(f"  {name} differs:")
            if name == "ring":
                lines += ring_differences(self.spec.ring, self.implementation.ring)
            else:
                lines += [f"    spec:           {getattr(self.spec, name)}",
                          f"    implementation: {getattr(self.implementation, name)}"]
        return "\n".join(lines)


def ring_differences(spec: RingView, implementation: RingView) -> list[str]:
    """One line per range bound, and per chunk (by id), that differs."""
    lines = [f"    {name}: spec {getattr(spec, name)}, implementation "
             f"{getattr(implementation, name)}"
             for name in ("id_start", "id_end", "data_start", "data_end")
             if getattr(spec, name) != getattr(implementation, name)]
    ours = {c.id: c for c in spec.chunks}
    theirs = {c.id: c for c in implementation.chunks}
    for chunk_id in sorted(ours.keys() | theirs.keys()):
        if ours.get(chunk_id) != theirs.get(chunk_id):
            lines += [f"    chunk #{chunk_id}: spec           {ours.get(chunk_id)}",
                      f"    chunk #{chunk_id}: implementation {theirs.get(chunk_id)}"]
    return lines


class Lockstep:
    """The spec and one implementation side, stepped together from the initial state."""

    def __init__(self, config: ShmConfig, side: ShmSide) -> None:
        self.config, self.side = config, side
        self.state: ShmState = SHM.initial(config)
        self.engine = Engine(config.readers)
        self.fault: str | None = None
        self.last: Observation | None = None
        self.steps = 0

    def step(self, action: ShmAction) -> Disagreement | None:
        """Take `action` on both sides (`InvalidAction` where the spec has it disabled,
        `NotDriven` where the side cannot drive it); the disagreement, if any."""
        before = self.state
        after = SHM.step(self.config, before, action)
        expected = spec_observation(self.config, action, after)
        returned = self._drive(action, before)
        accepted = frozenset(r for r in issued_refs(after) if self.side.accepts(r))
        actual = Observation(returned, self.side.ring(), accepted)
        self.state, self.last, self.steps = after, actual, self.steps + 1
        if isinstance(returned, Served) and returned.fault is not None:
            self.fault = returned.fault
        return None if actual == expected else Disagreement(self.steps, action, expected,
                                                            actual)

    def _drive(self, action: ShmAction, before: ShmState) -> object:
        if isinstance(action, Submit):
            message, items = self.side.submit(action.contents)
            self.engine.queued.append((message, action.contents))
            return items
        if isinstance(action, ClientHandle):
            return self._client(action)
        if isinstance(action, Check):
            return self._check(action.worker)
        if isinstance(action, Copy):
            return self._copy(action.worker, before)
        self._environment(action)
        return None

    def _client(self, action: ClientHandle) -> str | None:
        handle = client_action(action)
        assert handle is not None
        message, refused = self.side.client_handle(*handle)
        if message is not None:
            self.engine.queued.append((message, (handle[1],)))
        return refused

    def _next(self, worker: int) -> tuple[Any, tuple[Content, ...], int]:
        if self.engine.position[worker] >= len(self.engine.executed):
            raise NotDriven(f"worker {worker} has no executed message to read")
        message, sent = self.engine.next_for(worker)
        return message, sent, len(self.engine.copied[worker])

    def _check(self, worker: int) -> Served | None:
        message, _, index = self._next(worker)
        fault = self.side.check(worker, message, index)
        return None if fault is None else Served(worker, fault, ())

    def _copy(self, worker: int, before: ShmState) -> Served | None:
        """The copy of the worker's next item; under `split_read=False` its check first,
        in the same step. The message's last item returns everything the worker served."""
        message, sent, index = self._next(worker)
        found = next_item(before, worker)
        if not self.config.knobs.split_read and found and isinstance(found[1], Handle):
            fault = self.side.check(worker, message, index)
            if fault is not None:
                return Served(worker, fault, ())
        self.engine.copied[worker].append(self.side.copy(worker, message, index, sent[index]))
        if len(self.engine.copied[worker]) < len(sent):
            return None
        served = Served(worker, None, tuple(self.engine.copied[worker]))
        self.engine.advance(worker)
        return served

    def _environment(self, action: ShmAction) -> None:
        """The engine's own steps (a preempted request sent again: its message, with the
        handles it carried), and P0's clear."""
        if isinstance(action, Execute):
            self.engine.executed.append(self.engine.queued.pop(action.index))
            if self.config.enables("R1"):
                self.engine.scheduled.append(self.engine.executed[-1])
        elif isinstance(action, Preempt):
            self.engine.executed.append(self.engine.scheduled.pop(action.index))
        elif isinstance(action, Reject):
            self.engine.queued.pop(action.index)
        elif isinstance(action, ClearP0):
            self.side.clear()

    def broken(self, prop_id: str) -> list[str]:
        """Why the implementation breaks `prop_id` after the last step (`breaks`)."""
        if self.last is None:
            return []
        return breaks(prop_id, self.config, self.last, self.fault, self.engine.idle())


@dataclass(frozen=True)
class Outcome:
    """A lockstep run: the steps taken, the actions, and how it stopped (a disagreement, a
    step not driven, or neither); `broken` maps property ids to why the implementation
    breaks them after the last step (replays only)."""

    steps: int
    actions: tuple[ShmAction, ...]
    disagreement: Disagreement | None = None
    not_driven: str | None = None
    broken: dict[str, list[str]] = field(default_factory=dict)


def replay(adapter: ShmAdapter, config: ShmConfig, actions: Sequence[ShmAction],
           properties: Sequence[str] = ()) -> Outcome:
    """`actions` on the spec and on a fresh side, in lockstep, stopping at the first
    disagreement or step not driven; then the `properties` judged on the implementation."""
    side = adapter.start(config)
    try:
        run = Lockstep(config, side)
        for number, action in enumerate(actions, start=1):
            try:
                found = run.step(action)
            except NotDriven as error:
                return Outcome(run.steps, tuple(actions[:number]),
                               not_driven=f"step {number}: {error}")
            if found is not None:
                return Outcome(run.steps, tuple(actions[:number]), found)
        return Outcome(run.steps, tuple(actions),
                       broken={p: run.broken(p) for p in properties})
    finally:
        side.close()


def walk(adapter: ShmAdapter, config: ShmConfig, steps: int, seed: str,
         progress: Callable[[int], None] | None = None) -> Outcome:
    """Seeded random runs over `SHM.enabled`, each on a fresh side, until `steps` lockstep
    steps were taken or one disagreed; a run ends where the spec enables nothing."""
    chooser = random.Random(seed)
    total = 0
    while total < steps:
        outcome = _one_walk(adapter, config, steps - total, chooser)
        total += outcome.steps
        if progress is not None:
            progress(total)
        if outcome.disagreement is not None or outcome.not_driven is not None:
            return Outcome(total, outcome.actions, outcome.disagreement, outcome.not_driven)
        if outcome.steps == 0:
            break
    return Outcome(total, ())


def _one_walk(adapter: ShmAdapter, config: ShmConfig, budget: int,
              chooser: random.Random) -> Outcome:
    side = adapter.start(config)
    actions: list[ShmAction] = []
    try:
        run = Lockstep(config, side)
        while len(actions) < budget:
            enabled = SHM.enabled(config, run.state)
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
        side.close()
