"""The shared-memory design's lockstep binding (`lockstep.Binding`): how an implementation's
side is driven for each model action (`ShmRun`, over the adapter's `shm_views.ShmSide`), and
how the spec's and the implementation's observations (`shm_views.Observation`) are told apart
where they differ. The generic driver (`model_checks.conform.design_lockstep`) steps the spec and
compares.

The harness keeps the engine between P0 and the workers (`Engine`: the sent, the executed,
and how far each worker has read), as the spec does: the implementations under test have no
code for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from model_checks.conform.design_lockstep import Binding, NotDriven
from model_checks.designs.shm_views import (
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


def differences(spec: object, implementation: object) -> list[str]:
    """Each observation that differs, named, with both sides (the ring: only what
    differs)."""
    assert isinstance(spec, Observation) and isinstance(implementation, Observation)
    lines = []
    for name in spec.differences(implementation):
        lines.append(f"  {name} differs:")
        if name == "ring":
            lines += ring_differences(spec.ring, implementation.ring)
        else:
            lines += [f"    spec:           {getattr(spec, name)}",
                      f"    implementation: {getattr(implementation, name)}"]
    return lines


class ShmRun:
    """One implementation side driven in the shared-memory design's terms, with the engine
    between P0 and the workers the harness keeps (`Engine`): the design's `Driven`."""

    def __init__(self, config: ShmConfig, side: ShmSide) -> None:
        self.config, self.side = config, side
        self.engine = Engine(config.readers)
        self.fault: str | None = None
        self.last: Observation | None = None

    def drive(self, action: Any, before: Any, after: Any) -> Observation:
        """Take `action` on the side (`NotDriven` where it cannot); what it returned, P0's
        ring after it, and which handles issued so far P0 would accept back."""
        returned = self._drive(action, before)
        accepted = frozenset(r for r in issued_refs(after) if self.side.accepts(r))
        self.last = Observation(returned, self.side.ring(), accepted)
        if isinstance(returned, Served) and returned.fault is not None:
            self.fault = returned.fault
        return self.last

    def close(self) -> None:
        self.side.close()

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
        """Why the side breaks `prop_id` after the last step (`breaks`)."""
        if self.last is None:
            return []
        return breaks(prop_id, self.config, self.last, self.fault, self.engine.idle())


def _start(adapter: ShmAdapter, config: ShmConfig) -> ShmRun:
    return ShmRun(config, adapter.start(config))


BINDING = Binding(SHM, "model_checks.designs.shm_views.ShmAdapter", _start, spec_observation,
                  differences)
"""The shared-memory design's lockstep: its adapters' sides driven through `ShmRun`, the
spec's observation of a step (`spec_observation`), the observations' differences."""
