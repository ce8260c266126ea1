"""All-depth proofs of H1 (and of S1, S3 where they rest on it) by a relational invariant: the
sender's shadow mirrors the receiver, up to the messages in flight.

The invariant is written by hand over the existing encoding and checked by the certificate
check `invariant.prove` (initiation, non-vacuity, consecution under every action, invariant
implies the property), with fresh solvers, each query bounded by rlimit units.

Its heart is the **drain**: the receiver as it will be once it has taken every pending message,
oldest first, each handled by P1's own relation (`engine.p1_receive`), at the clocks that follow
the current one. The invariant says:
  - the drained receiver mirrors front end 0's shadow: the same identities present, with the
    same size, processing, content version and tag, in the same recency order;
  - every step of the drain is good: it neither misses (H1), nor pairs a stale tensor (S1), nor
    faults (S3); so P1's next receive, which *is* the drain's first step, is good;
  - nothing is left pending after `max_in_flight` drain steps, no pending reply reports a miss,
    and the bookkeeping facts the drain relies on (stamps in the past and distinct, channel
    slots of existing in-flight requests, known contents).

It holds where messages are delivered in the order P0 sent them and nothing removes a key from
one side only: no drift, D7 (identity reuse: the same identity, a new content, on both sides
alike), D8 for V3 (references first on both sides), D11 (skipped on both sides). Every other
drift source breaks H1 (the expected matrix), and `applies` refuses those environments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import z3

from model_checks.smt.encode.args import Args
from model_checks.smt.encode.engine import p1_receive
from model_checks.smt.encode.lru import merge
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.slots import item_exists
from model_checks.smt.encode.symbols import (
    NONE_PID,
    STAMPS_PER_STEP,
    Encoding,
    FaultCode,
    OutcomeCode,
    Params,
    StageCode,
    SymState,
    item,
    lru_name,
    msg_name,
    rep_name,
    req_name,
    shadow_side,
)
from model_checks.smt.limits import CERTIFICATE_RLIMIT
from model_checks.smt.prove.invariant import V3_INVARIANTS, CertificateRejected, Invariant, prove
from model_checks.smt.results import ProvedAllDepths
from spec import Drift

METHOD = ("inductive invariant (hand-written lemmas: the shadow mirrors the drained receiver), "
          "re-checked (3-step check with fresh solvers)")

PROPERTIES = ("H1", "S1", "S3")
"""What the mirror certificate proves: H1 (no reference misses), and with it S1 (a reference
is served the entry P0 recorded, of the same content) and S3 (nothing misses, so V0 never
crashes; no eviction hangs)."""

MODES = ("none", "one-item", "all")
"""Where the runner tries the certificates (`prove --mirror`): nowhere; on encodings with one
item per request (the main job); everywhere they apply (adds the mirror of V3 under D8, two
items per request: 514 million units on its costliest query within `prove`,
where the certificate limit is 600 million; the nightly job, which raises that limit)."""

MIRRORING = frozenset({Drift.D7, Drift.D8, Drift.D11})
"""The drift sources under which the mirror holds (with FIFO delivery and one front end)."""


def applies(enc: Encoding) -> bool:
    """The mirror certificate is about one front end, one engine, FIFO delivery, and drift
    that changes both sides alike (`MIRRORING`)."""
    return enc.engines == 1 and enc.environment <= MIRRORING and not enc.left_out


def wanted(enc: Encoding, mode: str) -> bool:
    """Whether the runner tries the certificate on `enc` in `mode` (one of MODES)."""
    if mode not in MODES:
        raise ValueError(f"got mirror mode {mode!r}, expected one of {', '.join(MODES)}")
    return applies(enc) and (mode == "all" or (mode == "one-item" and enc.m == 1))


def mirror_proofs(enc: Encoding, props: tuple[str, ...],
                  rlimit: int = CERTIFICATE_RLIMIT) -> list[ProvedAllDepths]:
    """All-depth proofs of `props` (among PROPERTIES) by the mirror certificate, checked by
    `invariant.prove` with fresh solvers (each query bounded by `rlimit` units); [] when the
    certificate is rejected (a query found a counterexample to induction or ran out)."""
    if not props or not set(props) <= set(PROPERTIES):
        raise ValueError(f"got properties {props}, expected some of {', '.join(PROPERTIES)}")
    try:
        proofs = prove(enc, mirror_invariants(props), props, rlimit)
    except CertificateRejected:
        return []
    return [replace(proof, method=METHOD) for proof in proofs]


def relational_proofs(enc: Encoding, props: tuple[str, ...], mode: str,
                      rlimit: int = CERTIFICATE_RLIMIT) -> list[ProvedAllDepths]:
    """All-depth proofs of `props` (among PROPERTIES) by the hand-written certificates that
    `mode` (one of MODES) wants for `enc`: the mirror's (H1, S1, S3), then, for S1 still
    unproved, the agreement's; [] where none applies or every applicable one is rejected."""
    proofs = mirror_proofs(enc, props, rlimit) if props and wanted(enc, mode) else []
    if ("S1" in props and mode != "none" and agreement_applies(enc)
            and not any(proof.property == "S1" for proof in proofs)):
        proofs += agreement_proofs(enc, rlimit)
    return proofs


def _oldest(enc: Encoding, s: SymState) -> tuple[z3.BoolRef, z3.ArithRef]:
    """(some message is pending, the slot of the oldest pending message)."""
    conds = []
    for r in range(enc.r):
        older = [z3.Implies(s[msg_name(u, "pend")], s[msg_name(r, "seq")] < s[msg_name(u, "seq")])
                 for u in range(enc.r) if u != r]
        conds.append(z3.And(s[msg_name(r, "pend")], *older))
    rid: z3.ArithRef = z3.IntVal(enc.r - 1)
    for r in range(enc.r - 2, -1, -1):
        rid = z3.If(conds[r], z3.IntVal(r), rid)
    return z3.Or(conds), rid


def _args(rid: z3.ArithRef) -> Args:
    zero = z3.IntVal(0)
    return Args(zero, rid, zero, zero, (zero, zero), (zero, zero),
                (z3.BoolVal(False), z3.BoolVal(False)), zero)


def drain(enc: Encoding, p: Params, s: SymState,
          length: int | None = None) -> list[tuple[z3.BoolRef, SymState]]:
    """The drain's steps: (live, the state after P1 took the oldest pending message) for each of
    `length` steps (default `max_in_flight`); a step that is not live leaves the state as it
    was."""
    steps = []
    current = s
    for _ in range(enc.bounds.max_in_flight if length is None else length):
        live, rid = _oldest(enc, current)
        _, after = p1_receive(0)(enc, p, current, _args(rid))
        current = merge(live, after, current)
        steps.append((live, current))
    return steps


def _drained(enc: Encoding, p: Params, s: SymState, length: int | None = None) -> SymState:
    return drain(enc, p, s, length)[-1][1]


def _mirror_entries(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """The drained receiver holds the shadow's identities, with the same fields."""
    x = _drained(enc, p, s)
    shadow, receiver = shadow_side(0), "p1"
    facts = []
    for k in range(enc.k):
        here = s[lru_name(shadow, "in", k)]
        facts.append(here == x[lru_name(receiver, "in", k)])
        same = [s[lru_name(shadow, f, k)] == x[lru_name(receiver, f, k)]
                for f in ("size", "pid", "ver", "tag")]
        facts.append(z3.Implies(here, z3.And(same)))
    return z3.And(facts)


def _mirror_order(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """The drained receiver orders the shadow's identities as the shadow does."""
    x = _drained(enc, p, s)
    shadow, receiver = shadow_side(0), "p1"
    facts = []
    for k in range(enc.k):
        for u in range(k + 1, enc.k):
            both = z3.And(s[lru_name(shadow, "in", k)], s[lru_name(shadow, "in", u)])
            order = ((s[lru_name(shadow, "ts", k)] < s[lru_name(shadow, "ts", u)])
                     == (x[lru_name(receiver, "ts", k)] < x[lru_name(receiver, "ts", u)]))
            facts.append(z3.Implies(both, order))
    return z3.And(facts)


Holds = Callable[[Encoding, Params, SymState], z3.BoolRef]


def _good(props: tuple[str, ...], length: int | None = None) -> Holds:
    def holds(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
        facts = [z3.Not(BAD[prop](enc, p, s)) for prop in props]
        for live, after in drain(enc, p, s, length):
            facts += [z3.Implies(live, z3.Not(BAD[prop](enc, p, after))) for prop in props]
        return z3.And(facts)
    return holds


def _drained_empty(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    x = _drained(enc, p, s)
    return z3.And([z3.Not(x[msg_name(r, "pend")]) for r in range(enc.r)])


def _stamps(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """Entries' stamps and channel sequence numbers lie in the past and are distinct."""
    now = s["clock"] * STAMPS_PER_STEP
    facts = [s["clock"] >= 1]
    for side in enc.sides:
        for k in range(enc.k):
            here, ts = s[lru_name(side, "in", k)], s[lru_name(side, "ts", k)]
            facts.append(z3.Implies(here, ts < now))
            facts += [z3.Implies(z3.And(here, s[lru_name(side, "in", u)]),
                                 ts != s[lru_name(side, "ts", u)]) for u in range(k + 1, enc.k)]
    for channel in (msg_name, rep_name):
        for r in range(enc.r):
            pend, seq = s[channel(r, "pend")], s[channel(r, "seq")]
            facts.append(z3.Implies(pend, seq < s["clock"]))
            facts += [z3.Implies(z3.And(pend, s[channel(u, "pend")]), seq != s[channel(u, "seq")])
                      for u in range(r + 1, enc.r)]
    return z3.And(facts)


def _channels(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """A pending message or reply belongs to an existing in-flight request (one of them at a
    time); no pending reply reports a miss and no request ended in one (so no Retry and no
    invalidation happens); at most `max_in_flight` requests are unfinished; no fault."""
    facts = []
    unfinished = []
    for r in range(enc.r):
        exists = r < s["nreq"]
        stage = s[req_name(r, "stage")]
        in_flight = z3.And(exists, stage == StageCode.IN_FLIGHT)
        msg, rep = s[msg_name(r, "pend")], s[rep_name(r, "pend")]
        facts += [z3.Implies(msg, z3.And(in_flight, z3.Not(rep))), z3.Implies(rep, in_flight)]
        facts += [z3.Implies(z3.And(rep, item_exists(enc, s, z3.IntVal(r), j)),
                             z3.Not(s[rep_name(r, item("missed", j))])) for j in range(enc.m)]
        facts.append(z3.Implies(exists, s[req_name(r, "outcome")] != OutcomeCode.MISS))
        unfinished.append(z3.If(z3.And(exists, stage != StageCode.DONE), 1, 0))
    facts += [z3.Sum(unfinished) <= enc.bounds.max_in_flight, s["nreq"] >= 0,
              s["nreq"] <= enc.r, s["nproc"] >= 0, s["fault"] == FaultCode.NONE]
    return z3.And(facts)


def mirror_invariants(props: tuple[str, ...]) -> tuple[Invariant, ...]:
    """The certificate of `props` (among H1, S1, S3) under a mirroring environment."""
    return (
        Invariant("stamps-in-the-past", "Entries' recency stamps and channel sequence numbers "
                  "are below the clock's and distinct on each side / channel.", _stamps),
        Invariant("channels-of-in-flight-requests", "A pending message or reply is of an "
                  "existing in-flight request; no reply or request reports a miss; at most "
                  "max_in_flight requests are unfinished; pids are not negative; no fault.",
                  _channels),
        next(inv for inv in V3_INVARIANTS if inv.lemma == "I5"),
        Invariant("drain-empties-the-channel", "After P1 takes max_in_flight messages, oldest "
                  "first, none is pending.", _drained_empty),
        Invariant("drained-receiver-holds-the-shadow", "The receiver, once it has taken every "
                  "pending message oldest first, holds exactly the shadow's identities with "
                  "the same size, processing, version and tag.", _mirror_entries),
        Invariant("drained-receiver-orders-as-the-shadow", "The receiver, once it has taken "
                  "every pending message oldest first, orders the shadow's identities by "
                  "recency as the shadow does.", _mirror_order),
        Invariant(f"drain-is-good-for-{'-'.join(props)}", "Every step of the drain (P1 taking "
                  f"the oldest pending message) keeps {', '.join(props)}, and so does the "
                  "current state.", _good(props)),
    )


AGREEING = frozenset({Drift.D3, Drift.D4, Drift.D7, Drift.D9, Drift.D10, Drift.D11})
"""The drift sources under which a payload-wins receiver that drops before replacing agrees
with the shadow wherever both hold an identity: clears, restarts and size differences only
remove entries (from one side or both), and identity reuse sends a payload that replaces the
receiver's entry as it replaces the shadow's. Reordering (D1), rejection after P0 recorded
(D2), several front ends (D5) and two items per request (D6, D8) break S1 of V2 with D7."""

AGREEMENT_METHOD = ("inductive invariant (hand-written lemmas: the shadow agrees with the "
                    "drained receiver), re-checked (3-step check with fresh solvers)")


def agreement_applies(enc: Encoding) -> bool:
    """The agreement certificate is about S1 of a variant whose payload wins and whose
    receiver drops the old entry first, with one front end, one engine, one item per request,
    FIFO delivery and drift in `AGREEING`."""
    return (enc.variant.payload_wins and enc.variant.drop_before_replace and enc.engines == 1
            and enc.m == 1 and enc.environment <= AGREEING and not enc.left_out)


def agreement_proofs(enc: Encoding, rlimit: int = CERTIFICATE_RLIMIT) -> list[ProvedAllDepths]:
    """S1 for all depths by the agreement certificate, checked by `invariant.prove` with
    fresh solvers (each query bounded by `rlimit` units); [] when it is rejected."""
    try:
        proofs = prove(enc, agreement_invariants(), ("S1",), rlimit)
    except CertificateRejected:
        return []
    return [replace(proof, method=AGREEMENT_METHOD) for proof in proofs]


def _payload_to(s: SymState, r: int, k: int) -> z3.BoolRef:
    """Request r's pending message carries a payload for identity k (one item per request)."""
    return z3.And(s[msg_name(r, "pend")], s[msg_name(r, item("data", 0))] != NONE_PID,
                  s[req_name(r, item("id", 0))] == k)


def _agrees_with_latest_payload(enc: Encoding, s: SymState, k: int, before: z3.ArithRef,
                                pid: z3.ArithRef, ver: z3.ArithRef) -> z3.BoolRef:
    """The latest pending payload for k sent before `before` carries (pid, ver); with none,
    the receiver's entry for k, if any, holds (pid, ver)."""
    def seq(r: int) -> z3.ArithRef:
        return s[msg_name(r, "seq")]

    facts = []
    for r in range(enc.r):
        candidate = z3.And(_payload_to(s, r, k), seq(r) < before)
        later = [z3.And(_payload_to(s, u, k), seq(r) < seq(u), seq(u) < before)
                 for u in range(enc.r) if u != r]
        same = z3.And(s[msg_name(r, item("ph", 0))] == pid, s[msg_name(r, item("ver", 0))] == ver)
        facts.append(z3.Implies(z3.And(candidate, z3.Not(z3.Or(later))), same))
    none = z3.Not(z3.Or([z3.And(_payload_to(s, r, k), seq(r) < before)
                         for r in range(enc.r)]))
    held = s[lru_name("p1", "in", k)]
    facts.append(z3.Implies(z3.And(none, held), z3.And(s[lru_name("p1", "pid", k)] == pid,
                                                       s[lru_name("p1", "ver", k)] == ver)))
    return z3.And(facts)


def _shadow_agreement(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """A shadow entry for k holds what the latest pending payload for k carries, or, with none
    pending, what the receiver holds for k (if it holds k)."""
    shadow = shadow_side(0)
    return z3.And([
        z3.Implies(s[lru_name(shadow, "in", k)], _agrees_with_latest_payload(
            enc, s, k, s["clock"], s[lru_name(shadow, "pid", k)], s[lru_name(shadow, "ver", k)]))
        for k in range(enc.k)
    ])


def _reference_agreement(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """A pending reference to k names what the latest payload for k pending before it carries,
    or, with none, what the receiver holds for k (if it holds k)."""
    facts = []
    for r in range(enc.r):
        reference = z3.And(s[msg_name(r, "pend")], s[msg_name(r, item("data", 0))] == NONE_PID)
        ident, ph = s[req_name(r, item("id", 0))], s[msg_name(r, item("ph", 0))]
        ver = s[msg_name(r, item("ver", 0))]
        facts += [z3.Implies(z3.And(reference, ident == k), _agrees_with_latest_payload(
            enc, s, k, s[msg_name(r, "seq")], ph, ver)) for k in range(enc.k)]
    return z3.And(facts)


def _channels_of_requests(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """A pending message or reply belongs to an existing in-flight request (one of them at a
    time); an unfinished request has no outcome yet; pids are not negative."""
    facts = [s["nreq"] >= 0, s["nreq"] <= enc.r, s["nproc"] >= 0]
    for r in range(enc.r):
        in_flight = z3.And(r < s["nreq"], s[req_name(r, "stage")] == StageCode.IN_FLIGHT)
        msg, rep = s[msg_name(r, "pend")], s[rep_name(r, "pend")]
        facts += [z3.Implies(msg, z3.And(in_flight, z3.Not(rep))), z3.Implies(rep, in_flight),
                  z3.Implies(z3.And(r < s["nreq"], s[req_name(r, "stage")] != StageCode.DONE),
                             s[req_name(r, "outcome")] == OutcomeCode.NONE)]
    return z3.And(facts)


def _payloads_are_their_placeholders(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
    """A pending message item is a reference (no payload) or carries the processing its
    placeholders come from, of the content the client sent."""
    facts = []
    for r in range(enc.r):
        for j in range(enc.m):
            data, ph = s[msg_name(r, item("data", j))], s[msg_name(r, item("ph", j))]
            payload = z3.And(data == ph, s[msg_name(r, item("ver", j))]
                             == s[req_name(r, item("ver", j))])
            facts.append(z3.Implies(s[msg_name(r, "pend")], z3.Or(data == NONE_PID, payload)))
    return z3.And(facts)


def agreement_invariants() -> tuple[Invariant, ...]:
    """The certificate of S1 under an agreeing environment (`agreement_applies`). No drain:
    retries may put every request in flight, and the receiver's evictions, which differ from
    the shadow's here, only remove entries; so each entry and each pending reference is
    related to the latest payload for its identity, or to the receiver's entry."""
    return (
        Invariant("stamps-in-the-past", "Entries' recency stamps and channel sequence numbers "
                  "are below the clock's and distinct on each side / channel.", _stamps),
        Invariant("channels-of-requests", "A pending message or reply is of an existing "
                  "in-flight request; an unfinished request has no outcome yet; pids are not "
                  "negative.",
                  _channels_of_requests),
        next(inv for inv in V3_INVARIANTS if inv.lemma == "I5"),
        next(inv for inv in V3_INVARIANTS if inv.lemma == "I4"),
        Invariant("payloads-are-their-placeholders", "A pending message item is a reference, or "
                  "carries the processing its placeholders come from, of the content sent.",
                  _payloads_are_their_placeholders),
        Invariant("shadow-agrees-with-payloads-or-receiver", "A shadow entry for an identity "
                  "holds the processing and version of the latest pending payload for it, or, "
                  "with none pending, of the receiver's entry for it (if any).",
                  _shadow_agreement),
        Invariant("references-agree-with-payloads-or-receiver", "A pending reference names the "
                  "processing and version of the latest payload for its identity pending "
                  "before it, or, with none, of the receiver's entry (if any).",
                  _reference_agreement),
        Invariant("s1-holds", "The last delivery pairs a tensor and placeholders of one "
                  "content (S1).", _good(("S1",), 0)),
    )
