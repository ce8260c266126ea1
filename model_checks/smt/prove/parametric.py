"""S1-S3 of V3 for every instance size: an abstract model over uninterpreted sorts, proved by a
quantified inductive invariant (z3's model-based quantifier instantiation, MBQI).

The bounded encoding (`symbols`) fixes 3 identities, 4 requests, 1-2 items, 1-2 front ends,
budget 1..4 and sizes 1..3. Here nothing is bounded: identities, front ends, wire items and
processings are uninterpreted sorts (any number of each, finite or not), the budget and every
size are unbounded integers, and there is no limit on requests, unfinished requests, retries or
items per request.

The model over-approximates the spec, item by item (`ParametricModel`; every drift source is in
it at once):
- P0 (any front end) sends an item of any identity either as a reference to its shadow entry
  (placeholders and tag are the entry's) or as a payload of any processing, which it may record
  in its shadow (the old entry of the identity dropped first, and only if the new one fits) or
  not. Requests, probes, touches and LRU order are abstracted away: any item of any request, in
  any order, under any interleaving (D1, D5, D6, D8), with any retry. Each wire item carries a
  `resend` flag, chosen freely as P0 sends it (its message is a retry's: the request's
  `retries > 0`); a variant whose resends bypass the shadow (V4) sends no reference with it
  set. A payload whatever the shadow holds is already any payload at any time, so V4's
  resends (every item processed afresh, recorded and sent as a payload, in request order,
  touches first) are steps of the model: V3's certificate covers V4's S1-S3 unchanged.
- Any entry of any side may be dropped at any time (eviction in any order, clears, resets,
  restarts, invalidation: D3, D4, D10), any wire item may be lost (D2).
- P1 takes any wire item: a payload is used and cached per the variant's payload rule (if it
  fits, the old entry dropped first); a reference is served from the entry of its identity
  if present and, where tagged, if the tags agree; otherwise it is a miss (a crash without
  reported misses); under D9 a tagged receiver may instead serve it the processing its tag
  names (an earlier payload of its own message carried it: `P1ReceiveOwnPayload`). One
  served item at a time is the "last delivery".
- Sizes: each side's size of a processing is any positive integer (D9), possibly over the
  budget (D11); identities may name several processings (D7).
- A cache side is its entries plus its byte total `used`, which every step changes by exactly
  the sizes it adds and removes (so `used` is the sum of the entries' sizes by construction;
  first-order logic cannot state a sum over an unbounded set). The LRU's eviction loop is its
  contract: entries are evicted one step at a time, and an insert happens only once the entry
  fits (`used + size <= budget`; the ignore-new-size flaw checks `used <= budget`).
- Engines: one P1 stands for each engine. Under D5's router (one front end, two engines,
  `Config.engines`) the engines share nothing but the front end, so a run's projection on one
  engine (its receiver, its deliveries, every wire item, the other engine's being items it
  never takes or are lost) is a run of the model: a certificate about the model's P1 holds
  for every engine's receiver (the tests check each engine's projection).
- Faults: P1's assertion on a miss (variants without reported misses), P0's assertion on a
  probed hit gone at update time (without late-miss reprocessing: any time), a hang (an LRU with
  the ghost flaw: any time).

The certificate (`CERTIFICATE`) is per identity, per front end and per wire item; `prove`
checks it with fresh solvers: init => I, I and each action => I', I => each property, and
rejects an I that is unsatisfiable. The tests evaluate I on the abstraction of sampled reachable
spec states (`tests/smt/parametric_abstraction.py`).

A mutant of V3 (a `Flaw`: P1 checks the tag of a message's first item only,
`tests/smt/test_smt_parametric.py`) makes the proof fail: S1's consecution breaks on the path
of a later reference.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT, Bounded
from model_checks.smt.judged import encoded_safety
from model_checks.smt.results import ProvedAllDepths
from spec import V3, Drift, LruFlaw, Variant
from spec.drift import Environment

IDENTITY = z3.DeclareSort("Identity")
FRONT_END = z3.DeclareSort("FrontEnd")
WIRE = z3.DeclareSort("WireItem")
PROCESSING = z3.DeclareSort("Processing")
INT, BOOL = z3.IntSort(), z3.BoolSort()

NO_TAG = z3.Const("no_tag", PROCESSING)
"""The tag of an entry or item of an untagged variant (the spec's None)."""


@dataclass(frozen=True)
class Flaw:
    """A knob of the abstract model that the spec's variants do not have: a mutant of V3."""

    name: str
    tag_checked_on_first_item_only: bool = False
    serves_another_identity: bool = False
    resend_sends_references: bool = False


NO_FLAW = Flaw("none")
RESEND_REFERENCES = Flaw("a resend that reads the shadow (V3's resends)",
                         resend_sends_references=True)


@dataclass(frozen=True)
class ParametricState:
    """One state of the abstract model (arrays indexed by the sorts)."""

    p1_in: z3.ArrayRef
    p1_pid: z3.ArrayRef
    p1_tag: z3.ArrayRef
    p1_size: z3.ArrayRef
    p1_used: z3.ArithRef
    sh_in: z3.ArrayRef  # (front end, identity) -> entry present
    sh_pid: z3.ArrayRef
    sh_tag: z3.ArrayRef
    sh_size: z3.ArrayRef
    sh_used: z3.ArrayRef  # front end -> bytes recorded
    w_live: z3.ArrayRef
    w_id: z3.ArrayRef
    w_data: z3.ArrayRef  # the item carries a payload (its processing is w_ph)
    w_ph: z3.ArrayRef
    w_tag: z3.ArrayRef
    w_pos: z3.ArrayRef  # position of the item in its message
    w_resend: z3.ArrayRef  # the item's message is a resend (its request's retries > 0)
    ld_live: z3.BoolRef  # an item was served; it paired ld_tensor with ld_ph
    ld_tensor: z3.ExprRef
    ld_ph: z3.ExprRef
    fault: z3.BoolRef


def state(suffix: str) -> ParametricState:
    """Fresh variables for one state."""
    def arr(name: str, *sorts: z3.SortRef) -> z3.ArrayRef:
        return z3.Array(f"{name}{suffix}", *sorts)

    return ParametricState(
        arr("p1_in", IDENTITY, BOOL), arr("p1_pid", IDENTITY, PROCESSING),
        arr("p1_tag", IDENTITY, PROCESSING), arr("p1_size", IDENTITY, INT),
        z3.Int(f"p1_used{suffix}"),
        arr("sh_in", FRONT_END, IDENTITY, BOOL), arr("sh_pid", FRONT_END, IDENTITY, PROCESSING),
        arr("sh_tag", FRONT_END, IDENTITY, PROCESSING), arr("sh_size", FRONT_END, IDENTITY, INT),
        arr("sh_used", FRONT_END, INT),
        arr("w_live", WIRE, BOOL), arr("w_id", WIRE, IDENTITY), arr("w_data", WIRE, BOOL),
        arr("w_ph", WIRE, PROCESSING), arr("w_tag", WIRE, PROCESSING), arr("w_pos", WIRE, INT),
        arr("w_resend", WIRE, BOOL),
        z3.Bool(f"ld_live{suffix}"), z3.Const(f"ld_tensor{suffix}", PROCESSING),
        z3.Const(f"ld_ph{suffix}", PROCESSING), z3.Bool(f"fault{suffix}"),
    )


@dataclass(frozen=True)
class Params:
    """The budget, each side's size of a processing and the identity a processing processed
    (`owner`): unbounded, shared by every step."""

    budget: z3.ArithRef
    p0_bytes: z3.FuncDeclRef
    p1_bytes: z3.FuncDeclRef
    owner: z3.FuncDeclRef


def params() -> Params:
    return Params(z3.Int("budget"), z3.Function("p0_bytes", PROCESSING, INT),
                  z3.Function("p1_bytes", PROCESSING, INT),
                  z3.Function("owner", PROCESSING, IDENTITY))


@dataclass(frozen=True)
class Choice:
    """The arguments of one step: a front end, an identity, a wire item, a processing, a
    position, a yes/no (record in the shadow / cache in P1), and whether P0 sends the item
    as part of a resend."""

    fe: z3.ExprRef
    ident: z3.ExprRef
    wire: z3.ExprRef
    pid: z3.ExprRef
    pos: z3.ArithRef
    keep: z3.BoolRef
    resend: z3.BoolRef


def choice() -> Choice:
    return Choice(z3.Const("c_fe", FRONT_END), z3.Const("c_id", IDENTITY),
                  z3.Const("c_wire", WIRE), z3.Const("c_pid", PROCESSING), z3.Int("c_pos"),
                  z3.Bool("c_keep"), z3.Bool("c_resend"))


EVERY_SOURCE: frozenset[Drift] = frozenset(Drift)

LATE_MISS_SOURCES = frozenset({Drift.D6, Drift.D7, Drift.D8})
"""What P0's assertion (a probed hit gone at update time) needs in the spec: another request's
update between probe and update (D6), a request over the budget (D8), or an entry recorded at
the size of an older content of its identity than the request's (D7: the request fits the
budget by its own contents' sizes, its probed hit's entry does not). Without any of them P0
handles a request in one step (`P0Handle`), touches its hits first, and the request's items
fit the budget together (`request_fits_unless_d8`, an identity the request names twice
counted once: P0 inserts it once, its later items hit that record), so no insert evicts a
probed hit (a variant that does not touch its hits first may evict one at any time:
`p0_assertion`)."""


@dataclass(frozen=True)
class ParametricModel:
    """The abstract model of one variant under an environment (plus a flaw the spec does not
    have, for mutants). Every source is in it at once, except where the environment lacks
    one that a behaviour needs: P0's assertion needs one of `LATE_MISS_SOURCES`. (Without D7
    an identity has one content, so a processing's content is its `owner`: `parametric_goals`
    states S1 that way there.)"""

    variant: Variant = V3
    flaw: Flaw = NO_FLAW
    environment: frozenset[Drift] = EVERY_SOURCE

    def resends_hold_references(self) -> bool:
        """A resend may send a reference: it reads the shadow (V0-V3, or the mutant)."""
        return not self.variant.resends_bypass_shadow or self.flaw.resend_sends_references

    def tag_of(self, pid: z3.ExprRef) -> z3.ExprRef:
        return pid if self.variant.tagged else NO_TAG

    def fits(self, used: z3.ArithRef, size: z3.ArithRef, budget: z3.ArithRef,
             flaw: LruFlaw) -> z3.BoolRef:
        """The LRU's contract: an entry is inserted once it fits (its eviction loop ran)."""
        if flaw is LruFlaw.IGNORE_NEW_SIZE:
            return z3.And(used <= budget, size <= budget)
        return used + size <= budget


Action = Callable[[ParametricModel, Params, ParametricState, Choice],
                  tuple[z3.BoolRef, ParametricState]]


def _drop(in_: z3.ArrayRef, size: z3.ArrayRef, used: z3.ArithRef,
          *key: z3.ExprRef) -> z3.ArithRef:
    return used - z3.If(z3.Select(in_, *key), z3.Select(size, *key), 0)


def p0_send_reference(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """P0 (front end fe) sends item `wire` of identity `ident` by reference to its entry; a
    resend only where resends read the shadow."""
    guard = z3.And(z3.Select(s.sh_in, c.fe, c.ident), z3.Not(z3.Select(s.w_live, c.wire)),
                   c.pos >= 0, z3.Or(z3.Not(c.resend), m.resends_hold_references()))
    return guard, _sent(s, c, data=False, ph=z3.Select(s.sh_pid, c.fe, c.ident),
                        tag=z3.Select(s.sh_tag, c.fe, c.ident))


def p0_send_payload(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """P0 sends processing `pid` as a payload; with `keep`, it records it in its shadow (old
    entry dropped first, once it fits), else leaves the shadow as it is."""
    size = p.p0_bytes(c.pid)
    used = _drop(s.sh_in, s.sh_size, z3.Select(s.sh_used, c.fe), c.fe, c.ident)
    recorded = replace(
        s,
        sh_in=z3.Store(s.sh_in, c.fe, c.ident, True),
        sh_pid=z3.Store(s.sh_pid, c.fe, c.ident, c.pid),
        sh_tag=z3.Store(s.sh_tag, c.fe, c.ident, m.tag_of(c.pid)),
        sh_size=z3.Store(s.sh_size, c.fe, c.ident, size),
        sh_used=z3.Store(s.sh_used, c.fe, used + size),
    )
    fits = m.fits(used, size, p.budget, m.variant.shadow_lru)
    owned = p.owner(c.pid) == c.ident  # a processing of identity i is sent as an item of i
    guard = z3.And(z3.Not(z3.Select(s.w_live, c.wire)), c.pos >= 0, size >= 1,
                   z3.Implies(c.keep, fits), owned)
    after = if_state(c.keep, recorded, s)
    return guard, _sent(after, c, data=True, ph=c.pid, tag=m.tag_of(c.pid))


def _sent(s: ParametricState, c: Choice, data: bool, ph: z3.ExprRef,
          tag: z3.ExprRef) -> ParametricState:
    return replace(
        s,
        w_live=z3.Store(s.w_live, c.wire, True), w_id=z3.Store(s.w_id, c.wire, c.ident),
        w_data=z3.Store(s.w_data, c.wire, data), w_ph=z3.Store(s.w_ph, c.wire, ph),
        w_tag=z3.Store(s.w_tag, c.wire, tag), w_pos=z3.Store(s.w_pos, c.wire, c.pos),
        w_resend=z3.Store(s.w_resend, c.wire, c.resend),
    )


def shadow_drop(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """An entry of a shadow goes: eviction, invalidation, clear, restart."""
    used = z3.Select(s.sh_used, c.fe) - z3.Select(s.sh_size, c.fe, c.ident)
    return z3.Select(s.sh_in, c.fe, c.ident), replace(
        s, sh_in=z3.Store(s.sh_in, c.fe, c.ident, False), sh_used=z3.Store(s.sh_used, c.fe, used))


def p1_drop(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """An entry of P1 goes: eviction, clear, reset, restart."""
    return z3.Select(s.p1_in, c.ident), replace(
        s, p1_in=z3.Store(s.p1_in, c.ident, False),
        p1_used=s.p1_used - z3.Select(s.p1_size, c.ident))


def wire_lost(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """A wire item never reaches P1 (its request was rejected or aborted)."""
    return z3.Select(s.w_live, c.wire), replace(s, w_live=z3.Store(s.w_live, c.wire, False))


def p1_receive_payload(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """P1 takes a payload item: per the variant's payload rule it uses the cached entry ("the
    cache wins") or the payload, which it caches with `keep` once it fits, the old entry
    dropped first (where the variant drops before replacing)."""
    w, v = c.wire, m.variant
    ident, pid = z3.Select(s.w_id, w), z3.Select(s.w_ph, w)
    size = p.p1_bytes(pid)
    cached = z3.Select(s.p1_in, ident)
    taken = replace(s, w_live=z3.Store(s.w_live, w, False))
    dropped = _drop(s.p1_in, s.p1_size, s.p1_used, ident)
    stored = replace(
        taken,
        p1_in=z3.Store(s.p1_in, ident, True), p1_pid=z3.Store(s.p1_pid, ident, pid),
        p1_tag=z3.Store(s.p1_tag, ident, z3.Select(s.w_tag, w)),
        p1_size=z3.Store(s.p1_size, ident, size), p1_used=dropped + size,
    )
    fits = m.fits(dropped, size, p.budget, v.receiver_lru)
    if v.drop_before_replace:
        skipped = replace(taken, p1_in=z3.Store(s.p1_in, ident, False), p1_used=dropped)
    else:
        skipped = taken  # pre-#57833: a payload not cached leaves the old entry in place
    after = if_state(z3.And(c.keep, fits), stored, skipped)
    tensor: z3.ExprRef = pid
    if not v.payload_wins:
        after = if_state(cached, taken, after)
        tensor = z3.If(cached, z3.Select(s.p1_pid, ident), pid)
    guard = z3.And(z3.Select(s.w_live, w), z3.Select(s.w_data, w), size >= 1)
    return guard, replace(after, ld_live=z3.BoolVal(True), ld_tensor=tensor,
                          ld_ph=z3.Select(s.w_ph, w))


def p1_receive_reference(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """P1 takes a reference: served from its entry if present and (tagged) if the tags agree;
    otherwise a miss, reported (no delivery) or, without reported misses, a crash."""
    w = c.wire
    ident = c.ident if m.flaw.serves_another_identity else z3.Select(s.w_id, w)
    agree = z3.Select(s.p1_tag, ident) == z3.Select(s.w_tag, w)
    if m.flaw.tag_checked_on_first_item_only:
        agree = z3.Or(agree, z3.Select(s.w_pos, w) > 0)
    hit = z3.And(z3.Select(s.p1_in, ident), agree if m.variant.tagged else z3.BoolVal(True))
    taken = replace(s, w_live=z3.Store(s.w_live, w, False))
    served = replace(taken, ld_live=z3.BoolVal(True), ld_tensor=z3.Select(s.p1_pid, ident),
                     ld_ph=z3.Select(s.w_ph, w))
    missed = replace(taken, ld_live=z3.BoolVal(False),
                     fault=z3.BoolVal(not m.variant.reports_misses))
    guard = z3.And(z3.Select(s.w_live, w), z3.Not(z3.Select(s.w_data, w)))
    return guard, if_state(hit, served, missed)


def p1_serve_own_payload(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """D9, a tagged receiver's other choice (`spec...P1ReceiveOwnPayload`): P1 serves a
    reference the processing its tag names, which an earlier payload of its own message
    carried, leaving its cache as it is. Over-approximated: any reference, whatever its
    message holds."""
    w = c.wire
    possible = m.variant.tagged and Drift.D9 in m.environment
    taken = replace(s, w_live=z3.Store(s.w_live, w, False))
    served = replace(taken, ld_live=z3.BoolVal(True), ld_tensor=z3.Select(s.w_tag, w),
                     ld_ph=z3.Select(s.w_ph, w))
    guard = z3.And(z3.BoolVal(possible), z3.Select(s.w_live, w),
                   z3.Not(z3.Select(s.w_data, w)))
    return guard, served


def p0_assertion(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """Without late-miss reprocessing, P0 asserts when a probed hit is gone at update time
    (possible under D6, D7 or D8, `LATE_MISS_SOURCES`: here at any time)."""
    # the argument of LATE_MISS_SOURCES needs the hits touched first; without, at any time
    needed = bool(m.environment & LATE_MISS_SOURCES) or not m.variant.touches_first
    possible = not m.variant.late_miss_reprocess and needed
    return z3.BoolVal(possible), replace(s, fault=z3.BoolVal(True))


def eviction_hang(
    m: ParametricModel, p: Params, s: ParametricState, c: Choice
) -> tuple[z3.BoolRef, ParametricState]:
    """An LRU with the ghost flaw can spin in its eviction loop (here: at any time)."""
    ghosts = LruFlaw.GHOST_TOUCH in (m.variant.shadow_lru, m.variant.receiver_lru)
    return z3.BoolVal(ghosts), replace(s, fault=z3.BoolVal(True))


ACTIONS: dict[str, Action] = {
    "P0 sends a reference": p0_send_reference,
    "P0 sends a payload": p0_send_payload,
    "a shadow entry goes": shadow_drop,
    "a P1 entry goes": p1_drop,
    "a wire item is lost": wire_lost,
    "P1 takes a payload": p1_receive_payload,
    "P1 takes a reference": p1_receive_reference,
    "P1 serves a reference from its own message's payload": p1_serve_own_payload,
    "P0 asserts": p0_assertion,
    "an eviction hangs": eviction_hang,
}


_State = TypeVar("_State")


def if_state(cond: z3.BoolRef, then: _State, other: _State) -> _State:
    """The state whose every field is `then`'s where `cond` holds and `other`'s elsewhere
    (two states of one dataclass of z3 terms: this model's and the mirror's)."""
    return type(then)(**{name: z3.If(cond, value, getattr(other, name))
                         for name, value in vars(then).items()})


def step(m: ParametricModel, p: Params, s: ParametricState, n: ParametricState, c: Choice,
         action: Action) -> z3.BoolRef:
    """One step by `action`: its guard, no fault before, and n its complete next state."""
    guard, after = action(m, p, s, c)
    fields = ParametricState.__dataclass_fields__
    return z3.And(z3.Not(s.fault), guard, *[getattr(n, f) == getattr(after, f) for f in fields])


def initial(s: ParametricState) -> z3.BoolRef:
    i, f, w = z3.Const("i0", IDENTITY), z3.Const("f0", FRONT_END), z3.Const("w0", WIRE)
    return z3.And(
        z3.ForAll([i], z3.Not(z3.Select(s.p1_in, i))), s.p1_used == 0,
        z3.ForAll([f, i], z3.Not(z3.Select(s.sh_in, f, i))),
        z3.ForAll([f], z3.Select(s.sh_used, f) == 0),
        z3.ForAll([w], z3.Not(z3.Select(s.w_live, w))),
        z3.Not(s.ld_live), z3.Not(s.fault),
    )


def background(p: Params) -> z3.BoolRef:
    return p.budget >= 1


# -- the certificate and the properties ------------------------------------------------------


H = TypeVar("H")


@dataclass(frozen=True)
class CertificatePart(Generic[H]):
    """One part of a certificate: its name, what it states, and its formula (`holds`) on a
    state of the model it is checked on (this module's, `parametric_liveness`'s with the
    history, `parametric_mirror`'s)."""

    name: str
    statement: str
    holds: H


ParametricInvariant = CertificatePart[Callable[[ParametricState, Params], z3.BoolRef]]
"""A part of a certificate on this module's model: its formula on a state and parameters."""


def _any_identity() -> z3.ExprRef:
    """The variable a part of the certificate quantifies over identities with."""
    return z3.Const("i", IDENTITY)


def _any_front_end() -> z3.ExprRef:
    """The variable a part of the certificate quantifies over front ends with."""
    return z3.Const("f", FRONT_END)


def _any_wire_item() -> z3.ExprRef:
    """The variable a part of the certificate quantifies over wire items with."""
    return z3.Const("w", WIRE)


def _entry_tags(s: ParametricState, p: Params) -> z3.BoolRef:
    i, f = _any_identity(), _any_front_end()
    return z3.And(
        z3.ForAll([i], z3.Implies(z3.Select(s.p1_in, i),
                                  z3.Select(s.p1_tag, i) == z3.Select(s.p1_pid, i))),
        z3.ForAll([f, i], z3.Implies(z3.Select(s.sh_in, f, i),
                                     z3.Select(s.sh_tag, f, i) == z3.Select(s.sh_pid, f, i))),
    )


def _wire_tags(s: ParametricState, p: Params) -> z3.BoolRef:
    w = _any_wire_item()
    return z3.ForAll([w], z3.Implies(z3.Select(s.w_live, w),
                                     z3.Select(s.w_tag, w) == z3.Select(s.w_ph, w)))


def _served(s: ParametricState, p: Params) -> z3.BoolRef:
    return z3.Implies(s.ld_live, s.ld_tensor == s.ld_ph)


def _within_budget(s: ParametricState, p: Params) -> z3.BoolRef:
    f = _any_front_end()
    return z3.And(s.p1_used <= p.budget, z3.ForAll([f], z3.Select(s.sh_used, f) <= p.budget))


def _positive_sizes(s: ParametricState, p: Params) -> z3.BoolRef:
    i, f = _any_identity(), _any_front_end()
    return z3.And(
        z3.ForAll([i], z3.Implies(z3.Select(s.p1_in, i), z3.Select(s.p1_size, i) >= 1)),
        z3.ForAll([f, i], z3.Implies(z3.Select(s.sh_in, f, i),
                                     z3.Select(s.sh_size, f, i) >= 1)),
    )


def _no_fault(s: ParametricState, p: Params) -> z3.BoolRef:
    return z3.Not(s.fault)


def _resends_carry_data(s: ParametricState, p: Params) -> z3.BoolRef:
    w = _any_wire_item()
    return z3.ForAll([w], z3.Implies(z3.And(z3.Select(s.w_live, w), z3.Select(s.w_resend, w)),
                                     z3.Select(s.w_data, w)))


RESEND_PAYLOADS = ParametricInvariant(
    "resend-items-carry-data", "every live wire item of a resend carries a payload (for "
    "every wire item): where resends bypass the shadow (V4), P0 sends a resend no reference",
    _resends_carry_data)
"""The wire half of V4's liveness certificate (`parametric_liveness.RESEND_CERTIFICATE`)."""


CERTIFICATE: tuple[ParametricInvariant, ...] = (
    ParametricInvariant("entry-tag-is-its-processing", "every entry of P1 and of every shadow "
                        "is tagged with the processing it holds (I1, for every identity and "
                        "front end)", _entry_tags),
    ParametricInvariant("wire-tag-is-its-placeholders", "every wire item's tag names the "
                        "processing of its placeholders (I2, for every wire item)", _wire_tags),
    ParametricInvariant("served-from-one-processing", "the item served last pairs a tensor and "
                        "placeholders of one processing (S1)", _served),
    ParametricInvariant("within-budget", "every side's byte total is within the budget (S2)",
                        _within_budget),
    ParametricInvariant("entries-have-positive-size", "every entry has a positive size (I6)",
                        _positive_sizes),
    ParametricInvariant("no-fault", "no fault (S3)", _no_fault),
)
"""V3's certificate for every instance."""

BAD: dict[str, Callable[[ParametricState, Params], z3.BoolRef]] = {
    "S1": lambda s, p: z3.Not(_served(s, p)),
    "S2": lambda s, p: z3.Not(_within_budget(s, p)),
    "S3": lambda s, p: s.fault,
}


class ParametricRejected(AssertionError):
    """A certificate that is not inductive, does not imply a property, or is vacuous."""


def ask(rlimit: int, *facts: z3.BoolRef) -> tuple[z3.CheckSatResult, str, int]:
    """One query on a fresh solver bounded by `rlimit` units: its result, why it is unknown
    (empty otherwise) and the units it spent."""
    solver = Bounded(rlimit)
    solver.add(*facts)
    answer = solver.check()
    return answer.result, answer.why_unknown() if answer.result == z3.unknown else "", answer.used


@dataclass(frozen=True)
class CertificateQueries:
    """What a certificate check asks, named `name` in its errors: the `facts` every query
    assumes, the invariant I (`inv`), the initial states (`init`), per step and part of I
    the step and the part's negation after it (`consecutions`: what, step, negation), and
    per property its bad state (`violations`: property, bad state)."""

    name: str
    facts: z3.BoolRef
    inv: z3.BoolRef
    init: z3.BoolRef
    consecutions: Iterable[tuple[str, z3.BoolRef, z3.BoolRef]]
    violations: Sequence[tuple[str, z3.BoolRef]]


def check_certificate(queries: CertificateQueries, certificate: Sequence[CertificatePart[Any]],
                      method: str, rlimit: int, start: float) -> list[ProvedAllDepths]:
    """The three-step certificate check, each query on a fresh solver under `rlimit` with
    the `facts` every query assumes: I satisfiable with init (non-vacuity), init => I, I and
    each step => each part of I', I => each property. Returns per property its proof by
    `certificate` and `method`, instance "any", timed from `start` (`time.perf_counter`), with
    the peak units one query spent; raises ParametricRejected naming `queries.name` and the
    query that failed."""
    name, facts, inv, init = queries.name, queries.facts, queries.inv, queries.init
    consecutions, violations = queries.consecutions, queries.violations
    peak = 0

    def must(expected: z3.CheckSatResult, what: str, *query: z3.BoolRef) -> None:
        nonlocal peak
        result, why, used = ask(rlimit, facts, *query)
        peak = max(peak, used)
        if result != expected:
            got = f"undecided, {why}" if result == z3.unknown else str(result)
            raise ParametricRejected(f"{name}: {what}: expected {expected}, got {got}")

    must(z3.sat, "non-vacuity (the invariant holds in an initial state)", init, inv)
    must(z3.unsat, "initiation (init implies the invariant)", init, z3.Not(inv))
    for what, moved, broken in consecutions:
        must(z3.unsat, f"consecution of {what}", inv, moved, broken)
    for prop, bad in violations:
        must(z3.unsat, f"the invariant implies {prop}", inv, bad)
    elapsed = time.perf_counter() - start
    names = " & ".join(part.name for part in certificate)
    return [ProvedAllDepths(prop, method, names, elapsed, instance="any", peak=peak)
            for prop, _ in queries.violations]


def prove(
    model: ParametricModel = ParametricModel(),
    certificate: tuple[ParametricInvariant, ...] = CERTIFICATE,
    properties: tuple[str, ...] = encoded_safety(),
    rlimit: int = CERTIFICATE_RLIMIT,
    bad: dict[str, Callable[[ParametricState, Params], z3.BoolRef]] | None = None,
) -> list[ProvedAllDepths]:
    """Check the certificate with fresh solvers (init => I; I and each action => each part of
    I'; I => each property; I satisfiable with init); one result per property, instance
    "any". Raises ParametricRejected naming the query that failed."""
    start = time.perf_counter()
    p, s, n, c = params(), state(""), state("'"), choice()
    inv = z3.And([part.holds(s, p) for part in certificate])
    consecutions = [(f"{part.name} under '{label}'", step(model, p, s, n, c, action),
                     z3.Not(part.holds(n, p)))
                    for label, action in ACTIONS.items() for part in certificate]
    violations = [(prop, (bad or BAD)[prop](s, p)) for prop in properties]
    queries = CertificateQueries(model_name(model), background(p), inv, initial(s),
                                 consecutions, violations)
    return check_certificate(queries, certificate, "quantified inductive invariant over "
                             "uninterpreted sorts (MBQI, 3-step check)", rlimit, start)


def model_name(model: ParametricModel) -> str:
    flaw = "" if model.flaw is NO_FLAW else f" with {model.flaw.name}"
    if model.environment == EVERY_SOURCE:
        return f"{model.variant.name}{flaw}"
    ids = Environment.of(model.environment).text
    return f"{model.variant.name}{flaw} under {'no drift' if ids == 'none' else ids}"


CHECKER = "z3-parametric"
