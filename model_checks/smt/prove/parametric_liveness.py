"""L1, L2 and L3 for every instance, as safety over a state extended with the monitors'
bookkeeping (history variables; Padon et al., "Reducing liveness to safety in first-order
logic", POPL 2018, on a model over uninterpreted sorts).

Each of L1-L3 is violated at a step of a finite trace (`spec.properties.liveness`), so it is a
safety property of `parametric`'s abstract model with history variables added (`LivenessState`):

- `owed[f, i]`: front end f took a miss reply listing identity i and has sent no payload of i
  since (L1's monitor, per front end: a payload of i in any message of f discharges it, the
  retry's own or another request's; a per-request monitor owes less, so this one
  over-approximates its violations);
- `reported`: P1 has reported a miss (every monitor of L1-L3 starts at a miss: L1's owes
  nothing before P0 takes a miss reply, L2 needs a second one, L3 watches from P1's miss);
- `broken`: front end f sent a reference for i while `owed[f, i]` (L1 violated);
- `resend_referenced`: P0 sent a reference as part of a resend (a wire item with
  `parametric`'s `resend` flag); `resend_missed`: P1 could not serve a resend's reference.

Two steps join `parametric.ACTIONS` (the others update the history as stated on `HISTORY`):

- "P0 takes a miss reply": once P1 has reported a miss, any front end may take a reply
  listing any identity (more than the spec: its replies name what P1 missed); where the
  variant invalidates, P0 drops the identity from that front end's shadow; it is owed.
  Several identities of one reply are several such steps, which only adds states.
- "P0 records a payload it does not send": P0 updates its shadow for an item and the
  message never leaves. The spec does so under D2 (`P0HandleRejected`), under D6 (the
  update and the send are separate steps: a reference in between sees the record before
  its payload is sent) and where P0 asserts (`parametric.LATE_MISS_SOURCES`: the items
  updated before the failing one stay recorded, P1 never sees the request). Without them
  P0 records an item only in the step that sends its message (`P0Handle`), which is
  `parametric`'s "P0 sends a payload". So the step is enabled exactly in those
  environments (`records_unsent`), and there L1's certificate fails on it.

Certificates (`NO_MISS`, `L1_CERTIFICATE`), checked with fresh solvers like `parametric`'s
(init => I, I and each step => each part of I', I => not bad, I satisfiable with init):

- L1 where P0 never records without sending (V1, V2 without D2, D6, D7, D8; V3 without D2,
  D6): `owed[f, i]` implies f's shadow does not hold i, and `broken` is false. A reference
  needs the shadow to hold its identity; the shadow gains i only by a payload of i, which
  discharges `owed[f, i]`; the miss reply drops i as it owes it.
- L1-L3 of a variant that never reports a miss (V0 crashes instead), under every source:
  nothing reported, nothing owed, nothing broken.

- L1-L3 of a variant whose resends bypass the shadow (V4), under every source
  (`RESEND_CERTIFICATE`, with `RESEND_BAD`): every live wire item of a resend carries data,
  no resend has sent a reference, and P1 has missed no resend's reference. A resend reference
  is excluded by P0's guard, so the wire part is inductive (a payload carries data; losing
  or taking an item removes it), and P1's reference step needs an item without data.

Why `RESEND_BAD` over-approximates the spec's violations of V4. A request has one attempt
at a time, and its next attempt (the client's `Retry`, `retries + 1`) starts only after P0
took the reply of the previous one, which P1 sent on delivering its message; so every
message of request r sent after P0 took a miss reply for r, and every message of r that
P1 takes after it reported a miss for r, is a resend's (`retries > 0`), and the abstraction
(`tests/smt/parametric_abstraction.py`) flags its wire items. L1's violation is such a message
sending the missed identity as a reference: P0 sent a reference with the flag (`resend_referenced`,
whether or not the model's per-front-end `owed` still holds: no argument about which
payloads discharge it is needed). L2's is a second miss reply for r listing an identity
again, L3's a miss at P1 for r after an earlier one: either way P1 missed on a later
attempt's message, that is, could not serve one of a resend's references
(`resend_missed`). The certificate shows neither happens, under every source at once, so
for all 2,048 environments.

A mutant (`parametric.RESEND_REFERENCES`: V4 whose resend reads the shadow, as V3's does)
makes the proof fail on the wire part's consecution under "P0 sends a reference".

Where the caches mirror (`parametric_goals.mirror_environment`), `parametric_mirror`'s
certificate shows that no reference ever misses, which excludes L1-L3 at once
(`parametric_mirror.LIVENESS_BAD`). Elsewhere `tests/smt/test_smt_parametric_liveness.py`
names the step each certificate fails on; `tests/smt/parametric_witness_liveness.py` holds
the breaks found where it failed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import z3

from model_checks.kernel.verdict_records import VerdictRecord
from model_checks.smt.budget import CERTIFICATE_RLIMIT
from model_checks.smt.prove import parametric_mirror
from model_checks.smt.prove.parametric import (
    ACTIONS,
    FRONT_END,
    IDENTITY,
    LATE_MISS_SOURCES,
    RESEND_PAYLOADS,
    Action,
    CertificatePart,
    CertificateQueries,
    Choice,
    ParametricModel,
    ParametricState,
    Params,
    background,
    check_certificate,
    choice,
    initial,
    model_name,
    params,
    state,
)
from model_checks.smt.prove.parametric_goals import mirror_environment, record
from model_checks.smt.results import ProvedAllDepths
from spec import VARIANTS, Drift, Variant

PROPERTIES = ("L1", "L2", "L3")


@dataclass(frozen=True)
class LivenessState:
    """A state of `parametric`'s model and the monitors' history variables."""

    base: ParametricState
    owed: z3.ArrayRef  # (front end, identity) -> a miss of it owed a payload
    reported: z3.BoolRef  # P1 has reported a miss
    broken: z3.BoolRef  # a reference was sent for an owed identity (L1 violated)
    resend_referenced: z3.BoolRef  # a resend sent a reference
    resend_missed: z3.BoolRef  # P1 could not serve a resend's reference


def liveness_state(suffix: str) -> LivenessState:
    return LivenessState(state(suffix),
                         z3.Array(f"owed{suffix}", FRONT_END, IDENTITY, z3.BoolSort()),
                         z3.Bool(f"reported{suffix}"), z3.Bool(f"broken{suffix}"),
                         z3.Bool(f"resend_referenced{suffix}"),
                         z3.Bool(f"resend_missed{suffix}"))


@dataclass(frozen=True)
class LivenessModel:
    """`parametric`'s model of a variant under an environment, with the monitors' steps."""

    base: ParametricModel

    def records_unsent(self) -> bool:
        """P0 may record an item in its shadow whose message is never sent (module
        docstring): D2, D6, or P0's assertion (a late-miss source without reprocessing)."""
        env, v = self.base.environment, self.base.variant
        asserts = not v.late_miss_reprocess and (bool(env & LATE_MISS_SOURCES)
                                                 or not v.touches_first)
        return bool(env & {Drift.D2, Drift.D6}) or asserts


LivenessAction = Callable[[LivenessModel, Params, LivenessState, Choice],
                          tuple[z3.BoolRef, LivenessState]]
History = Callable[[LivenessModel, LivenessState, Choice, ParametricState], LivenessState]


def _unchanged(m: LivenessModel, s: LivenessState, c: Choice,
               after: ParametricState) -> LivenessState:
    return replace(s, base=after)


def _sent_reference(m: LivenessModel, s: LivenessState, c: Choice,
                    after: ParametricState) -> LivenessState:
    """L1's monitor: a reference for an owed identity breaks L1; a resend's reference is
    noted (V4's L1 monitor)."""
    return replace(s, base=after, broken=z3.Or(s.broken, z3.Select(s.owed, c.fe, c.ident)),
                   resend_referenced=z3.Or(s.resend_referenced, c.resend))


def _sent_payload(m: LivenessModel, s: LivenessState, c: Choice,
                  after: ParametricState) -> LivenessState:
    """A payload of i from front end f discharges what f owed for i."""
    return replace(s, base=after, owed=z3.Store(s.owed, c.fe, c.ident, False))


def _took_reference(m: LivenessModel, s: LivenessState, c: Choice,
                    after: ParametricState) -> LivenessState:
    """A reference P1 could not serve, in a variant that reports misses, is a reported miss
    (without, it is a crash, `after.fault`); on a resend's item, a resend's miss."""
    miss = z3.And(z3.Not(after.ld_live), z3.BoolVal(m.base.variant.reports_misses))
    resend = z3.Select(s.base.w_resend, c.wire)
    return replace(s, base=after, reported=z3.Or(s.reported, miss),
                   resend_missed=z3.Or(s.resend_missed, z3.And(miss, resend)))


HISTORY: dict[str, History] = {
    "P0 sends a reference": _sent_reference,
    "P0 sends a payload": _sent_payload,
    "P1 takes a reference": _took_reference,
}
"""How each of `parametric.ACTIONS` changes the history (the others leave it unchanged)."""


def _lifted(label: str, action: Action) -> LivenessAction:
    history = HISTORY.get(label, _unchanged)

    def act(
        m: LivenessModel, p: Params, s: LivenessState, c: Choice
    ) -> tuple[z3.BoolRef, LivenessState]:
        guard, after = action(m.base, p, s.base, c)
        return guard, history(m, s, c, after)

    return act


def take_miss_reply(
    m: LivenessModel, p: Params, s: LivenessState, c: Choice
) -> tuple[z3.BoolRef, LivenessState]:
    """P0 (front end fe) takes a miss reply listing `ident`: dropped from its shadow where
    the variant invalidates, and owed."""
    b, v = s.base, m.base.variant
    base = b
    if v.invalidates:
        held = z3.Select(b.sh_in, c.fe, c.ident)
        used = z3.Select(b.sh_used, c.fe) - z3.If(held, z3.Select(b.sh_size, c.fe, c.ident), 0)
        base = replace(b, sh_in=z3.Store(b.sh_in, c.fe, c.ident, False),
                       sh_used=z3.Store(b.sh_used, c.fe, used))
    guard = z3.And(s.reported, z3.BoolVal(v.reports_misses))
    return guard, replace(s, base=base, owed=z3.Store(s.owed, c.fe, c.ident, True))


def record_unsent(
    m: LivenessModel, p: Params, s: LivenessState, c: Choice
) -> tuple[z3.BoolRef, LivenessState]:
    """P0 records processing `pid` of `ident` in its shadow (the old entry dropped first,
    once it fits) for a message it never sends (`LivenessModel.records_unsent`)."""
    b = s.base
    size = p.p0_bytes(c.pid)
    held = z3.Select(b.sh_in, c.fe, c.ident)
    used = z3.Select(b.sh_used, c.fe) - z3.If(held, z3.Select(b.sh_size, c.fe, c.ident), 0)
    base = replace(
        b, sh_in=z3.Store(b.sh_in, c.fe, c.ident, True),
        sh_pid=z3.Store(b.sh_pid, c.fe, c.ident, c.pid),
        sh_tag=z3.Store(b.sh_tag, c.fe, c.ident, m.base.tag_of(c.pid)),
        sh_size=z3.Store(b.sh_size, c.fe, c.ident, size),
        sh_used=z3.Store(b.sh_used, c.fe, used + size))
    fits = m.base.fits(used, size, p.budget, m.base.variant.shadow_lru)
    guard = z3.And(z3.BoolVal(m.records_unsent()), size >= 1, fits,
                   p.owner(c.pid) == c.ident)
    return guard, replace(s, base=base)


LIVENESS_ACTIONS: dict[str, LivenessAction] = {
    **{label: _lifted(label, action) for label, action in ACTIONS.items()},
    "P0 takes a miss reply": take_miss_reply,
    "P0 records a payload it does not send": record_unsent,
}


def step(m: LivenessModel, p: Params, s: LivenessState, n: LivenessState, c: Choice,
         action: LivenessAction) -> z3.BoolRef:
    """One step by `action`: its guard, no fault before, and n its complete next state."""
    guard, after = action(m, p, s, c)
    base = [getattr(n.base, f) == getattr(after.base, f)
            for f in ParametricState.__dataclass_fields__]
    return z3.And(z3.Not(s.base.fault), guard, *base, n.owed == after.owed,
                  n.reported == after.reported, n.broken == after.broken,
                  n.resend_referenced == after.resend_referenced,
                  n.resend_missed == after.resend_missed)


def liveness_initial(s: LivenessState) -> z3.BoolRef:
    f, i = z3.Const("f0", FRONT_END), z3.Const("i0", IDENTITY)
    return z3.And(initial(s.base), z3.ForAll([f, i], z3.Not(z3.Select(s.owed, f, i))),
                  z3.Not(s.reported), z3.Not(s.broken), z3.Not(s.resend_referenced),
                  z3.Not(s.resend_missed))


# -- certificates and properties ---------------------------------------------------------------


LivenessInvariant = CertificatePart[Callable[[LivenessState, Params], z3.BoolRef]]
"""A part of a certificate on this module's model: its formula on a state with the history."""


def _owed_not_held(s: LivenessState, p: Params) -> z3.BoolRef:
    f, i = z3.Const("f", FRONT_END), z3.Const("i", IDENTITY)
    return z3.ForAll([f, i], z3.Implies(z3.Select(s.owed, f, i),
                                        z3.Not(z3.Select(s.base.sh_in, f, i))))


def _nothing_owed(s: LivenessState, p: Params) -> z3.BoolRef:
    f, i = z3.Const("f", FRONT_END), z3.Const("i", IDENTITY)
    return z3.ForAll([f, i], z3.Not(z3.Select(s.owed, f, i)))


NOT_BROKEN = LivenessInvariant("no-reference-for-an-owed-identity", "no front end has sent "
                               "a reference for an identity it owes a payload (L1)",
                               lambda s, p: z3.Not(s.broken))
L1_CERTIFICATE = (
    LivenessInvariant("owed-identity-not-in-the-shadow", "an identity a front end owes a "
                      "payload is not in its shadow (for every front end and identity)",
                      _owed_not_held),
    NOT_BROKEN,
)
"""L1's certificate where P0 never records an item without sending it."""

NO_MISS = (
    LivenessInvariant("no-miss-reported", "P1 has reported no miss",
                      lambda s, p: z3.Not(s.reported)),
    LivenessInvariant("nothing-owed", "no front end owes a payload", _nothing_owed),
    NOT_BROKEN,
)
"""L1-L3's certificate for a variant that never reports a miss."""

RESEND_CERTIFICATE = (
    LivenessInvariant(RESEND_PAYLOADS.name, RESEND_PAYLOADS.statement,
                      lambda s, p: RESEND_PAYLOADS.holds(s.base, p)),
    LivenessInvariant("no-resend-reference", "no resend has sent a reference (L1)",
                      lambda s, p: z3.Not(s.resend_referenced)),
    LivenessInvariant("no-resend-missed", "P1 has missed no resend's reference (L2, L3)",
                      lambda s, p: z3.Not(s.resend_missed)),
)
"""L1-L3's certificate for a variant whose resends bypass the shadow (V4), every source."""

Bad = Callable[[LivenessState, Params], z3.BoolRef]

BAD: dict[str, Bad] = {
    "L1": lambda s, p: s.broken,
    "L2": lambda s, p: s.reported,
    "L3": lambda s, p: s.reported,
}
"""Each property's violation, over-approximated: L1's monitor fired; L2 and L3 each need a
reported miss first (a violation of either is a second miss, or a retry's, after one)."""

RESEND_BAD: dict[str, Bad] = {
    "L1": lambda s, p: s.resend_referenced,
    "L2": lambda s, p: s.resend_missed,
    "L3": lambda s, p: s.resend_missed,
}
"""Each property's violation as V4's certificate excludes it (module docstring): L1 needs a
resend's reference, L2 and L3 a resend P1 answers with a miss."""


def bad_for(variant: Variant) -> dict[str, Bad]:
    """The violations a variant's certificates are checked against (`RESEND_BAD` where
    resends bypass the shadow, else `BAD`)."""
    return RESEND_BAD if variant.resends_bypass_shadow else BAD


def prove(model: LivenessModel, certificate: tuple[LivenessInvariant, ...],
          properties: tuple[str, ...], rlimit: int = CERTIFICATE_RLIMIT
          ) -> list[ProvedAllDepths]:
    """Check the certificate with fresh solvers (I satisfiable with init; init => I; I and
    each step => each part of I'; I => each property); one result per property, instance
    "any". Raises ParametricRejected naming the query that failed."""
    start = time.perf_counter()
    p, s, n, c = params(), liveness_state(""), liveness_state("'"), choice()
    inv = z3.And([part.holds(s, p) for part in certificate])
    consecutions = [(f"{part.name} under '{label}'", step(model, p, s, n, c, action),
                     z3.Not(part.holds(n, p)))
                    for label, action in LIVENESS_ACTIONS.items() for part in certificate]
    violations = [(prop, bad_for(model.base.variant)[prop](s, p)) for prop in properties]
    queries = CertificateQueries(model_name(model.base), background(p), inv, liveness_initial(s),
                                 consecutions, violations)
    return check_certificate(queries, certificate, METHOD, rlimit, start)


METHOD = ("quantified inductive invariant over uninterpreted sorts with the monitor's history "
          "variables (MBQI, 3-step check)")


# -- goals: one proof per variant, property and largest environment ----------------------------


@dataclass(frozen=True)
class LivenessGoal:
    """One proof: `property` (L1-L3) of `variant` under `environment` (drift ids) and every
    environment below it, for every instance: by `certificate` on this module's model, or
    (`mirror`) by `parametric_mirror`'s no-miss certificate."""

    variant: Variant
    property: str
    environment: frozenset[str]
    certificate: tuple[LivenessInvariant, ...] = ()
    mirror: bool = False

    def drifts(self) -> frozenset[Drift]:
        return frozenset(Drift(d) for d in self.environment)

    def prove(self, rlimit: int = CERTIFICATE_RLIMIT) -> ProvedAllDepths:
        """The proof, or ParametricRejected naming the query that failed."""
        if self.mirror:
            model = parametric_mirror.MirrorModel(self.variant, self.drifts())
            proof, = parametric_mirror.prove(model, (self.property,), rlimit)
            return proof
        liveness_model = LivenessModel(ParametricModel(self.variant, environment=self.drifts()))
        proof, = prove(liveness_model, self.certificate, (self.property,), rlimit)
        return proof


ALL = frozenset(d.value for d in Drift)


def l1_environment(variant: Variant) -> frozenset[str] | None:
    """The largest environment where P0 never records an item it does not send
    (`LivenessModel.records_unsent` false): without D2 and D6, and without the late-miss sources
    where P0 asserts; None where P0 may assert in every environment."""
    if not variant.touches_first and not variant.late_miss_reprocess:
        return None
    out = {Drift.D2, Drift.D6} | (set() if variant.late_miss_reprocess else LATE_MISS_SOURCES)
    return ALL - {d.value for d in out}


def goals() -> tuple[LivenessGoal, ...]:
    """L1-L3 of a variant that never reports a miss, under every source (`NO_MISS`), and of
    one whose resends bypass the shadow (`RESEND_CERTIFICATE`); for the others, L1 under
    `l1_environment` (`L1_CERTIFICATE`) and L2, L3 where the caches mirror
    (`parametric_goals.mirror_environment`: no miss at all)."""
    found: list[LivenessGoal] = []
    for variant in VARIANTS:
        whole = nearest(variant)
        if whole is not None:
            found += [LivenessGoal(variant, prop, ALL, whole) for prop in PROPERTIES]
            continue
        l1 = l1_environment(variant)
        if l1 is not None:
            found.append(LivenessGoal(variant, "L1", l1, L1_CERTIFICATE))
        mirror = mirror_environment(variant)
        found += [LivenessGoal(variant, prop, mirror, mirror=True) for prop in ("L2", "L3")]
    return tuple(found)


def nearest(variant: Variant) -> tuple[LivenessInvariant, ...] | None:
    """The certificate of L1-L3 under every source, where one applies: `NO_MISS` for a
    variant that never reports a miss, `RESEND_CERTIFICATE` for one whose resends bypass
    the shadow; None otherwise."""
    if not variant.reports_misses:
        return NO_MISS
    if variant.resends_bypass_shadow:
        return RESEND_CERTIFICATE
    return None


def records(rlimit: int = CERTIFICATE_RLIMIT) -> list[VerdictRecord]:
    """One record per goal, in `goals()` order."""
    return [record(goal, rlimit) for goal in goals()]


# -- the L1 certificate on concrete spec runs ---------------------------------------------------


