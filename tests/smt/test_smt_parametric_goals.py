"""S1-S3 for every instance beyond V3 (`smt.prove.parametric_goals`): every goal is proved,
each certificate has a mutant the prover rejects, each certificate holds on sampled reachable
spec states, and the environments it leaves open say which abstraction step fails."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable
from dataclasses import replace

import pytest

from model_checks.explore.every_instance import ProofContradicted, decided
from model_checks.explore.lattice import Proof
from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.kernel.verdict_records import Verdict
from model_checks.smt.prove import parametric_mirror
from model_checks.smt.prove.parametric import (
    CERTIFICATE,
    Flaw,
    ParametricInvariant,
    ParametricModel,
    ParametricRejected,
    prove,
)
from model_checks.smt.prove.parametric_goals import (
    ALL,
    BAD_WITHOUT_D7,
    BUDGET_CERTIFICATE,
    NO_FAULT_CERTIFICATE,
    OWNER_CERTIFICATE,
    goals,
    records,
)
from spec import V0, V1, V2, Drift, LruFlaw, MissHandling, Variant, drift_order
from tests.smt.parametric_abstraction import check_state
from tests.smt.test_smt_crosscheck import _config, random_walk

NEAREST: dict[str, tuple[ParametricInvariant, ...]] = {
    "S1": tuple(p for p in CERTIFICATE if p.name == "served-from-one-processing"),
    "S2": BUDGET_CERTIFICATE, "S3": NO_FAULT_CERTIFICATE,
}
"""The certificate `attempt` tries per property on `parametric`'s model."""


def attempt(variant: Variant, prop: str, environment: frozenset[str]) -> str | None:
    """Try `prop` under `environment` with the certificate nearest to it (S1: the served item
    pairs one processing; S2: the budget certificate; S3: no fault; H1: the mirror); None if
    proved, otherwise the query that failed (the abstraction step) or why the mirror does
    not apply there."""
    drifts = frozenset(Drift(d) for d in environment)
    try:
        if prop in parametric_mirror.PROPERTIES and prop not in NEAREST:
            parametric_mirror.prove(parametric_mirror.MirrorModel(variant, drifts), (prop,))
        else:
            prove(ParametricModel(variant, environment=drifts), NEAREST[prop], (prop,))
    except ParametricRejected as error:
        return str(error)
    return None


def maximal_holding(minimal: Iterable[Iterable[str]],
                    sources: Iterable[str] = ALL) -> tuple[frozenset[str], ...]:
    """The maximal environments over `sources` above no minimal breaking set: the complement
    of the breaking sets' upward closure, by its maximal elements (every subset is visited:
    2^11 for the eleven sources)."""
    pool, breaking = drift_order(sources), [frozenset(m) for m in minimal]
    holding = [frozenset(c) for n in range(len(pool) + 1)
               for c in itertools.combinations(pool, n)
               if not any(b <= frozenset(c) for b in breaking)]
    return tuple(e for e in holding if not any(e < other for other in holding))


def test_every_goal_is_proved_for_any_instance() -> None:
    """S2 of every variant under every source; S1 of V0-V2 without D7; S3 of V1-V2 without
    D6, D7, D8; V3's S1-S3 under every source; by the mirror, H1 of V0-V2 and V0's S3 under
    D11, V3's H1 under D7+D8+D11; V4's as V3's (the abstract model covers its resends)."""
    found = records()
    assert [r.verdict for r in found] == [Verdict.PROVED] * len(goals())
    assert {r.instance for r in found} == {"any"}
    s2 = {r.variant for r in found if r.property == "S2" and set(r.environment) == ALL}
    assert s2 == {"V0", "V1", "V2", "V3", "V4"}
    without = {(r.variant, r.property): ALL - set(r.environment) for r in found}
    assert without["V0", "S1"] == without["V2", "S1"] == {"D7"}
    assert without["V1", "S3"] == {"D6", "D7", "D8"}
    under = {(r.variant, r.property): set(r.environment) for r in found if "mirror" in r.detail}
    assert under == {("V0", "H1"): {"D11"}, ("V0", "S3"): {"D11"}, ("V1", "H1"): {"D11"},
                     ("V2", "H1"): {"D11"}, ("V3", "H1"): {"D7", "D8", "D11"},
                     ("V4", "H1"): {"D7", "D8", "D11"}}
    assert {p for (v, p), env in without.items() if v == "V4" and not env} == {"S1", "S2", "S3"}


def _without(*ids: str) -> frozenset[Drift]:
    return frozenset(d for d in Drift if d.value not in ids)


@pytest.mark.parametrize("variant", [V0, V1, V2])
@pytest.mark.parametrize("side", ["receiver_lru", "shadow_lru"])
def test_an_lru_that_ignores_the_new_size_breaks_the_budget_certificate(variant: Variant,
                                                                        side: str) -> None:
    """The budget certificate's mutant: either side's LRU checks only that it is within the
    budget before inserting, not that the new entry fits."""
    flawed = {side: LruFlaw.IGNORE_NEW_SIZE}
    mutant = replace(variant, name="ignores-new-size", **flawed)  # type: ignore[arg-type]
    with pytest.raises(ParametricRejected, match="consecution of within-budget"):
        prove(ParametricModel(mutant), BUDGET_CERTIFICATE, ("S2",))


KEY_CONFUSION = Flaw("P1 serves a reference from another identity's entry",
                     serves_another_identity=True)


def test_serving_another_identity_breaks_the_owner_certificate() -> None:
    """The owner certificate's mutant: P1 serves a reference from another identity's entry."""
    with pytest.raises(ParametricRejected, match="served-from-one-identity under 'P1 takes a "
                                                  "reference'"):
        prove(ParametricModel(V2, KEY_CONFUSION, _without("D7")), OWNER_CERTIFICATE, ("S1",),
              bad=BAD_WITHOUT_D7)


@pytest.mark.parametrize(("model", "step"), [
    (ParametricModel(V1, environment=_without("D7", "D8")), "P0 asserts"),
    (ParametricModel(replace(V1, name="V1-touches-late", touches_first=False),
                     environment=_without("D6", "D7", "D8")), "P0 asserts"),
    (ParametricModel(replace(V2, name="V2-crashes", miss_handling=MissHandling.CRASH),
                     environment=_without("D6", "D7", "D8")), "P1 takes a reference"),
])
def test_a_late_miss_source_or_a_crash_on_miss_breaks_the_no_fault_certificate(
        model: ParametricModel, step: str) -> None:
    with pytest.raises(ParametricRejected, match=f"consecution of no-fault under '{step}'"):
        prove(model, NO_FAULT_CERTIFICATE, ("S3",))


@pytest.mark.parametrize(("variant", "drift"), [
    (V0, ("D1", "D5", "D9")), (V1, ("D2", "D3", "D6", "D8", "D11")), (V2, ("D4", "D10", "D7")),
])
def test_sampled_reachable_states_satisfy_the_budget_and_owner_certificates(
        variant: Variant, drift: tuple[str, ...]) -> None:
    """The abstraction of every state of a random walk of V0-V2 satisfies the budget and the
    owner certificates: they state what the spec's states are (D7 included: a processing of
    identity i is always of i)."""
    config = _config(variant, drift, random.Random(len(drift)))
    trace = random_walk(config, 20, len(drift))
    assert len(trace.steps) == 20
    for certificate in (BUDGET_CERTIFICATE, OWNER_CERTIFICATE):
        assert [check_state(config, s, certificate=certificate)
                for s in trace.states()] == [None] * 21


def test_the_environments_left_open_name_the_failing_step() -> None:
    """V2's S1 under its largest holding environment with D7 is not proved: the abstraction
    lets a reference's placeholders and P1's entry come from different processings."""
    failed = attempt(V2, "S1", frozenset({"D3", "D4", "D7", "D9", "D10", "D11"}))
    assert failed is not None and "under 'P1 takes a reference'" in failed
    assert attempt(V0, "S2", ALL) is None


def test_maximal_holding_environments_are_the_complement_of_the_upward_closure() -> None:
    minimal = [{"D7", d} for d in ("D1", "D2", "D5", "D6", "D8")]
    found = set(maximal_holding(minimal))
    assert found == {ALL - {"D7"}, frozenset({"D3", "D4", "D7", "D9", "D10", "D11"})}
    assert maximal_holding([]) == (ALL,)


def test_an_entry_is_decided_by_breaks_above_and_proofs_below() -> None:
    """Every environment of two sources: D1 breaks, a proof under D2 holds the rest."""
    entry = {"variant": "V1", "property": "S3", "minimal_breaking": [["D1"]]}
    proof = Proof("V1", "S3", ("D2",), "z3-parametric", "m: no-fault; peak rlimit 1")
    answer = decided(entry, (proof,), ("D1", "D2"))
    assert answer is not None
    assert (answer["breaking"], answer["proved"], answer["remaining"]) == (2, 2, 0)
    open_answer = decided(entry, (), ("D1", "D2"))
    assert open_answer is not None and open_answer["remaining"] == 2
    assert [r["environment"] for r in open_answer["largest_remaining"]] == [["D2"]]
    assert open_answer["smallest_remaining"] == [[]] and open_answer["remaining_is_interval"]
    assert LRU_LATTICE.every_instance({**entry, "property": "L4"}, (proof,), ("D1", "D2")) is None


def test_a_proof_above_a_break_is_a_contradiction() -> None:
    entry = {"variant": "V1", "property": "S3", "minimal_breaking": [["D1"]]}
    proof = Proof("V1", "S3", ("D1", "D2"), "z3-parametric", "m: no-fault; peak rlimit 1")
    with pytest.raises(ProofContradicted, match="proved under D1\\+D2"):
        decided(entry, (proof,), ("D1", "D2"))


def _below(environment: frozenset[str]) -> list[frozenset[str]]:
    """No drift, and the environment less its first and its last source."""
    order = sorted(environment, key=lambda d: int(d[1:]))
    return [frozenset(), environment - {order[0]}, environment - {order[-1]}]


def test_a_goal_proved_under_e_is_proved_below_e() -> None:
    """What `settled_by` relies on: each goal's proof goes through below its environment."""
    for goal in goals():
        for smaller in _below(goal.environment):
            assert replace(goal, environment=smaller).prove().instance == "any", (goal, smaller)
