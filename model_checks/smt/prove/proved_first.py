"""All-depth proofs before BMC: what they prove leaves BMC, and what they found prunes it.

Deep BMC spent most of its units re-proving, at every depth and over the whole unrolling,
properties that hold for all depths (S2 by the budget's certificate, S1 by 1-induction, S3 of
V1/V2 by Spacer, V3's S1-S3 by its certificate). So `prove_first` runs those methods before
BMC, on the properties the cells expect to hold:

- the certificates that apply (`invariant.certificates`), re-checked for the encoding;
- 1-induction for `BY_INDUCTION`, its base case (the initial states) checked here;
- the hand-written certificates of `relational` (the mirror's for H1, S1, S3; the agreement's
  for S1 of V2), where the runner's `mirror` mode wants them;
- Spacer for the properties asked (`chc_properties`), its invariant re-checked.

A property proved for all depths is not asked of BMC. The invariants of those proofs (every
certificate's, the property a 1-induction or a hand-written certificate proves, Spacer's
invariant) hold in every reachable
state, since each passed initiation and consecution with fresh solvers; BMC asserts them as
lemmas in every state (`bmc.bmc_many`), which removes only unreachable states: every query of
depth k keeps its answer (sat exactly when a violation is reachable in k steps), so
counterexamples stay shortest and none is hidden (`tests/smt/test_smt_proved_first.py` keeps
the mutants' depths).

A property that Spacer finds reachable (its bad state can be reached, although the cell
expects it to hold) is searched by BMC to `REACHABLE_DEPTH`, each query under the BMC rlimit,
so that the violation comes back as a decoded trace replayed on the spec like every other
counterexample, never as an undecoded claim.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from model_checks.smt.budget import CERTIFICATE_RLIMIT, Bounded
from model_checks.smt.encode.actions import initial
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.symbols import (
    Encoding,
    Params,
    SymState,
    params,
    params_constraint,
    state_at,
)
from model_checks.smt.limits import CHC_RLIMIT
from model_checks.smt.prove.chc import Reachable, Undecided, chc_decide
from model_checks.smt.prove.induction import k_induction
from model_checks.smt.prove.invariant import CertificateRejected, Invariant, certificates, prove
from model_checks.smt.prove.relational import PROPERTIES as MIRRORED
from model_checks.smt.prove.relational import relational_proofs
from model_checks.smt.results import ProvedAllDepths

BY_INDUCTION = ("S1",)
"""Properties tried by 1-induction without lemmas (measured: it proves S1 wherever
one identity names one content, no D7, in about a second; S3 and H1 fail k-induction for
k = 1..3, so they are left to Spacer)."""

REACHABLE_DEPTH = 30
"""How deep BMC searches a property Spacer found reachable (each query under the BMC rlimit):
the mutants' deepest counterexamples take 14-15 steps."""


@dataclass
class FirstProofs:
    """What the all-depth methods gave before BMC: proofs per property, the lemmas BMC may
    assert in every state, the properties Spacer found reachable (with the units it spent),
    and why Spacer left others undecided."""

    proofs: dict[str, ProvedAllDepths] = field(default_factory=dict)
    lemmas: tuple[Invariant, ...] = ()
    reachable: dict[str, int] = field(default_factory=dict)
    undecided: dict[str, str] = field(default_factory=dict)


BY_CHC = ("S3",)
"""Properties the main job proves for all depths with Spacer where the cells expect them to
hold (`proved_first`), before BMC: S3, which Spacer decides for V1 and V2 within
`limits.CHC_RLIMIT`. S1 (under D7) and H1 it does not decide within that limit;
`prove --chc S1,S3,H1` with a larger `--rlimit-chc` tries them (the nightly job)."""


@dataclass(frozen=True)
class ProveOptions:
    """How the all-depth methods run before BMC: `certificate_rlimit`, the resource units of
    each certificate and 1-induction query; `chc_rlimit`, those of each Spacer query;
    `chc_properties`, the properties Spacer is asked where the cells expect them to hold;
    `mirror`, one of `relational.MODES`: where the hand-written relational certificates are
    tried ("none": nowhere)."""

    certificate_rlimit: int = CERTIFICATE_RLIMIT
    chc_rlimit: int = CHC_RLIMIT
    chc_properties: tuple[str, ...] = BY_CHC
    mirror: str = "one-item"


def prove_first(enc: Encoding, props: tuple[str, ...], holding: tuple[str, ...],
                options: ProveOptions = ProveOptions()) -> FirstProofs:
    """All-depth proofs of `props` (certificates) and of those expected to hold (`holding`:
    1-induction, the hand-written certificates of `relational` where `options.mirror` wants
    them, then Spacer for `options.chc_properties`), and the lemmas they give; nothing for an
    encoding that leaves drift sources out (its proofs cover the encoded part only: the
    runner says so)."""
    certificate_rlimit, chc_rlimit = options.certificate_rlimit, options.chc_rlimit
    chc_properties, mirror = options.chc_properties, options.mirror
    found = FirstProofs()
    if enc.left_out:
        return found
    lemmas: list[Invariant] = []
    for invariants, proves in certificates(enc):
        wanted = tuple(p for p in props if p in proves and p not in found.proofs)
        if not wanted:
            continue
        try:
            proofs = prove(enc, invariants, wanted, certificate_rlimit)
        except CertificateRejected:
            continue
        found.proofs.update({proof.property: proof for proof in proofs})
        lemmas += [inv for inv in invariants if inv not in lemmas]
    for prop in holding:
        if prop in BY_INDUCTION and prop not in found.proofs:
            proof = _one_induction(enc, prop, certificate_rlimit)
            if proof is not None:
                found.proofs[prop] = proof
                lemmas.append(property_lemma(prop))
    relational = tuple(p for p in MIRRORED if p in holding and p not in found.proofs)
    for proof in relational_proofs(enc, relational, mirror, certificate_rlimit):
        found.proofs[proof.property] = proof
        lemmas.append(property_lemma(proof.property))
    for prop in holding:
        if prop not in chc_properties or prop in found.proofs:
            continue
        result, invariant = chc_decide(enc, prop, chc_rlimit, certificate_rlimit)
        if isinstance(result, ProvedAllDepths) and invariant is not None:
            found.proofs[prop] = result
            lemmas.append(invariant)
        elif isinstance(result, Reachable):
            found.reachable[prop] = result.used
        elif isinstance(result, Undecided):
            found.undecided[prop] = result.reason
    found.lemmas = tuple(lemmas)
    return found


def _one_induction(enc: Encoding, prop: str, rlimit: int) -> ProvedAllDepths | None:
    """1-induction: the initial states satisfy `prop` (the base case, checked here) and
    `prop` is preserved by every step (`induction.k_induction`)."""
    p = params(enc)
    s = state_at(enc, 0)
    base = Bounded.alone(rlimit, params_constraint(enc, p), initial(enc, s), BAD[prop](enc, p, s))
    if base.check().result != z3.unsat:
        return None
    return k_induction(enc, prop, 1, (), 0, rlimit)


def property_lemma(prop: str) -> Invariant:
    """`prop` itself as a lemma, once proved for all depths."""

    def holds(enc: Encoding, p: Params, s: SymState) -> z3.BoolRef:
        return z3.Not(BAD[prop](enc, p, s))

    return Invariant(f"{prop}-proved", f"{prop}, proved for all depths", holds)
