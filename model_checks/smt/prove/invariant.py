"""Proofs for all depths: an inductive invariant, checked in three steps with fresh solvers.

The invariant is a conjunction of named, documented invariants (`Invariant`). `prove` checks,
each with a new solver and the parameter ranges as the only background:
  1. initiation: every initial state satisfies the invariant;
  2. consecution: from any state satisfying it, every enabled action leads to a state that
     satisfies it (checked per named invariant, so a failure names the one that broke);
  3. the invariant implies each property proved;
and rejects the certificate if the invariant is unsatisfiable together with the initial state
(a vacuous invariant proves anything).

`V3_INVARIANTS` is the certificate of S1, S2 and S3 for V3 under every encoded drift source.
Its parts are the spec registry's strengthening invariants (`spec.lemmas()`, I1-I7) and S2 and
S3 themselves, each encoded here under the registry's id and statement; one more fact
(one version per processing) is needed only because this encoding copies a processing's
version into every slot that holds it, where the spec keeps one table.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT, Bounded, own_context
from model_checks.smt.encode.actions import ACTIONS, args_at, available, initial, transition
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.slots import item_exists
from model_checks.smt.encode.symbols import (
    NONE_PID,
    DeliveryCode,
    Encoding,
    Params,
    StageCode,
    SymState,
    item,
    lru_name,
    msg_name,
    params,
    params_constraint,
    rep_name,
    req_name,
    state_at,
)
from model_checks.smt.judged import encoded_safety
from model_checks.smt.results import ProvedAllDepths
from spec.properties.registry import by_id


@dataclass(frozen=True)
class Invariant:
    """A named state predicate; `statement` says what it asserts, in words. `lemma` is the id
    of the spec registry's strengthening invariant it encodes (`spec.lemmas()`), or the
    property it is (S2, S3), or None for a fact of this encoding only."""

    name: str
    statement: str
    holds: Callable[[Encoding, Params, SymState], z3.BoolRef]
    lemma: str | None = None

    @classmethod
    def of(
        cls, lemma: str, name: str, holds: Callable[[Encoding, Params, SymState], z3.BoolRef]
    ) -> Invariant:
        """The encoding of a registry property; its statement is the registry's."""
        return cls(name, by_id(lemma).statement, holds, lemma)


class CertificateRejected(AssertionError):
    """An invariant that is not inductive, does not imply the property, or is vacuous."""


def _entries(enc: Encoding) -> list[tuple[str, int]]:
    return [(side, k) for side in enc.sides for k in range(enc.k)]


def _entry_tags(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    return z3.And([
        z3.Implies(s[lru_name(side, "in", k)],
                   s[lru_name(side, "tag", k)] == s[lru_name(side, "pid", k)])
        for side, k in _entries(enc)
    ])


def _exists(s: SymState, r: int, j: int) -> z3.BoolRef:
    return z3.BoolVal(True) if j == 0 else s[req_name(r, "n")] > j


def _wire_items(enc: Encoding, s: SymState) -> list[tuple[z3.BoolRef, int, int]]:
    """(live, r, j) for every wire item slot: live when it is an item of a pending message,
    or (D6) the item already updated of an attempt half-way through its update."""
    slots = []
    for r in range(enc.r):
        first_updated = z3.If(s[req_name(r, "swap")], 1, 0)
        updating = z3.And(r < s["nreq"], s[req_name(r, "stage")] == StageCode.UPDATING)
        for j in range(enc.m):
            pending = z3.And(s[msg_name(r, "pend")], _exists(s, r, j))
            written = z3.And(updating, first_updated == j) if enc.split else z3.BoolVal(False)
            slots.append((z3.Or(pending, written), r, j))
    return slots


def _wire_tags(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    facts = []
    for live, r, j in _wire_items(enc, s):
        data, ph, tag = (s[msg_name(r, item(f, j))] for f in ("data", "ph", "tag"))
        facts.append(z3.Implies(live, z3.And(tag == ph, z3.Or(data == NONE_PID, data == ph))))
    return z3.And(facts)


def _served_one_processing(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    served = s["ld_kind"] == DeliveryCode.SERVED
    facts = []
    for j in range(enc.m):
        exists = item_exists(enc, s, s["ld_rid"], j)
        same = z3.And(s[item("ld_tensor", j)] == s[item("ld_ph", j)],
                      s[item("ld_tver", j)] == s[item("ld_pver", j)])
        facts.append(z3.Implies(z3.And(served, exists), same))
    return z3.And(facts)


def _pid_slots(enc: Encoding, s: SymState) -> list[tuple[z3.BoolRef, z3.ExprRef, z3.ExprRef]]:
    """(held, pid, version) of every slot that holds a processing: entries, wire items, and
    (D6) the pids processed for an attempt not yet sent."""
    slots = [(s[lru_name(side, "in", k)], s[lru_name(side, "pid", k)],
              s[lru_name(side, "ver", k)]) for side, k in _entries(enc)]
    slots += [(live, s[msg_name(r, item("ph", j))], s[msg_name(r, item("ver", j))])
              for live, r, j in _wire_items(enc, s)]
    if enc.split:
        for r in range(enc.r):
            stage = s[req_name(r, "stage")]
            mid = z3.And(r < s["nreq"],
                         z3.Or(stage == StageCode.PROCESSED, stage == StageCode.UPDATING))
            for j in range(enc.m):
                pid = s[req_name(r, item("proc", j))]
                slots.append((z3.And(mid, _exists(s, r, j), pid != NONE_PID), pid,
                              s[req_name(r, item("ver", j))]))
    return slots


def _one_version_per_pid(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    slots = _pid_slots(enc, s)
    return z3.And([
        z3.Implies(z3.And(a[0], b[0], a[1] == b[1]), a[2] == b[2])
        for i, a in enumerate(slots) for b in slots[i + 1:]
    ])


def _pids_issued(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    return z3.And(s["nproc"] >= 0, *[z3.Implies(held, z3.And(pid >= 0, pid < s["nproc"]))
                                     for held, pid, _ in _pid_slots(enc, s)])


def _known_contents(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    facts = []
    for r in range(enc.r):
        ids = [s[req_name(r, item("id", j))] for j in range(enc.m)]
        request = [s[req_name(r, "n")] >= 1, s[req_name(r, "n")] <= enc.m,
                   s[req_name(r, "fe")] >= 0, s[req_name(r, "fe")] < enc.front_ends]
        for j in range(enc.m):
            ver = s[req_name(r, item("ver", j))]
            distinct = [] if enc.bounds.duplicates else [ids[i] != ids[j] for i in range(j)]
            known = z3.And(ids[j] >= 0, ids[j] < enc.k, ver >= 0, ver < enc.versions,
                           *distinct)
            request.append(z3.Implies(_exists(s, r, j), known))
        facts.append(z3.Implies(r < s["nreq"], z3.And(request)))
    return z3.And(facts)


def _channel_slots_used(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    return z3.And([z3.Implies(z3.Or(s[msg_name(r, "pend")], s[rep_name(r, "pend")]),
                              r < s["nreq"]) for r in range(enc.r)])


def _update_progress(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """D6: an attempt half-way through its update has updated exactly one of its two items;
    one just processed has updated none."""
    facts = []
    for r in range(enc.r):
        stage, done = s[req_name(r, "stage")], s[req_name(r, "done")]
        facts.append(z3.Implies(r < s["nreq"], z3.And(
            z3.Implies(stage == StageCode.PROCESSED, done == 0),
            z3.Implies(stage == StageCode.UPDATING, z3.And(done == 1, s[req_name(r, "n")] == 2)),
        )))
    return z3.And(facts)


def _within_budget(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    return z3.Not(BAD["S2"](enc, p, s))


def _positive_sizes(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    return z3.And([z3.Implies(s[lru_name(side, "in", k)], s[lru_name(side, "size", k)] >= 1)
                   for side, k in _entries(enc)])


def _no_ghosts(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    return z3.And([z3.Not(s[lru_name(side, "ghost", k)]) for side, k in _entries(enc)])


def _no_fault(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """No fault, and no request failed by P0's assertion (S3 itself)."""
    return z3.Not(BAD["S3"](enc, p, s))


V3_INVARIANTS: tuple[Invariant, ...] = (
    Invariant.of("I1", "entry-tag-is-its-processing", _entry_tags),
    Invariant.of("I2", "wire-tag-is-its-placeholders", _wire_tags),
    Invariant.of("I3", "served-from-one-processing", _served_one_processing),
    Invariant(
        "one-version-per-processing",
        "Two entries or messages that hold the same pid hold the same content version (a "
        "processing is one content; every copy of a pid is copied with its version).",
        _one_version_per_pid,
    ),
    Invariant.of("I4", "pids-already-issued", _pids_issued),
    Invariant.of("I5", "requests-name-known-contents", _known_contents),
    Invariant(
        "channel-slots-of-existing-requests",
        "A pending message or reply is in the slot of an existing request (the encoding stores "
        "channels per request slot; the spec's channels hold only what was sent).",
        _channel_slots_used,
    ),
    Invariant(
        "update-progress",
        "Under D6, an attempt between probe and send has updated no item (processed) or one of "
        "its two items (updating): the encoding keeps this count in a slot, the spec in the "
        "attempt's work record.",
        _update_progress,
    ),
    Invariant.of("S2", "within-budget", _within_budget),
    Invariant.of("I6", "entries-have-positive-size", _positive_sizes),
    Invariant.of("I7", "no-ghost-slots", _no_ghosts),
    Invariant.of("S3", "no-fault", _no_fault),
)


BUDGET_INVARIANTS: tuple[Invariant, ...] = tuple(
    inv for inv in V3_INVARIANTS if inv.name in ("within-budget", "entries-have-positive-size",
                                                 "no-ghost-slots")
)
"""The certificate of S2 alone, for every variant whose LRUs are not flawed: eviction stops only
when the new entry fits, an entry larger than the budget is never inserted, and no slot without
bytes can stall the eviction."""


def certificates(enc: Encoding) -> tuple[tuple[tuple[Invariant, ...], tuple[str, ...]], ...]:
    """The certificates that apply to an encoding's variant, each with the properties it
    proves, strongest first."""
    from dataclasses import replace

    from spec import V3, LruFlaw

    found: list[tuple[tuple[Invariant, ...], tuple[str, ...]]] = []
    # V4 is V3 plus resends that bypass the shadow: a resend only sends payloads, which V3's
    # certificate already admits at any time (every payload's tag is its processing).
    if replace(enc.variant, name=V3.name, resends_bypass_shadow=False) == V3:
        found.append((V3_INVARIANTS, encoded_safety()))
    if enc.variant.shadow_lru is LruFlaw.NONE and enc.variant.receiver_lru is LruFlaw.NONE:
        found.append((BUDGET_INVARIANTS, ("S2",)))
    return tuple(found)


def conjunction(
    enc: Encoding, p: Params, s: SymState, invariants: tuple[Invariant, ...]
) -> z3.BoolRef:
    return z3.And([inv.holds(enc, p, s) for inv in invariants])


class _Checks:
    """Fresh solvers, each bounded by `rlimit` units per check; `peak` is the most units one
    of them spent. Each solver works in a z3 context of its own (`budget.own_context`), so
    that the units a check spends, and so whether it runs out, do not depend on what the
    process's context built before (the other certificates and cells of its group)."""

    def __init__(self, background: z3.BoolRef, rlimit: int) -> None:
        self.background, self.rlimit, self.peak = background, rlimit, 0

    def must_be(self, expected: z3.CheckSatResult, what: str, *facts: z3.BoolRef) -> None:
        answer = Bounded.alone(self.rlimit, self.background, *facts).check()
        self.peak = max(self.peak, answer.used)
        if answer.result == z3.unknown:
            raise CertificateRejected(f"{what}: undecided, {answer.why_unknown()}")
        if answer.result != expected:
            raise CertificateRejected(f"{what}: expected {expected}, got {answer.result}")

    def must_be_per_action(self, what: str, act: z3.ArithRef, codes: tuple[int, ...],
                           *facts: z3.BoolRef) -> None:
        """`facts` unsatisfiable, shown one action at a time: one solver holds them, and each
        check assumes the step's action is one of `codes` (the transition's disjunction ranges
        over exactly these, so every case unsatisfiable is the whole unsatisfiable). Split
        this way, the costliest consecution check of V3's certificate under every drift
        source spends about a quarter of the units it spends as one query
        (`benchmarks/bench_certificate.py`)."""
        cases = [act == code for code in codes]
        own, rebuilt = own_context((self.background, *facts, *cases))
        solver = Bounded(self.rlimit, z3.Solver(ctx=own))
        solver.add(*rebuilt[:len(rebuilt) - len(cases)])
        for code, case in zip(codes, rebuilt[len(rebuilt) - len(cases):], strict=True):
            answer = solver.check(case)
            self.peak = max(self.peak, answer.used)
            if answer.result == z3.unknown:
                raise CertificateRejected(f"{what}, on {_action_words(code)}: undecided, "
                                          f"{answer.why_unknown()}")
            if answer.result != z3.unsat:
                raise CertificateRejected(f"{what}, on {_action_words(code)}: expected "
                                          f"unsat, got {answer.result}")


def _action_words(code: int) -> str:
    """An action code as a rejection names it: "P0Update (front end 0)"."""
    action = ACTIONS[code]
    where = [f"{side} {index}" for side, index in (("front end", action.front_end),
                                                    ("engine", action.engine))
             if index is not None]
    return action.spec_class.__name__ + (f" ({', '.join(where)})" if where else "")


def prove(
    enc: Encoding,
    invariants: tuple[Invariant, ...],
    properties: tuple[str, ...],
    rlimit: int = CERTIFICATE_RLIMIT,
) -> list[ProvedAllDepths]:
    """Check the certificate in three steps (plus non-vacuity); one result per property. A
    query that runs out of `rlimit` units rejects the certificate, saying so."""
    start = time.perf_counter()
    p = params(enc)
    checks = _Checks(params_constraint(enc, p), rlimit)
    s, n = state_at(enc, 0), state_at(enc, 1)
    inv_s = conjunction(enc, p, s, invariants)
    checks.must_be(z3.unsat, "initiation (init implies the invariant)",
                   initial(enc, s), z3.Not(inv_s))
    checks.must_be(z3.sat, "non-vacuity (the invariant holds in some initial state)",
                   initial(enc, s), inv_s)
    a = args_at(0)
    step = z3.And(inv_s, transition(enc, p, s, n, a))
    for inv in invariants:
        checks.must_be_per_action(f"consecution of {inv.name}", a.act, available(enc),
                                  step, z3.Not(inv.holds(enc, p, n)))
    for prop in properties:
        checks.must_be(z3.unsat, f"the invariant implies {prop}", inv_s, BAD[prop](enc, p, s))
    elapsed = time.perf_counter() - start
    names = " & ".join(inv.name for inv in invariants)
    return [ProvedAllDepths(prop, "inductive invariant (3-step check)", names, elapsed,
                            peak=checks.peak) for prop in properties]
