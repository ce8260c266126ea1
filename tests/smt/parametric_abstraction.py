"""The parametric model's certificate on concrete spec states, for the tests: `abstraction`
pins a model state to a spec state (seen from one engine), and `check_state` evaluates a
certificate on every such abstraction of a state (`model_checks.smt.prove.parametric`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT
from model_checks.smt.prove.parametric import (
    CERTIFICATE,
    FRONT_END,
    IDENTITY,
    NO_TAG,
    PROCESSING,
    WIRE,
    ParametricInvariant,
    ParametricState,
    Params,
    ask,
    params,
    state,
)
from spec import Config, State
from spec import lru as spec_lru
from spec.state import Request


def _closed(sort: z3.SortRef, elements: list[z3.ExprRef]) -> z3.BoolRef:
    """The sort has exactly these (distinct) elements."""
    x = z3.Const(f"every_{sort}", sort)
    distinct = z3.Distinct(*elements) if len(elements) > 1 else z3.BoolVal(True)
    return z3.And(distinct, z3.ForAll([x], z3.Or([x == e for e in elements])))


@dataclass(frozen=True)
class _SideArrays:
    """One cache side of the model state: per identity key whether it is cached (`in_`),
    its processing, tag and size, and the bytes the side uses."""

    in_: z3.ArrayRef
    pid: z3.ArrayRef
    tag: z3.ArrayRef
    size: z3.ArrayRef
    used: z3.ArithRef


def _side(arrays: _SideArrays, key: Callable[[str], tuple[z3.ExprRef, ...]],
          identities: tuple[str, ...], entries: dict[str, Any],
          pids: Callable[[int | None], z3.ExprRef]) -> list[z3.BoolRef]:
    """The side's arrays pinned to the spec side's `entries` (identity -> entry)."""
    in_, pid, tag, size, used = arrays.in_, arrays.pid, arrays.tag, arrays.size, arrays.used
    facts: list[z3.BoolRef] = [used == sum(e.size for e in entries.values())]
    for ident in identities:
        entry = entries.get(ident)
        facts.append(z3.Select(in_, *key(ident)) == (entry is not None))
        if entry is not None:
            facts += [z3.Select(pid, *key(ident)) == pids(entry.processing),
                      z3.Select(tag, *key(ident)) == pids(entry.tag),
                      z3.Select(size, *key(ident)) == entry.size]
    return facts


def _keyed(fe: z3.ExprRef, ids: dict[str, z3.ExprRef]) -> Callable[[str], tuple[z3.ExprRef, ...]]:
    return lambda ident: (fe, ids[ident])


def _delivered(concrete: State, engine: int) -> tuple[Any, ...]:
    """The items served by the last delivery, if engine `engine` made it (else none)."""
    last = concrete.last_delivery
    return last.served if last is not None and last.message.engine == engine else ()


def abstraction(config: Config, concrete: State, served: int | None, engine: int = 0) -> tuple[
        ParametricState, Params, z3.BoolRef]:
    """A model state pinned to a spec state, seen from engine `engine` (its receiver as P1;
    its `served`-th item of the last delivery, if that engine made it, as the last delivery,
    none if None): the sorts closed over the state's identities, front ends, wire items (the
    channel's, every engine's, and, under D6, those built but not yet sent) and processings.
    With two engines (D5's router) each engine's projection is a run of the model, the other
    engine's wire items being items this P1 never takes (module docstring, "Engines")."""
    s, p = state("@spec"), params()
    ids = {i: z3.Const(f"id_{i}", IDENTITY) for i in config.identities}
    fes = [z3.Const(f"fe_{f}", FRONT_END) for f in range(len(concrete.shadows))]
    pid_consts = [z3.Const(f"pid_{n}", PROCESSING) for n in range(len(concrete.processings))]

    def pids(value: int | None) -> z3.ExprRef:
        return NO_TAG if value is None else pid_consts[value]

    def request_of(rid: int) -> Request:
        # a request has one attempt at a time: a message in flight is its current attempt's
        return concrete.requests[rid]

    wires = [(request_of(message.rid), index, item) for message in concrete.to_engine
             for index, item in enumerate(message.items)]
    wires += [(request, index, item) for request in concrete.requests
              if request.work is not None for index, item in request.work.wire]
    slots = [z3.Const(f"wire_{n}", WIRE) for n in range(len(wires) + 1)]  # one dead slot
    facts: list[z3.BoolRef] = [
        _closed(IDENTITY, list(ids.values())), _closed(FRONT_END, fes),
        _closed(PROCESSING, [*pid_consts, NO_TAG]), _closed(WIRE, slots),
        p.budget == config.budget,
    ]
    for n, processing in enumerate(concrete.processings):
        facts += [p.p0_bytes(pid_consts[n]) == config.shadow_bytes(processing.content),
                  p.p1_bytes(pid_consts[n]) == config.receiver_bytes(processing.content),
                  p.owner(pid_consts[n]) == ids[processing.identity]]
    receiver = {e.identity: e for e in concrete.receiver_of(engine)
                if isinstance(e, spec_lru.Entry)}
    p1 = _SideArrays(s.p1_in, s.p1_pid, s.p1_tag, s.p1_size, s.p1_used)
    facts += _side(p1, lambda i: (ids[i],), config.identities, receiver, pids)
    for fe, shadow in zip(fes, concrete.shadows, strict=True):
        entries = {e.identity: e for e in shadow if isinstance(e, spec_lru.Entry)}
        arrays = _SideArrays(s.sh_in, s.sh_pid, s.sh_tag, s.sh_size, z3.Select(s.sh_used, fe))
        facts += _side(arrays, _keyed(fe, ids), config.identities, entries, pids)
    for slot, (request, index, item) in zip(slots, wires, strict=False):
        facts += [z3.Select(s.w_live, slot), z3.Select(s.w_id, slot) == ids[item.identity],
                  z3.Select(s.w_resend, slot) == (request.retries > 0),
                  z3.Select(s.w_data, slot) == (item.data is not None),
                  z3.Select(s.w_ph, slot) == pids(item.placeholders),
                  z3.Select(s.w_tag, slot) == pids(item.tag),
                  z3.Select(s.w_pos, slot) == index]
    facts.append(z3.Not(z3.Select(s.w_live, slots[-1])))
    delivered = _delivered(concrete, engine)
    if served is None:
        facts.append(z3.Not(s.ld_live))
    else:
        pairing = delivered[served]
        facts += [s.ld_live, s.ld_tensor == pids(pairing.tensor),
                  s.ld_ph == pids(pairing.placeholders)]
    facts.append(s.fault == (concrete.fault is not None))
    return s, p, z3.And(facts)


def check_state(config: Config, concrete: State, rlimit: int = CERTIFICATE_RLIMIT,
                certificate: tuple[ParametricInvariant, ...] = CERTIFICATE) -> str | None:
    """None when every abstraction of the spec state (one per engine and served item)
    satisfies the certificate; otherwise the part that fails (prefixed by its engine where
    there are two) or an abstraction that is inconsistent."""
    for engine in range(config.engines):
        where = f"engine {engine}: " if config.engines > 1 else ""
        for served in [None, *range(len(_delivered(concrete, engine)))]:
            s, p, pinned = abstraction(config, concrete, served, engine)
            result, why, _ = ask(rlimit, pinned)
            if result != z3.sat:
                return f"{where}the abstraction is not satisfiable ({result} {why})"
            for part in certificate:
                result, why, _ = ask(rlimit, pinned, z3.Not(part.holds(s, p)))
                if result != z3.unsat:
                    return f"{where}{part.name} fails on the abstraction ({result} {why})"
    return None
