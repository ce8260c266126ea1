"""The restricted model of the shared-memory design (`model_checks.designs.shm_restricted`)
against the spec, for the tests: `check_restricted` evaluates a certificate on a spec state's
abstraction (`restricted_abstraction`, with the reads owed per chunk, `pending_of`);
`restricted_simulates` checks that a spec step is a sequence of the model's actions between
the abstractions of its two states."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import product
from typing import Any

from model_checks.designs.shm_proofs import (
    CHUNK,
    PAIR,
    SLOT,
    Choice,
)
from model_checks.designs.shm_restricted import (
    ACTIONS,
    BROKEN,
    CERTIFICATES,
    RestrictedKnobs,
    RestrictedView,
)
from spec.designs.shm.config import ShmConfig
from spec.designs.shm.readers import next_item
from spec.designs.shm.state import Handle, ShmState
from tests.designs import shm_abstraction as sa
from tests.designs.shm_python_logic import PyLogic, Table


def pending_of(config: ShmConfig, state: ShmState) -> dict[int, int]:
    """The reads owed, per chunk id, of the in-flight handles of the current epoch: N per
    handle item of a queued message, and per handle item of the executed message at index j,
    the workers whose position is below j, and those at j that have not copied that item yet
    (a checked item's read is still owed: it counts at the copy)."""
    owed: dict[int, int] = {}

    def owe(items: Sequence[Any], count: int) -> None:
        for item in items:
            if isinstance(item, Handle) and item.epoch == state.ring.epoch and count:
                owed[item.id] = owed.get(item.id, 0) + count

    for message in state.queued:
        owe(message.items, config.readers)
    for index, message in enumerate(state.executed):
        owe(message.items, sum(1 for p in state.position if p < index))
        for position, progress in zip(state.position, state.progress, strict=True):
            if position == index:
                owe(message.items[progress.item:], 1)
    return owed


def restricted_abstraction(config: ShmConfig, state: ShmState,
                           codes: dict[Any, int] | None = None) -> RestrictedView:
    """The abstract state of a spec state (the tracked handle not issued; a chunk not live
    with owed reads takes its offset from its handles). `codes` numbers the contents
    (shared between states compared)."""
    R = config.ring_bytes
    base = sa.base_view(config, state, {} if codes is None else codes)
    physical = Table(0, base.c_physical.items())
    for message in (*state.queued, *state.executed):
        for item in message.items:
            if (isinstance(item, Handle) and item.epoch == state.ring.epoch
                    and not state.ring.id_start <= item.id < state.ring.id_end):
                physical[item.id] = item.address % R
    quota = Table(0, ((c.id, c.writers * config.readers) for c in state.ring.chunks))
    pending = Table(0, pending_of(config, state).items())
    reads = Table(0, ((s.physical, s.reads) for s in state.memory))
    return RestrictedView(replace(base, c_physical=physical), config.readers, quota, pending,
                          reads)


def check_restricted(config: ShmConfig, state: ShmState, prop: str) -> list[str]:
    """The parts of `prop`'s certificate a spec state's abstraction breaks, and where, and the
    abstract property's violation (empty: all hold). Meant for states of instances whose
    environment is within `ENVIRONMENTS[prop]`."""
    L = PyLogic
    x = restricted_abstraction(config, state)
    owed = pending_of(config, state)
    chunks = sorted({*range(state.ring.id_end + 2), *owed})
    slots = sorted({*range(config.ring_bytes), *(s.physical for s in state.memory)})
    found: list[str] = []
    for part in CERTIFICATES[prop]:
        if part.kind == SLOT:
            bad = [f"slot {p}" for p in slots if not part.holds(L, x, p, None)]
        elif part.kind == CHUNK:
            bad = [f"chunk {i}" for i in chunks if not part.holds(L, x, i, None)]
        elif part.kind == PAIR:
            bad = [f"chunks {a},{b}" for a, b in product(chunks, repeat=2)
                   if not part.holds(L, x, a, b)]
        else:
            bad = [] if part.holds(L, x, None, None) else ["the ring"]
        found += [f"{part.name} fails at {where}" for where in bad]
    broken = BROKEN[prop]
    found += [f"{prop} broken at chunk {i}" for i in chunks if broken(L, x, i)]
    return found


def _restricted_views_differ(config: ShmConfig, a: RestrictedView, b: RestrictedView,
                             ids: Sequence[int]) -> str | None:
    """Where two Python views differ: `shm_proofs`' registers, live chunks and slots, then
    the live chunks' quotas, the owed reads of `ids` and the slots' reads."""
    why = sa.views_differ(config, a.v, b.v)
    if why is not None:
        return why
    for i in range(a.v.id_start, a.v.id_end):
        if a.quota[i] != b.quota[i]:
            return f"chunk #{i} quota {a.quota[i]} != {b.quota[i]}"
    for i in ids:
        if a.pending[i] != b.pending[i]:
            return f"chunk #{i} owed reads {a.pending[i]} != {b.pending[i]}"
    for p in range(config.ring_bytes):
        if a.v.m_has[p] and a.reads[p] != b.reads[p]:
            return f"slot {p} reads {a.reads[p]} != {b.reads[p]}"
    return None


def _run(x: RestrictedView, steps: Sequence[tuple[str, Choice]], knobs: RestrictedKnobs
         ) -> RestrictedView | None:
    for label, choice in steps:
        step = ACTIONS[label](PyLogic, x, choice, knobs)
        if not step.guard:
            return None
        x = step.after
    return x


def restricted_simulates(config: ShmConfig, before: ShmState, action: Any, after: ShmState
                         ) -> str | None:
    """None when the spec step `before --action--> after` is a sequence of this module's
    abstract actions between their abstractions (`restricted_abstraction`); otherwise why
    not. A step that faults is none: the engine stops (a read's guard includes the worker's
    checks)."""
    if after.fault is not None:
        return None if before.fault is None and type(action).__name__ in ("Check", "Copy") else (
            "a fault outside a read")
    codes: dict[Any, int] = {}
    knobs = RestrictedKnobs(client_handle_counts=config.knobs.client_handle_counts)
    start = restricted_abstraction(config, before, codes)
    end = restricted_abstraction(config, after, codes)
    ids = sorted({*range(max(before.ring.id_end, after.ring.id_end) + 2),
                  *pending_of(config, before), *pending_of(config, after)})
    none = Choice(0, 0, 0)
    epoch = before.ring.epoch

    def handles(items: Sequence[Any]) -> list[Handle]:
        return [i for i in items if isinstance(i, Handle) and i.epoch == epoch]

    name = type(action).__name__
    runs: list[list[tuple[str, Choice]]]
    if name == "Submit":
        items = after.queued[-1].items
        total = after.ring.id_start - before.ring.id_start
        runs = []
        for frees in sa.compositions(total, len(items)):
            run: list[tuple[str, Choice]] = []
            id_end = before.ring.id_end
            for item, count in zip(items, frees, strict=True):
                run += [("free", none)] * count
                if isinstance(item, Handle) and item.id < id_end:
                    run.append(("hit", Choice(0, 0, item.id)))
                elif isinstance(item, Handle):
                    run.append(("put", Choice(config.chunk_bytes(item.placeholders),
                                              sa.content_code(codes, item.placeholders), 0)))
                    id_end += 1
                else:
                    run.append(("stutter", none))
            runs.append(run)
    elif name == "Reject":
        lost = handles(before.queued[action.index].items)
        runs = [[("drop", Choice(0, 0, h.id)) for h in lost for _ in range(config.readers)]]
    elif name == "Copy":
        found = next_item(before, action.worker)
        assert found is not None
        runs = [[("read", Choice(0, 0, h.id)) for h in handles([found[1]])]
                or [("stutter", none)]]
    elif name == "Preempt":
        again = handles(before.scheduled[action.index].items)
        runs = [[("resend", Choice(0, 0, h.id)) for h in again]]
    elif name == "ClientHandle":
        runs = [[("client", Choice(0, 0, action.handle.id))]]
    else:
        label = {"ClearP0": "clear"}.get(name, "stutter")
        runs = [[(label, none)]]
    for steps in runs:
        result = _run(start, steps, knobs)
        if result is not None and _restricted_views_differ(config, result, end, ids) is None:
            return None
    first = _run(start, runs[0], knobs)
    why = "a guard fails" if first is None else _restricted_views_differ(config, first, end, ids)
    return f"{name}: no sequence of abstract actions matches ({why})"
