"""The undisturbed-attempt theorem (`model_checks.kernel.retries.THEOREM`) for every instance:
a symbolic run of an undisturbed window over uninterpreted identities and processings (z3).

The theorem. In V1 and V2 under any environment within D1, D2, D3, D4, D6, D10 and D11, and
in V3 under any environment within D1, D2, D3, D4, D10 and D11, with one engine: if an
attempt A of a request misses and its window is undisturbed (from the step that sends A to
the delivery of the request's next attempt B, no drift event and no step but the request's
own changes a shadow or P1's cache: `disturbed` in tests/retry_monitor.py), B does not miss.

Why a fixed number of steps covers every run. In an undisturbed window the caches change
only by the request's own steps, and those come in one order: P1 takes A's message, P0
takes A's reply, the client retries (no cache changes), P0 handles B (one step, or under D6
its parts, with no other step changing the shadow in between, which is the same), P1 takes
B's message. Every other step of the window leaves both caches as they were. So the caches
at B's delivery are a function of the caches when A is sent and of A's wire items, through
four steps, each over every item of the request at once (`z3.Lambda`: a request of any
number of items). The model (`window`) is those steps, from any caches when A is sent:

- P0 handles A (in the model only where handling is one step, without D6): for each item, a
  reference carrying its entry's tag if the shadow holds it, else a payload of a new
  processing, recorded if it fits the budget. Without D6 the window opens at the end of
  that step, so the caches it starts from are any caches. Under D6 the handling is split and
  other requests' updates run between A's update of an item and A's send: the model then
  starts the window from any shadow at the send (`havoc`), and A's wire items are whatever
  P0 built, each reference with the tag its entry had then.
- P1 takes A's message: a reference is served if P1 holds its identity (tagged: with the
  same tag), else missed; a payload is cached by the variant's payload rule if it fits.
- P0 takes A's reply: where the variant invalidates, it drops every missed identity.
- P0 handles B (every item carries data: the client's retry); P1 takes B's message, and the
  claim is that none of B's references misses.

What is assumed, each a fact of the spec outside this model:

- `KEEPS_THE_REQUEST` (the LRU's one fact, tested on `spec.lru` by
  `tests/smt/test_smt_retry_window.py`): when a side handles a request whose items fit the
  budget together (no D8) at one size per identity (no D7, D9), touching them all first, no
  item of the request it holds is evicted by the request's own inserts; entries of other
  identities may be (the model drops any of them, in any step).
- An identity over the budget (D11) is held by neither side: both LRUs refuse to insert it
  (`spec.lru.put`), and without D7 and D9 its size is the same at every insert.
- P1's miss reply lists every missed identity (the real variants' `REPORT_ALL`).

The certificate is the symbolic run itself: `prove` asks z3 whether B can miss after the
four steps (unsat: proved for every instance) and whether A can miss at all (sat: the
premise is reachable, so the proof is not vacuous). Mutants it rejects
(`tests/smt/test_smt_retry_window.py`): V3 under D6 (the split update: the shadow's tag at
the send is not A's; tests/retry_witnesses.py has the spec's runs), a variant
that does not drop the missed identities (B references what P1 lacks), and a model without
`KEEPS_THE_REQUEST` (a request's own insert may evict its reference, as under D8).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT
from model_checks.smt.prove.parametric import (
    IDENTITY,
    NO_TAG,
    PROCESSING,
    ParametricRejected,
    ask,
)
from model_checks.smt.results import ProvedAllDepths
from spec import V1, V2, V3, V4, Drift, MissHandling, Variant
from spec.drift import Environment

BOOL = z3.BoolSort()

KEEPS_THE_REQUEST = ("a side handling a request whose items fit the budget together, at one "
                     "size per identity, after touching them all, evicts none of the "
                     "request's items it holds (`spec.lru`)")

WINDOW_SOURCES = frozenset({Drift.D1, Drift.D2, Drift.D3, Drift.D4, Drift.D6, Drift.D10,
                            Drift.D11})
"""The sources the model can take: each either only adds drift events (which disturb a
window, so they act before it: any caches when A is sent), or is modelled (D6: the split
update; D11: items over the budget)."""

METHOD = ("symbolic run of the undisturbed window over uninterpreted identities and "
          "processings (z3 arrays and lambdas, every item of a request at once)")


@dataclass(frozen=True)
class Caches:
    """P0's shadow and P1's cache, per identity: held, and the tag held."""

    sh_in: z3.ArrayRef
    sh_tag: z3.ArrayRef
    p1_in: z3.ArrayRef
    p1_tag: z3.ArrayRef


def caches(name: str) -> Caches:
    return Caches(z3.Array(f"sh_in_{name}", IDENTITY, BOOL),
                  z3.Array(f"sh_tag_{name}", IDENTITY, PROCESSING),
                  z3.Array(f"p1_in_{name}", IDENTITY, BOOL),
                  z3.Array(f"p1_tag_{name}", IDENTITY, PROCESSING))


@dataclass(frozen=True)
class Wire:
    """One attempt's message, per identity of the request: a payload (else a reference)
    and its tag."""

    data: z3.ArrayRef
    tag: z3.ArrayRef


@dataclass(frozen=True)
class WindowModel:
    """The window of one variant under an environment within `WINDOW_SOURCES`."""

    variant: Variant
    environment: frozenset[Drift]
    keeps_the_request: bool = True  # False: the mutant that drops `KEEPS_THE_REQUEST`

    def __post_init__(self) -> None:
        outside = self.environment - WINDOW_SOURCES
        if outside:
            names = "+".join(sorted(d.value for d in outside))
            raise ValueError(f"the window model does not take {names}: the theorem is "
                             "about environments within D1-D4, D6, D10, D11")
        if self.variant.miss_handling is not MissHandling.REPORT_ALL:
            raise ValueError(f"{self.variant.name} does not report every missed identity: "
                             "the window model needs a variant that does")

    def split(self) -> bool:
        return Drift.D6 in self.environment

    def oversized(self) -> bool:
        return Drift.D11 in self.environment

    def tag_of(self, pid: z3.ExprRef) -> z3.ExprRef:
        return pid if self.variant.tagged else NO_TAG


@dataclass(frozen=True)
class Items:
    """The request's identities (`item`; every attempt carries the same ones) and which
    identities are over the budget (`big`)."""

    item: z3.ArrayRef
    big: z3.ArrayRef


@dataclass(frozen=True)
class Run:
    """The symbolic window: the request's identities (`item`), those over the budget
    (`big`), the facts relating the steps (`facts`), whether A missed and whether B did."""

    item: z3.ArrayRef
    big: z3.ArrayRef
    facts: z3.BoolRef
    a_missed: z3.BoolRef
    b_missed: z3.BoolRef


def _x() -> z3.ExprRef:
    return z3.Const("x", IDENTITY)


def _handle(m: WindowModel, c: Caches, request: Items, fresh: z3.FuncDeclRef,
            kept: z3.ArrayRef, resend: bool) -> tuple[Caches, Wire]:
    """P0 handles one attempt of the request in one step: a reference for each item its
    shadow holds (kept: `KEEPS_THE_REQUEST`), else a payload of a new processing, recorded
    unless over the budget; another identity's entry stays only where `kept` says. A
    resend of a variant whose resends bypass the shadow (V4) reads nothing: every item a
    payload, recorded afresh."""
    x, big = _x(), request.big
    mine = z3.Select(request.item, x)
    bypass = resend and m.variant.resends_bypass_shadow
    held = z3.BoolVal(False) if bypass else z3.Select(c.sh_in, x)
    new_tag = m.tag_of(fresh(x))
    wire = Wire(z3.Lambda([x], z3.Not(held)),
                z3.Lambda([x], z3.If(held, z3.Select(c.sh_tag, x), new_tag)))
    stays = held if m.keeps_the_request else z3.And(held, z3.Select(kept, x))
    sh_in = z3.Lambda([x], z3.If(mine, z3.Or(stays, z3.Not(z3.Select(big, x))),
                                 z3.And(held, z3.Select(kept, x))))
    sh_tag = z3.Lambda([x], z3.If(z3.And(mine, z3.Not(held)), new_tag,
                                  z3.Select(c.sh_tag, x)))
    return Caches(sh_in, sh_tag, c.p1_in, c.p1_tag), wire


def _deliver(m: WindowModel, c: Caches, request: Items, wire: Wire,
             kept: z3.ArrayRef) -> tuple[Caches, z3.ArrayRef]:
    """P1 takes the attempt's message: its caches after, and the identities that missed."""
    x, v, big = _x(), m.variant, request.big
    mine, held = z3.Select(request.item, x), z3.Select(c.p1_in, x)
    tag, data, fits = z3.Select(wire.tag, x), z3.Select(wire.data, x), z3.Not(z3.Select(big, x))
    same = z3.Select(c.p1_tag, x) == tag if v.tagged else z3.BoolVal(True)
    missed = z3.Lambda([x], z3.And(mine, z3.Not(data), z3.Not(z3.And(held, same))))
    if v.payload_wins:  # the old entry dropped (or, without dropping first, kept if no fit)
        cached = fits if v.drop_before_replace else z3.Or(fits, held)
        cached_tag = z3.If(fits, tag, z3.Select(c.p1_tag, x))
    else:  # the cache wins: a held entry is used, the payload cached only if none
        cached = z3.Or(held, fits)
        cached_tag = z3.If(held, z3.Select(c.p1_tag, x), tag)
    stays = held if m.keeps_the_request else z3.And(held, z3.Select(kept, x))
    p1_in = z3.Lambda([x], z3.If(mine, z3.If(data, cached, stays),
                                 z3.And(held, z3.Select(kept, x))))
    p1_tag = z3.Lambda([x], z3.If(z3.And(mine, data), cached_tag, z3.Select(c.p1_tag, x)))
    return Caches(c.sh_in, c.sh_tag, p1_in, p1_tag), missed


def _take_reply(m: WindowModel, c: Caches, missed: z3.ArrayRef) -> Caches:
    """P0 takes the miss reply: drops every missed identity where the variant invalidates."""
    if not m.variant.invalidates:
        return c
    x = _x()
    sh_in = z3.Lambda([x], z3.And(z3.Select(c.sh_in, x), z3.Not(z3.Select(missed, x))))
    return Caches(sh_in, c.sh_tag, c.p1_in, c.p1_tag)


def _none_big_held(c: Caches, big: z3.ArrayRef) -> z3.BoolRef:
    x = _x()
    return z3.ForAll([x], z3.Implies(z3.Select(big, x), z3.And(
        z3.Not(z3.Select(c.sh_in, x)), z3.Not(z3.Select(c.p1_in, x)))))


def _some(missed: z3.ArrayRef) -> z3.BoolRef:
    x = z3.Const("missed_x", IDENTITY)
    return z3.Exists([x], z3.Select(missed, x))


def window(m: WindowModel) -> Run:
    """The four steps of the window, from any caches (module docstring)."""
    x = _x()
    item, big = z3.Array("item", IDENTITY, BOOL), z3.Array("big", IDENTITY, BOOL)
    request = Items(item, big)
    start = caches("start")
    facts = [_none_big_held(start, big)]
    if not m.oversized():
        facts.append(z3.ForAll([x], z3.Not(z3.Select(big, x))))
    if m.split():  # other requests' updates between A's and its send: any shadow, any wire
        sent = caches("sent")
        wire_a = Wire(z3.Array("a_data", IDENTITY, BOOL), z3.Array("a_tag", IDENTITY, PROCESSING))
        facts.append(_none_big_held(sent, big))
        # a reference names an identity the shadow held when A's update of it ran
        at_send = Caches(sent.sh_in, sent.sh_tag, start.p1_in, start.p1_tag)
    else:
        # A a first attempt: in V4 a resend holds no reference, so it cannot miss
        at_send, wire_a = _handle(m, start, request,
                                  z3.Function("pid_a", IDENTITY, PROCESSING),
                                  z3.Array("kept_a0", IDENTITY, BOOL), resend=False)
    delivered, a_missed = _deliver(m, at_send, request, wire_a,
                                   z3.Array("kept_a1", IDENTITY, BOOL))
    replied = _take_reply(m, delivered, a_missed)
    handled, wire_b = _handle(m, replied, request, z3.Function("pid_b", IDENTITY, PROCESSING),
                              z3.Array("kept_b0", IDENTITY, BOOL), resend=True)
    _, b_missed = _deliver(m, handled, request, wire_b, z3.Array("kept_b1", IDENTITY, BOOL))
    return Run(item, big, z3.And(facts), _some(a_missed), _some(b_missed))


def prove(m: WindowModel, rlimit: int = CERTIFICATE_RLIMIT) -> ProvedAllDepths:
    """B cannot miss after an undisturbed missed A, for every instance; raises
    ParametricRejected naming the query that failed (B can miss, or A cannot)."""
    start = time.perf_counter()
    run = window(m)
    name = f"the retry theorem of {m.variant.name} under {describe(m.environment)}"
    peak = 0
    for expected, what, query in (
            (z3.sat, "non-vacuity (an undisturbed attempt can miss)", run.a_missed),
            (z3.unsat, "the next attempt misses no reference", run.b_missed)):
        result, why, used = ask(rlimit, run.facts, query)
        peak = max(peak, used)
        if result != expected:
            got = f"undecided, {why}" if result == z3.unknown else str(result)
            raise ParametricRejected(f"{name}: {what}: expected {expected}, got {got}")
    return ProvedAllDepths("retry theorem", METHOD, KEEPS_THE_REQUEST,
                           time.perf_counter() - start, instance="any", peak=peak)


def describe(environment: frozenset[Drift]) -> str:
    return Environment.of(environment).text


WITHOUT_SPLIT = WINDOW_SOURCES - {Drift.D6}

GOALS: tuple[WindowModel, ...] = (
    WindowModel(V1, WINDOW_SOURCES),
    WindowModel(V2, WINDOW_SOURCES),
    WindowModel(V3, WITHOUT_SPLIT),
    WindowModel(V4, WINDOW_SOURCES),
)
"""The theorem as proved: each variant under its largest environment (a proof under E holds
under every environment inside it: fewer sources only remove behaviours)."""
