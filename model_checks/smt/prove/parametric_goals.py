"""S1, S2, S3 and H1 for every instance beyond V3: one goal per variant, property and
environment, each proved on the abstract model of `parametric` (any identities, contents per
identity with their own sizes, items per request, requests, front ends, engines and budget)
by its own certificate, or on `parametric_mirror`'s.

Why each certificate's abstraction over-approximates the spec (the model's own argument,
`parametric`, item by item, holds for every variant: it reads the variant's rules, never
V3's):

- S2, every variant, every environment (`BUDGET_CERTIFICATE`): each side enforces its budget
  locally. The model keeps, per side, its entries and its byte total, which every step changes
  by exactly the sizes it adds and removes, and an insert happens only once the entry fits
  (the LRU's contract). Nothing about the other side, the wire, tags or order is needed: the
  certificate is "every side's total is within the budget and every entry has a positive
  size", and it is inductive under every action, whatever the other side, the channel or a
  drift source does.
- S1 without D7 (`OWNER_CERTIFICATE`): without D7 an identity names one content (the spec
  rejects `versions > 1` unless D7), so two processings have the same content exactly when
  they processed the same identity (`owner`). The certificate: every entry of P1 and of every
  shadow holds a processing of its own identity, every wire item's placeholders are a
  processing of its identity, and the item served last pairs processings of one identity.
  It needs no tags and no relation between the sides, so it holds for the untagged variants
  and under every other source.
- S3 of a variant that reports misses, without D6, D7 and D8 (`NO_FAULT_CERTIFICATE`): its
  faults are P0's assertion (needs one of `parametric.LATE_MISS_SOURCES`), a crash on a miss
  (only where misses are not reported) and a hang (only with a ghost-key LRU); none is
  possible, so "no fault" is inductive.

- H1 of every variant, and S3 of V0 (which crashes on any miss), where the caches mirror
  (`parametric_mirror`, its own model and certificate: uninterpreted LRU states, P1's cache
  the shadow as it was before the oldest operation in flight): V0-V2 under D11, V3 under
  D7+D8+D11 (`mirror_environment`: D7 and D8 let V0-V2's P0 assert, after which the spec's
  front end goes on with a shadow updated for a request P1 never sees).

Each certificate has a mutant the prover rejects (`tests/smt/test_smt_parametric_goals.py`,
`tests/smt/test_smt_parametric_mirror.py`): an LRU that ignores the new item's size (S2), P1
serving a reference from another identity's entry (S1), a variant that crashes on a miss or
an environment with D6 (S3); for the mirror, reordered delivery, a lost operation, a
one-sided clear, unequal sizes, a clear of both sides in flight, a stale tag, another LRU on
one side, a front end touching late.

One P1 stands for each engine under D5's router (`parametric`, "Engines"). A proof under E
settles every environment below E (`explore.lattice_lru.decided_properties` says why).

Where no certificate applies (S1 under D7 in V0-V2), the nearest one fails on a query
(`tests/smt/test_smt_parametric_goals.py` names it): the abstraction keeps no relation between
P0's shadow and P1's cache (entries go in any order, wire items arrive in any order), and the
mirror, which keeps one, does not hold where those environments' answers are decided
(one-sided clears, restarts, skew); they stay bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import z3

from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from model_checks.smt.budget import CERTIFICATE_RLIMIT
from model_checks.smt.prove import parametric_mirror
from model_checks.smt.prove.parametric import (
    CERTIFICATE,
    CHECKER,
    EVERY_SOURCE,
    IDENTITY,
    LATE_MISS_SOURCES,
    ParametricInvariant,
    ParametricModel,
    ParametricRejected,
    ParametricState,
    Params,
    prove,
)
from model_checks.smt.results import ProvedAllDepths
from spec import VARIANTS, Drift, Variant, drift_order

Bad = Callable[[ParametricState, Params], z3.BoolRef]


def _part(name: str) -> ParametricInvariant:
    return next(part for part in CERTIFICATE if part.name == name)


BUDGET_CERTIFICATE = (_part("within-budget"), _part("entries-have-positive-size"))
"""S2's certificate, per side: its total within the budget, its entries of positive size."""


def _entries_owned(s: ParametricState, p: Params) -> z3.BoolRef:
    i, f = z3.Const("i", IDENTITY), z3.Const("f", s.sh_in.domain())
    return z3.And(
        z3.ForAll([i], z3.Implies(z3.Select(s.p1_in, i), p.owner(z3.Select(s.p1_pid, i)) == i)),
        z3.ForAll([f, i], z3.Implies(z3.Select(s.sh_in, f, i),
                                     p.owner(z3.Select(s.sh_pid, f, i)) == i)),
    )


def _wire_owned(s: ParametricState, p: Params) -> z3.BoolRef:
    w = z3.Const("w", s.w_live.domain())
    return z3.ForAll([w], z3.Implies(z3.Select(s.w_live, w),
                                     p.owner(z3.Select(s.w_ph, w)) == z3.Select(s.w_id, w)))


def _served_owned(s: ParametricState, p: Params) -> z3.BoolRef:
    return z3.Implies(s.ld_live, p.owner(s.ld_tensor) == p.owner(s.ld_ph))


OWNER_CERTIFICATE = (
    ParametricInvariant("entries-hold-their-identity", "every entry of P1 and of every shadow "
                        "holds a processing of its own identity", _entries_owned),
    ParametricInvariant("wire-items-hold-their-identity", "every wire item's placeholders are a "
                        "processing of its identity", _wire_owned),
    ParametricInvariant("served-from-one-identity", "the item served last pairs processings of "
                        "one identity (S1 without D7: one content per identity)", _served_owned),
)
NO_FAULT_CERTIFICATE = (_part("no-fault"),)

BAD_WITHOUT_D7: dict[str, Bad] = {
    "S1": lambda s, p: z3.And(s.ld_live, p.owner(s.ld_tensor) != p.owner(s.ld_ph)),
}
"""S1's violation where an identity names one content: tensor and placeholders of processings
of two identities (`OWNER_CERTIFICATE`'s argument)."""

ALL = frozenset(d.value for d in Drift)


@dataclass(frozen=True)
class Goal:
    """One proof: `property` of `variant` under `environment` (drift ids) and every
    environment below it, for every instance, by `certificate` on `parametric`'s model, or
    (`mirror`) by `parametric_mirror`'s certificate on its model."""

    variant: Variant
    property: str
    environment: frozenset[str]
    certificate: tuple[ParametricInvariant, ...] = ()
    bad: dict[str, Bad] | None = None
    mirror: bool = False

    def model(self) -> ParametricModel:
        return ParametricModel(self.variant, environment=self.drifts())

    def drifts(self) -> frozenset[Drift]:
        return frozenset(Drift(d) for d in self.environment)

    def prove(self, rlimit: int = CERTIFICATE_RLIMIT) -> ProvedAllDepths:
        """The proof, or ParametricRejected naming the query that failed."""
        if self.mirror:
            model = parametric_mirror.MirrorModel(self.variant, self.drifts())
            proof, = parametric_mirror.prove(model, (self.property,), rlimit)
        else:
            proof, = prove(self.model(), self.certificate, (self.property,), rlimit, self.bad)
        return proof


def goals() -> tuple[Goal, ...]:
    """Every goal the certificates decide: S2 of every variant under every source; S1 of
    V0-V2 without D7 and of the tagged variants (V3, V4: `parametric`'s model covers V4's
    resends) under every source; S3 of those under every source and of the
    variants that report misses without `LATE_MISS_SOURCES`; where the caches mirror
    (`mirror_environment`), H1 of every variant, and S3 where no other goal covers it (V0,
    which crashes on a miss)."""
    found: list[Goal] = []
    without_late = ALL - {d.value for d in LATE_MISS_SOURCES}
    for variant in VARIANTS:
        mine = [Goal(variant, "S2", ALL, BUDGET_CERTIFICATE)]
        if variant.tagged:
            mine += [Goal(variant, "S1", ALL, CERTIFICATE), Goal(variant, "S3", ALL, CERTIFICATE)]
        else:
            mine.append(Goal(variant, "S1", ALL - {Drift.D7.value}, OWNER_CERTIFICATE,
                             BAD_WITHOUT_D7))
            if variant.reports_misses:
                mine.append(Goal(variant, "S3", without_late, NO_FAULT_CERTIFICATE))
        found += mine + _mirror_goals(variant, mine)
    return tuple(found)


def mirror_environment(variant: Variant) -> frozenset[str]:
    """The mirror's largest environment for `variant`: `parametric_mirror.MIRRORING`, less
    the late-miss sources where P0 may assert (no late-miss reprocessing)."""
    sources = parametric_mirror.MIRRORING
    if not variant.late_miss_reprocess:
        sources = sources - LATE_MISS_SOURCES
    return frozenset(d.value for d in sources)


def _mirror_goals(variant: Variant, found: list[Goal]) -> list[Goal]:
    """H1 by the mirror; S3 too where no goal of `found` covers its environment already."""
    env = mirror_environment(variant)
    mine = [Goal(variant, "H1", env, mirror=True)]
    if not any((g.variant, g.property) == (variant, "S3") and env <= g.environment
               for g in found):
        mine.append(Goal(variant, "S3", env, mirror=True))
    return mine


class ProvableGoal(Protocol):
    """What a record needs of a goal (this module's `Goal`, `parametric_liveness`'s
    `LivenessGoal`): which cell it settles, and its proof."""

    @property
    def variant(self) -> Variant: ...

    @property
    def environment(self) -> frozenset[str]: ...

    def prove(self, rlimit: int = CERTIFICATE_RLIMIT) -> ProvedAllDepths: ...

    @property  # last: the member's name shadows the decorator in the class body
    def property(self) -> str: ...


def record(goal: ProvableGoal, rlimit: int = CERTIFICATE_RLIMIT) -> VerdictRecord:
    """The goal's verdict: proved for all depths and instance "any", or unknown naming the
    query that failed."""
    env = drift_order(goal.environment)
    try:
        proof = goal.prove(rlimit)
    except ParametricRejected as error:
        return VerdictRecord(CHECKER, goal.variant.name, env, goal.property, Verdict.UNKNOWN,
                             0, "depth", 0.0, detail=f"certificate rejected: {error}",
                             instance="any")
    return VerdictRecord(CHECKER, goal.variant.name, env, goal.property, Verdict.PROVED, None,
                         "depth", round(proof.seconds, 3),
                         detail=f"{proof.method}: {proof.certificate}; peak rlimit {proof.peak}",
                         instance="any")


def records(rlimit: int = CERTIFICATE_RLIMIT) -> list[VerdictRecord]:
    """One record per goal, in `goals()` order."""
    return [record(goal, rlimit) for goal in goals()]


__all__ = ["ALL", "EVERY_SOURCE", "Goal", "goals", "records"]
