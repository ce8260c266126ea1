"""The shared-memory design's abstract model (`model_checks.designs.shm_proofs`) against the
spec, for the tests: `abstraction` maps a spec state to the model's views, `check_state`
evaluates the certificates on them (and confirms every slot stays intact, `slot_intact`),
`simulates` checks that a spec step is a sequence of abstract actions between the
abstractions of its two states (a request: its items' hits, puts and inline items in order,
with the frees it made before them), and `sources_covered` says how each drift source of the
design is among the abstract actions. `NO_ID_CHECK` and `NO_SPACE_CHECK` are the ring's
planted variants."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import product
from typing import Any

from model_checks.designs.shm_proofs import (
    ACTIONS,
    CHUNK,
    HANDLE,
    PAIR,
    RELEASED,
    S1_CERTIFICATE,
    S2_CERTIFICATE,
    SLOT,
    Choice,
    RingKnobs,
    View,
    free,
    hit,
    put,
    s1_broken,
    s2_broken,
    stutter,
)
from spec.designs.shm.config import ShmConfig, ShmKnobs
from spec.designs.shm.state import Handle, ShmState
from tests.designs.shm_python_logic import PyLogic, Table

NO_ID_CHECK = RingKnobs(shm=ShmKnobs(reader_checks_id=False))
NO_SPACE_CHECK = RingKnobs(allocator_checks_space=False)


def sources_covered() -> dict[str, str]:
    """How each drift source of the design is among the abstract actions."""
    return {
        "D1": "reordered execution moves messages only: a worker may read any issued handle "
              "at any time (the read is a state predicate), so every order is covered",
        "D2": "a lost request's handles are issued and never read: issuing is `put`/`hit`, "
              "not reading them is allowed; the loss itself is a `stutter`",
        "D3": "P0's clear is `clear`",
        "D7": "a new content of an identity is a `put` of any content (contents are "
              "unconstrained integers, a hit issues the chunk's own content)",
        "D8": "a request larger than the ring is a sequence of `put`s, `free`s (any time, "
              "whatever is pinned) and refusals (`stutter`)",
        "D11": "an object over the limit is sent inline: a `stutter` (an inline read pairs "
               "its own content); every chunk size 1..R is a `put`",
        "C1": "a client's handle that P0 accepts is a handle it issued, passed on unchanged: "
              "a `stutter`, its reads are reads of an issued handle (counting it, the "
              "`client_handle_counts` knob, changes pins only, and `free` ignores pins)",
        "R1": "a preempted request re-sent to the workers: its handles are issued handles, "
              "read again; the re-send is a `stutter` (reads change pins only)",
    }


def abstraction(config: ShmConfig, state: ShmState, codes: dict[Any, int] | None = None
                ) -> list[View]:
    """The abstract states of a spec state, one with the tracked handle not issued, then one
    per issued handle (as the tracked one). `codes` numbers the contents (shared between
    states compared). Raises AssertionError where a chunk's address does not lie in the data
    range's window (the frame position would be undefined)."""
    codes = {} if codes is None else codes
    base = base_view(config, state, codes)
    return [base, *(_tracking(config, base, h, True, codes)
                    for h in sorted(known_handles(state), key=repr))]


def known_handles(state: ShmState) -> frozenset[Handle]:
    """The handles a spec state still knows P0 issued: those it keeps for clients (`issued`,
    under C1) and those in flight (queued or executed, not yet read by every worker). The
    abstract model's issued set contains them (it forgets none)."""
    flying = {item for message in (*state.queued, *state.executed) for item in message.items
              if isinstance(item, Handle)}
    return state.issued | frozenset(flying)


def content_code(codes: dict[Any, int], value: Any) -> int:
    """The integer a content stands for in the views compared (numbered as first seen)."""
    return codes.setdefault(value, len(codes))


def base_view(config: ShmConfig, state: ShmState, codes: dict[Any, int]) -> View:
    """A spec state's abstract state, the tracked handle not issued."""
    ring, R = state.ring, config.ring_bytes
    physical, high, nbytes, content = Table(0), Table(False), Table(0), Table(0)
    for chunk in ring.chunks:
        frame = ring.data_start + (chunk.address - ring.data_start) % R
        physical[chunk.id], high[chunk.id] = chunk.address % R, frame >= R
        assert frame - (R if frame >= R else 0) == chunk.address % R
        nbytes[chunk.id], content[chunk.id] = chunk.nbytes, content_code(codes, chunk.content)
    has, ids, sizes, held, intact = Table(False), Table(0), Table(0), Table(0), Table(False)
    for slot in state.memory:
        has[slot.physical], ids[slot.physical] = True, slot.id
        sizes[slot.physical], held[slot.physical] = slot.nbytes, content_code(codes, slot.content)
        intact[slot.physical] = slot.intact
    return View(R, ring.data_start, ring.data_end, ring.data_end % R, ring.id_start,
                ring.id_end, ring.epoch, physical, high, nbytes, content, has, ids, sizes, held,
                intact, False, 0, 0, 0, -1)


def _tracking(config: ShmConfig, base: View, handle: Handle, issued: bool,
              codes: dict[Any, int]) -> View:
    return replace(base, issued=issued, h_physical=handle.address % config.ring_bytes,
                   h_id=handle.id, h_epoch=handle.epoch,
                   h_content=content_code(codes, handle.placeholders))


def views_differ(config: ShmConfig, a: View, b: View) -> str | None:
    """Where two Python views differ (live chunks and slots compared field by field)."""
    if b.issued and not a.issued:
        return "a handle the spec knows is not issued in the model"
    registers = ("start", "end", "end_offset", "id_start", "id_end", "epoch")
    for name in registers:
        if getattr(a, name) != getattr(b, name):
            return f"{name} {getattr(a, name)} != {getattr(b, name)}"
    for i in range(a.id_start, a.id_end):
        for name in ("c_physical", "c_high", "c_nbytes", "c_content"):
            if getattr(a, name)[i] != getattr(b, name)[i]:
                return f"chunk #{i} {name}"
    for p in range(config.ring_bytes):
        if a.m_has[p] != b.m_has[p]:
            return f"slot {p} presence"
        for name in ("m_id", "m_nbytes", "m_content", "m_intact"):
            if a.m_has[p] and getattr(a, name)[p] != getattr(b, name)[p]:
                return f"slot {p} {name}"
    return None


def compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to split `total` frees among `parts` items (each before its item)."""
    if parts == 0:
        return [()] if total == 0 else []
    return [(first, *rest) for first in range(total + 1)
            for rest in compositions(total - first, parts - 1)]


def _submit(config: ShmConfig, view: View, items: Sequence[Any], frees: Sequence[int],
            knobs: RingKnobs, codes: dict[Any, int]) -> View | None:
    """The view after a request's items, `frees[n]` frees before the n-th item, or None where
    an action's guard fails."""
    L = PyLogic
    for item, count in zip(items, frees, strict=True):
        for _ in range(count):
            step = free(L, view, Choice(0, 0, 0), knobs)
            if not step.guard:
                return None
            view = step.after
        if isinstance(item, Handle) and item.id < view.id_end:
            step = hit(L, view, Choice(0, 0, item.id), knobs)
        elif isinstance(item, Handle):
            step = put(L, view, Choice(config.chunk_bytes(item.placeholders),
                                       content_code(codes, item.placeholders), 0), knobs)
        else:
            step = stutter(L, view, Choice(0, 0, 0), knobs)
        if not step.guard:
            return None
        view = step.after
    return view


def simulates(config: ShmConfig, before: ShmState, action: Any, after: ShmState) -> str | None:
    """None when the spec step `before --action--> after` is a sequence of abstract actions
    (module docstring) between their abstractions, for the untracked handle and for every
    handle either state knows (`known_handles`) as the tracked one; otherwise why not. The
    model's issued set only grows: a handle the spec no longer knows may stay issued in it."""
    codes: dict[Any, int] = {}
    knobs = RingKnobs(shm=config.knobs)
    known, now = known_handles(before), known_handles(after)
    start, end = base_view(config, before, codes), base_view(config, after, codes)
    pairs = [(start, end), *((_tracking(config, start, h, h in known, codes),
                              _tracking(config, end, h, h in now, codes))
                             for h in sorted(known | now, key=repr))]
    name = type(action).__name__
    runs: list[Callable[[View], View | None]]
    if name == "Submit":
        items = after.queued[-1].items
        total = after.ring.id_start - before.ring.id_start

        def submit(frees: tuple[int, ...]) -> Callable[[View], View | None]:
            return lambda v: _submit(config, v, items, frees, knobs, codes)

        runs = [submit(frees) for frees in compositions(total, len(items))]
    else:
        label = {"ClearP0": "clear"}.get(name, "stutter")

        def single(v: View) -> View | None:
            return ACTIONS[label](PyLogic, v, Choice(0, 0, 0), knobs).after

        runs = [single]
    for run in runs:
        results = [run(a) for a, _ in pairs]
        if all(r is not None and views_differ(config, r, b) is None
               for r, (_, b) in zip(results, pairs, strict=True)):
            return None
    first = runs[0](pairs[0][0])
    why = "a guard fails" if first is None else views_differ(config, first, pairs[0][1])
    return f"{name}: no sequence of abstract actions matches ({why})"


def check_state(config: ShmConfig, state: ShmState, knobs: ShmKnobs = RELEASED
                ) -> list[str]:
    """The certificate parts (of both properties) a spec state's abstraction breaks, and where;
    and the abstract S1/S2 violations, which must agree with the spec's own S2 and with S1
    on the state's reads (empty: all hold)."""
    L, R = PyLogic, config.ring_bytes
    found: list[str] = []
    views = abstraction(config, state)
    slots = sorted({*range(R), *(s.physical for s in state.memory)})
    chunks = sorted({*range(state.ring.id_start, state.ring.id_end + 1),
                     *(h.id for h in known_handles(state))})
    for part in (*S1_CERTIFICATE, *S2_CERTIFICATE):
        for v in views if part.kind == HANDLE else views[:1]:
            if part.kind == SLOT:
                bad = [f"slot {p}" for p in slots if not part.holds(L, v, p, None)]
            elif part.kind == CHUNK:
                bad = [f"chunk {i}" for i in chunks if not part.holds(L, v, i, None)]
            elif part.kind == PAIR:
                bad = [f"chunks {a},{b}" for a, b in product(chunks, repeat=2)
                       if not part.holds(L, v, a, b)]
            else:
                bad = [] if part.holds(L, v, None, None) else [f"handle #{v.h_id}"]
            found += [f"{part.name} fails at {where}" for where in bad]
    for v in views[1:]:
        if s1_broken(L, v, knobs):
            found.append(f"S1 broken by handle #{v.h_id}")
    live_ids = range(state.ring.id_start, state.ring.id_end)
    if any(s2_broken(L, views[0], a, b) for a, b in product(live_ids, repeat=2)) or (
            not live_ids and s2_broken(L, views[0], 0, 0)):
        found.append("S2 broken")
    return found
