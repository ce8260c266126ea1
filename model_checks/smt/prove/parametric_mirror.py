"""H1 and S3 for every instance where the two caches mirror each other: one front end, one
engine, FIFO delivery, nothing removed from one side only, the same sizes on both sides
(environments within `MIRRORING`: D7, D8, D11 and none). A quantified inductive invariant
over an abstract model whose LRU states are an uninterpreted sort (z3, MBQI).

`parametric` relates nothing between P0's shadow and P1's cache (each side's entries go in
any order), so it cannot prove what rests on the mirror: that every reference P0 sends finds
its entry in P1 (H1), hence that V0, which crashes on a miss, never crashes (S3). This model
keeps exactly the mirror, for any identities, contents, sizes, budget, items per request and
requests:

- **LRU states and operations are uninterpreted.** A cache is a value of the sort `LruState`;
  `has`, `get`, `touch` and `put` (one `touch` and one `put` per LRU flaw, since a flaw
  changes the function) are uninterpreted functions, so the proof holds for every
  interpretation, the spec's `spec.lru` among them (its functions are pure). The one fact
  assumed about them (`ABSENT_OVERSIZE_PUT`, tested on `spec.lru.put`): a put of an absent
  key larger than the budget changes nothing (`put` removes the key's slots, of which there
  are none without the ghost flaw, and returns before inserting). A side's LRU runs with its
  variant's flaw (`shadow_lru`, `receiver_lru`): two different flaws are two functions.
- **A request is its LRU operations, in order.** P0's handling of a request (`P0Handle`, one
  step without D6) touches every identity (where the variant touches first), then per item in
  its update order does one `get` (a hit: a reference, carrying the entry's tag) or one `put`
  of the item's processing at P0's size (a miss: a payload). P1's delivery of the message
  touches the same identities, then per item in its resolution order does one `get` (a
  reference; a miss when absent or, tagged, when the tags differ) or the variant's payload
  rule at P1's size. The two orders are one: request order (without `references_first`), or
  references first on both sides. With it, P0 updates first the items whose identity its
  shadow holds when the update starts (a `get` evicts nothing, so each is a reference), then
  the others in request order; P1 resolves first the references whose identity no payload of
  the message carries, then the rest in request order. A request may name one identity twice
  (`spec.Config.duplicates`); the two groups still agree. Every item of an identity held at
  the start is a reference, and no payload of the message carries it. Of the items of an
  identity not held at the start, the first one updated is a payload (a miss), or, if its
  record did not fit, every one of them is; a later one that hits is a reference to the
  record the payload made, whose identity the message's payload carries: P1 resolves it after
  that payload, as P0 updated it (`engine.resolution_order`; the mutant that resolves every
  reference first, `references_after_own_payload=False`, breaks exactly this). The
  model's P0 pushes these operations, one per step, onto a
  FIFO queue and applies them to its shadow; P1 takes them, one per step, oldest first, and
  applies them to its cache. Splitting one spec step into several model steps only adds
  intermediate states: every spec run is a run of the model. P0 may push any operation at
  any time with the spec's own guard (a reference only for an identity its shadow holds, a
  payload only for one it does not, or, where resends bypass the shadow, for any identity),
  so every order of requests, items and retries is in it. V4's resend is its touches, then
  a `put` per item in request order whether the shadow holds the item or not; P1 touches the
  same identities and, holding no reference to resolve first, puts the payloads in request
  order too, by the same function where the payload wins and the old entry is dropped first
  (V4, like V3): the two sides stay mirrored through a put of an identity both hold.
- **The rest.** A client error (probe-time) changes nothing (a stutter); a success reply
  changes nothing; a miss reply makes P0 drop the reported identities (enabled once a miss
  happened, which the invariant excludes); the protocol's clear of both sides runs only with
  nothing in flight. P0's assertion needs a late-miss source (D7, D8 here) or a variant that
  does not touch its hits first (`parametric.LATE_MISS_SOURCES`), and never fires where late
  misses are reprocessed (V3: a reprocessed late miss is a payload; a UUID-only probed hit
  gone at the update's start is a client error decided before anything changes, and none
  can go later, since in one step with references first every probed hit is a reference
  resolved before any insert); a hang needs the ghost flaw. In the model P0's
  assertion ends the run (a fault); in the spec the front end goes on with its shadow partly
  updated for a request P1 never sees, which the mirror does not model: the certificate's
  no-fault part is what keeps H1's proof sound, since it fails wherever the assertion can
  fire (so V0-V2 are proved under D11 only).
- **Identity reuse, large requests** (D7, D8): a new content of an identity is another
  processing with its own sizes, and a request's inserts may evict its own earlier hits; both
  sides do the same operations on the same states, so neither breaks the mirror.

The certificate (`CERTIFICATE`): the queue holds, for each pending operation, the shadow
before it (`hist`): P1's cache is the state before the oldest pending operation, P0's shadow
the state after the newest, each pending operation leads from its state to the next by P0's
function and passed P0's guard there; no miss happened (H1) and no fault (S3). P1's step
applies its own function to the state P0 applied its function to, so the two must agree on
every operation P0 may push: that is where each mutant fails (`MirrorKnobs`: reordered
delivery, a lost operation, a one-sided clear, unequal sizes, a clear of both sides in flight, a
reference carrying a tag not its entry's; and a variant with another receiver LRU).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT
from model_checks.smt.prove.parametric import (
    IDENTITY,
    LATE_MISS_SOURCES,
    PROCESSING,
    CertificatePart,
    CertificateQueries,
    ParametricRejected,
    check_certificate,
    if_state,
)
from model_checks.smt.results import ProvedAllDepths
from spec import Drift, LruFlaw, Variant
from spec.drift import Environment

LRU = z3.DeclareSort("LruState")
INT, BOOL = z3.IntSort(), z3.BoolSort()
TOUCH, REFERENCE, PAYLOAD = 0, 1, 2

MIRRORING = frozenset({Drift.D7, Drift.D8, Drift.D11})
"""The drift sources under which the caches can mirror each other: they change both sides
alike (a new content, a request over the budget, an item skipped for its size). Every other
source reorders, loses, removes or adds a key on one side only, or skews the sizes."""


@dataclass(frozen=True)
class MirrorKnobs:
    """Behaviours the mirror does not have, each a mutant of one abstraction step."""

    name: str = "none"
    reordered: bool = False  # P1 takes any pending operation (D1, or another resolution order)
    lost: bool = False  # a pending operation never reaches P1 (D2)
    one_sided_clear: bool = False  # P1's cache emptied alone (D3, D4, D10)
    unequal_sizes: bool = False  # P1 sizes a processing differently (D9)
    clear_in_flight: bool = False  # both sides cleared with operations pending
    stale_tag: bool = False  # a reference carries any tag, not its entry's


NO_KNOBS = MirrorKnobs()


@dataclass(frozen=True)
class LruFunctions:
    """The uninterpreted LRU (its empty state and functions), the budget and each side's size
    of a processing: shared by every step."""

    budget: z3.ArithRef
    empty: z3.ExprRef
    has: z3.FuncDeclRef
    tag: z3.FuncDeclRef
    get: z3.FuncDeclRef
    pop: z3.FuncDeclRef
    touch: dict[LruFlaw, z3.FuncDeclRef]
    put: dict[LruFlaw, z3.FuncDeclRef]
    p0_bytes: z3.FuncDeclRef
    p1_bytes: z3.FuncDeclRef


def lru_functions(knobs: MirrorKnobs = NO_KNOBS) -> LruFunctions:
    p0 = z3.Function("m_p0_bytes", PROCESSING, INT)
    return LruFunctions(
        z3.Int("m_budget"), z3.Const("m_empty", LRU),
        z3.Function("m_has", LRU, IDENTITY, BOOL), z3.Function("m_tag", LRU, IDENTITY, PROCESSING),
        z3.Function("m_get", LRU, IDENTITY, LRU),
        z3.Function("m_pop", LRU, IDENTITY, LRU),
        {f: z3.Function(f"m_touch_{f.name}", LRU, IDENTITY, LRU) for f in LruFlaw},
        {f: z3.Function(f"m_put_{f.name}", LRU, IDENTITY, PROCESSING, INT, LRU) for f in LruFlaw},
        p0, z3.Function("m_p1_bytes", PROCESSING, INT) if knobs.unequal_sizes else p0,
    )


def axioms(fn: LruFunctions) -> z3.BoolRef:
    """What the model assumes of the LRU functions (`ABSENT_OVERSIZE_PUT`, and the empty
    cache holds nothing)."""
    lru, i, q, n = (z3.Const("ax_l", LRU), z3.Const("ax_i", IDENTITY),
                    z3.Const("ax_q", PROCESSING), z3.Int("ax_n"))
    facts = [fn.budget >= 1, z3.ForAll([i], z3.Not(fn.has(fn.empty, i)))]
    for flaw, put in fn.put.items():
        if flaw is not LruFlaw.GHOST_TOUCH:
            facts.append(z3.ForAll([lru, i, q, n], z3.Implies(
                z3.And(z3.Not(fn.has(lru, i)), n > fn.budget), put(lru, i, q, n) == lru)))
    return z3.And(facts)


ABSENT_OVERSIZE_PUT = ("a put of a key the LRU does not hold, larger than the budget, returns "
                       "the LRU unchanged (LRUs without the ghost flaw)")


@dataclass(frozen=True)
class MirrorState:
    """One state: both caches, the queue (kind, identity, processing, a reference's tag and
    the shadow before each operation, indexed head..tail-1), and the flags."""

    p1: z3.ExprRef
    shadow: z3.ExprRef
    hist: z3.ArrayRef
    kind: z3.ArrayRef
    ident: z3.ArrayRef
    pid: z3.ArrayRef
    tag: z3.ArrayRef
    head: z3.ArithRef
    tail: z3.ArithRef
    missed: z3.BoolRef
    fault: z3.BoolRef


def mirror_state(suffix: str) -> MirrorState:
    return MirrorState(
        z3.Const(f"m_p1{suffix}", LRU), z3.Const(f"m_shadow{suffix}", LRU),
        z3.Array(f"m_hist{suffix}", INT, LRU), z3.Array(f"m_kind{suffix}", INT, INT),
        z3.Array(f"m_ident{suffix}", INT, IDENTITY), z3.Array(f"m_pid{suffix}", INT, PROCESSING),
        z3.Array(f"m_tag{suffix}", INT, PROCESSING),
        z3.Int(f"m_head{suffix}"), z3.Int(f"m_tail{suffix}"), z3.Bool(f"m_missed{suffix}"),
        z3.Bool(f"m_fault{suffix}"),
    )


@dataclass(frozen=True)
class MirrorModel:
    """The mirror of one variant under an environment within `MIRRORING` (plus knobs)."""

    variant: Variant
    environment: frozenset[Drift] = MIRRORING
    knobs: MirrorKnobs = NO_KNOBS

    def p0_apply(self, fn: LruFunctions, lru: z3.ExprRef, kind: z3.ArithRef,
                 ident: z3.ExprRef, pid: z3.ExprRef) -> z3.ExprRef:
        """P0's function: touch, get (a hit), or put at P0's size (a miss)."""
        flaw = self.variant.shadow_lru
        return z3.If(kind == TOUCH, fn.touch[flaw](lru, ident),
                     z3.If(kind == REFERENCE, fn.get(lru, ident),
                           fn.put[flaw](lru, ident, pid, fn.p0_bytes(pid))))

    def p1_apply(self, fn: LruFunctions, lru: z3.ExprRef, kind: z3.ArithRef,
                 ident: z3.ExprRef, pid: z3.ExprRef) -> z3.ExprRef:
        """P1's function: touch, get (a reference), or the variant's payload rule
        (`engine.resolve_payload`) at P1's size."""
        v, flaw = self.variant, self.variant.receiver_lru
        size = fn.p1_bytes(pid)
        payload: z3.ExprRef = fn.put[flaw](lru, ident, pid, size)
        if not v.drop_before_replace:
            payload = z3.If(size > fn.budget, lru, payload)
        if not v.payload_wins:
            payload = z3.If(fn.has(lru, ident), fn.get(lru, ident), payload)
        return z3.If(kind == TOUCH, fn.touch[flaw](lru, ident),
                     z3.If(kind == REFERENCE, fn.get(lru, ident), payload))

    def p0_guard(self, fn: LruFunctions, lru: z3.ExprRef, kind: z3.ArithRef,
                 ident: z3.ExprRef) -> z3.BoolRef:
        """A reference only for an identity the shadow holds, a payload only for one it
        does not (`front_end._update_item`); where resends bypass the shadow (V4), a payload
        for any identity (a resend records every item afresh, held or not)."""
        payload: z3.BoolRef = z3.Not(fn.has(lru, ident))
        if self.variant.resends_bypass_shadow:
            payload = z3.BoolVal(True)
        return z3.Or(kind == TOUCH, z3.And(kind == REFERENCE, fn.has(lru, ident)),
                     z3.And(kind == PAYLOAD, payload))

    def p0_asserts(self) -> bool:
        needed = bool(self.environment & LATE_MISS_SOURCES) or not self.variant.touches_first
        return needed and not self.variant.late_miss_reprocess

    def hangs(self) -> bool:
        return LruFlaw.GHOST_TOUCH in (self.variant.shadow_lru, self.variant.receiver_lru)


MirrorAction = Callable[[MirrorModel, LruFunctions, MirrorState], tuple[z3.BoolRef, MirrorState]]


def _op() -> tuple[z3.ArithRef, z3.ExprRef, z3.ExprRef]:
    return z3.Int("c_kind"), z3.Const("c_ident", IDENTITY), z3.Const("c_pid", PROCESSING)


def p0_pushes(m: MirrorModel, fn: LruFunctions, s: MirrorState) -> tuple[z3.BoolRef, MirrorState]:
    """P0 applies one operation of a request it handles to its shadow and queues it for P1
    (with `lost`, it may also leave it off the queue: the request never reaches P1)."""
    kind, ident, pid = _op()
    after = m.p0_apply(fn, s.shadow, kind, ident, pid)
    guard = z3.And(z3.Or(kind == TOUCH, kind == REFERENCE, kind == PAYLOAD),
                   m.p0_guard(fn, s.shadow, kind, ident))
    tag = z3.Const("c_tag", PROCESSING) if m.knobs.stale_tag else fn.tag(s.shadow, ident)
    pushed = replace(
        s, shadow=after, kind=z3.Store(s.kind, s.tail, kind),
        ident=z3.Store(s.ident, s.tail, ident), pid=z3.Store(s.pid, s.tail, pid),
        tag=z3.Store(s.tag, s.tail, tag),
        hist=z3.Store(s.hist, s.tail + 1, after), tail=s.tail + 1)
    if m.knobs.lost:
        return guard, if_state(z3.Bool("c_lost"), replace(s, shadow=after), pushed)
    return guard, pushed


def p1_takes(m: MirrorModel, fn: LruFunctions, s: MirrorState) -> tuple[z3.BoolRef, MirrorState]:
    """P1 applies the oldest pending operation to its cache (with `reordered`, any pending
    one, the oldest moving into its slot); a reference it does not hold (tagged: or whose
    tag differs) is a miss, a crash where misses are not reported."""
    at = z3.Int("c_at") if m.knobs.reordered else s.head
    kind, ident, pid = z3.Select(s.kind, at), z3.Select(s.ident, at), z3.Select(s.pid, at)
    unusable = z3.Not(fn.has(s.p1, ident))
    if m.variant.tagged:
        unusable = z3.Or(unusable, fn.tag(s.p1, ident) != z3.Select(s.tag, at))
    miss = z3.And(kind == REFERENCE, unusable)
    guard = z3.And(s.head <= at, at < s.tail)
    after = replace(
        s, p1=m.p1_apply(fn, s.p1, kind, ident, pid), head=s.head + 1,
        kind=z3.Store(s.kind, at, z3.Select(s.kind, s.head)),
        ident=z3.Store(s.ident, at, z3.Select(s.ident, s.head)),
        pid=z3.Store(s.pid, at, z3.Select(s.pid, s.head)),
        tag=z3.Store(s.tag, at, z3.Select(s.tag, s.head)),
        missed=z3.Or(s.missed, miss),
        fault=z3.Or(s.fault, z3.And(miss, z3.BoolVal(not m.variant.reports_misses))))
    return guard, after


def p0_invalidates(
    m: MirrorModel, fn: LruFunctions, s: MirrorState
) -> tuple[z3.BoolRef, MirrorState]:
    """After a reported miss, P0 drops a reported identity from its shadow (V1-V3)."""
    ident = z3.Const("c_dropped", IDENTITY)
    return z3.And(s.missed, z3.BoolVal(m.variant.invalidates)), replace(
        s, shadow=fn.pop(s.shadow, ident), hist=z3.Store(s.hist, s.tail, fn.pop(s.shadow, ident)))


def clear_both(m: MirrorModel, fn: LruFunctions, s: MirrorState) -> tuple[z3.BoolRef, MirrorState]:
    """The protocol's clear of both sides, with nothing in flight (`ClearBoth`)."""
    idle = z3.BoolVal(True) if m.knobs.clear_in_flight else s.head == s.tail
    return idle, replace(s, p1=fn.empty, shadow=fn.empty,
                         hist=z3.Store(s.hist, s.tail, fn.empty))


def p1_cleared(m: MirrorModel, fn: LruFunctions, s: MirrorState) -> tuple[z3.BoolRef, MirrorState]:
    """P1's cache emptied alone (only with the `one_sided_clear` knob)."""
    return z3.BoolVal(m.knobs.one_sided_clear), replace(s, p1=fn.empty)


def p0_asserts(m: MirrorModel, fn: LruFunctions, s: MirrorState) -> tuple[z3.BoolRef, MirrorState]:
    """P0's assertion on a probed hit gone at update time (`MirrorModel.p0_asserts`)."""
    return z3.BoolVal(m.p0_asserts()), replace(s, fault=z3.BoolVal(True))


def eviction_hangs(
    m: MirrorModel, fn: LruFunctions, s: MirrorState
) -> tuple[z3.BoolRef, MirrorState]:
    """A ghost-key LRU's eviction loop spins (at any time)."""
    return z3.BoolVal(m.hangs()), replace(s, fault=z3.BoolVal(True))


ACTIONS: dict[str, MirrorAction] = {
    "P0 handles an operation": p0_pushes,
    "P1 takes an operation": p1_takes,
    "P0 drops a reported identity": p0_invalidates,
    "both sides are cleared": clear_both,
    "P1 is cleared alone": p1_cleared,
    "P0 asserts": p0_asserts,
    "an eviction hangs": eviction_hangs,
}


def step(m: MirrorModel, fn: LruFunctions, s: MirrorState, n: MirrorState,
         action: MirrorAction) -> z3.BoolRef:
    """One step by `action`: its guard, no fault before, and n its complete next state."""
    guard, after = action(m, fn, s)
    fields = MirrorState.__dataclass_fields__
    return z3.And(z3.Not(s.fault), guard, *[getattr(n, f) == getattr(after, f) for f in fields])


def initial(fn: LruFunctions, s: MirrorState) -> z3.BoolRef:
    return z3.And(s.p1 == fn.empty, s.shadow == fn.empty, s.head == 0, s.tail == 0,
                  z3.Select(s.hist, 0) == fn.empty, z3.Not(s.missed), z3.Not(s.fault))


# -- the certificate ---------------------------------------------------------------------------


MirrorInvariant = CertificatePart[Callable[[MirrorModel, LruFunctions, MirrorState], z3.BoolRef]]
"""A part of the mirror's certificate: its formula on the model, its functions and a state."""


def _replays(m: MirrorModel, fn: LruFunctions, s: MirrorState) -> z3.BoolRef:
    k = z3.Int("k")
    before = z3.Select(s.hist, k)
    kind, ident, pid = z3.Select(s.kind, k), z3.Select(s.ident, k), z3.Select(s.pid, k)
    return z3.ForAll([k], z3.Implies(z3.And(s.head <= k, k < s.tail), z3.And(
        z3.Select(s.hist, k + 1) == m.p0_apply(fn, before, kind, ident, pid),
        m.p0_guard(fn, before, kind, ident),
        z3.Or(z3.BoolVal(not m.variant.tagged), z3.Select(s.tag, k) == fn.tag(before, ident)),
        z3.Or(kind == TOUCH, kind == REFERENCE, kind == PAYLOAD))))


CERTIFICATE: tuple[MirrorInvariant, ...] = (
    MirrorInvariant("queue-in-order", "the pending operations are head..tail-1",
                    lambda m, fn, s: s.head <= s.tail),
    MirrorInvariant("p1-is-the-drain-start", "P1's cache is the shadow as it was before the "
                    "oldest pending operation",
                    lambda m, fn, s: z3.Select(s.hist, s.head) == s.p1),
    MirrorInvariant("shadow-is-the-drain-end", "P0's shadow is the state after the newest "
                    "pending operation",
                    lambda m, fn, s: z3.Select(s.hist, s.tail) == s.shadow),
    MirrorInvariant("each-pending-operation-replays", "each pending operation passed P0's "
                    "guard in the state before it, carries (tagged) that state's tag of its "
                    "identity and leads to the next state by P0's function", _replays),
    MirrorInvariant("no-miss", "no reference has missed (H1)", lambda m, fn, s: z3.Not(s.missed)),
    MirrorInvariant("no-fault", "no fault (S3)", lambda m, fn, s: z3.Not(s.fault)),
)

BAD: dict[str, Callable[[MirrorState], z3.BoolRef]] = {
    "H1": lambda s: s.missed,
    "S3": lambda s: s.fault,
}
PROPERTIES = tuple(BAD)
LIVENESS_BAD: dict[str, Callable[[MirrorState], z3.BoolRef]] = {
    "L1": lambda s: s.missed, "L2": lambda s: s.missed, "L3": lambda s: s.missed,
}
"""L1-L3 over-approximated by their common premise: each monitor starts at a miss (L1 owes
nothing before P0 takes a miss reply, L2 needs a second miss, L3 watches from P1's miss), so
where no reference ever misses (the certificate's `no-miss`) none of them can be violated."""
METHOD = ("the mirror, a quantified inductive invariant over uninterpreted LRU states (MBQI, "
          "3-step check)")


def prove(model: MirrorModel, properties: tuple[str, ...] = PROPERTIES,
          rlimit: int = CERTIFICATE_RLIMIT,
          certificate: tuple[MirrorInvariant, ...] = CERTIFICATE) -> list[ProvedAllDepths]:
    """Check the certificate with fresh solvers (I satisfiable with init; init => I; I and
    each action => each part of I'; I => each property of `BAD` or `LIVENESS_BAD`); one
    result per property, instance
    "any". Raises ParametricRejected naming the query that failed (also for an environment
    outside `MIRRORING`: not this model's)."""
    _applies(model)
    start = time.perf_counter()
    fn, s, n = lru_functions(model.knobs), mirror_state(""), mirror_state("'")
    inv = z3.And([part.holds(model, fn, s) for part in certificate])
    consecutions = [(f"{part.name} under '{label}'", step(model, fn, s, n, action),
                     z3.Not(part.holds(model, fn, n)))
                    for label, action in ACTIONS.items() for part in certificate]
    violations = [(prop, {**BAD, **LIVENESS_BAD}[prop](s)) for prop in properties]
    queries = CertificateQueries(name(model), axioms(fn), inv, initial(fn, s), consecutions,
                                 violations)
    return check_certificate(queries, certificate, METHOD, rlimit, start)


def _applies(model: MirrorModel) -> None:
    outside = model.environment - MIRRORING
    if outside:
        raise ParametricRejected(
            f"{name(model)}: the mirror does not apply: {_ids(outside)} outside its "
            f"environment (within {_ids(MIRRORING)})")


def _ids(environment: frozenset[Drift]) -> str:
    return Environment.of(environment).text


def name(model: MirrorModel) -> str:
    knobs = "" if model.knobs is NO_KNOBS else f" with {model.knobs.name}"
    return f"{model.variant.name}{knobs} under {_ids(model.environment) or 'no drift'} (mirror)"
