"""L1-L3 for every instance (`smt.prove.parametric_liveness`): every goal is proved, each
certificate and each new step of the abstraction has a mutant the prover rejects, the L1
certificate holds on sampled spec runs inside its environment and fails on the witness
outside it, and every witness (`smt.prove.parametric_witness_liveness`) replays on the spec
and lies outside its variant's proofs."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from model_checks.explore.evidence import gather
from model_checks.records import Verdict
from model_checks.smt.decode.crosscheck import random_walk
from model_checks.smt.prove import parametric_mirror
from model_checks.smt.prove.parametric import ParametricRejected, PModel
from model_checks.smt.prove.parametric_liveness import (
    ALL,
    L1_CERTIFICATE,
    NO_MISS,
    NOT_BROKEN,
    LModel,
    attempt,
    goals,
    l1_environment,
    owed_held,
    prove,
    records,
)
from model_checks.smt.prove.parametric_witness_liveness import WITNESSES
from spec import ALL_DRIFT, V0, V1, V2, V3, Drift, Variant, by_id, run
from tests.smt.test_smt_crosscheck import _config

ROOT = Path(__file__).resolve().parents[2]


def _model(variant: Variant, *without: str) -> LModel:
    env = frozenset(d for d in Drift if d.value not in without)
    return LModel(PModel(variant, environment=env))


def test_every_liveness_goal_is_proved_for_any_instance() -> None:
    """V0's L1-L3 under every source; L1 of V1, V2 without D2, D6, D7, D8 and of V3 without
    D2, D6; L2, L3 where the caches mirror (V1, V2 under D11, V3 under D7+D8+D11)."""
    found = records()
    assert [r.verdict for r in found] == [Verdict.PROVED] * len(goals())
    assert {r.instance for r in found} == {"any"}
    env = {(r.variant, r.property): set(r.environment) for r in found}
    assert env["V0", "L1"] == env["V0", "L2"] == env["V0", "L3"] == ALL
    assert ALL - env["V1", "L1"] == ALL - env["V2", "L1"] == {"D2", "D6", "D7", "D8"}
    assert ALL - env["V3", "L1"] == {"D2", "D6"}
    assert env["V2", "L3"] == {"D11"} and env["V3", "L2"] == {"D7", "D8", "D11"}


def test_a_variant_that_does_not_invalidate_breaks_the_l1_certificate() -> None:
    """The miss reply's step: P0 owes the identity but keeps it in its shadow."""
    mutant = replace(V2, name="V2-keeps-missed", invalidates=False)
    with pytest.raises(ParametricRejected, match="consecution of owed-identity-not-in-the-"
                                                  "shadow under 'P0 takes a miss reply'"):
        prove(_model(mutant, "D2", "D6", "D7", "D8"), L1_CERTIFICATE, ("L1",))


@pytest.mark.parametrize(("variant", "source"), [(V2, "D2"), (V2, "D6"), (V2, "D7"),
                                                 (V1, "D8"), (V3, "D2"), (V3, "D6")])
def test_a_record_p0_does_not_send_breaks_the_l1_certificate(variant: Variant,
                                                             source: str) -> None:
    """The unsent record's step, enabled by each source that makes it (D7, D8: P0's
    assertion, in the variants that do not reprocess a late miss)."""
    without = {"D2", "D6", "D7", "D8"} - {source}
    with pytest.raises(ParametricRejected, match="under 'P0 records a payload it does not "
                                                  "send'"):
        prove(_model(variant, *without), L1_CERTIFICATE, ("L1",))


def test_l1_monitor_fires_in_the_model() -> None:
    """Without its first part the certificate is not inductive: the model sends references
    for owed identities, so the monitor's check can fail."""
    with pytest.raises(ParametricRejected, match="consecution of no-reference-for-an-owed-"
                                                  "identity under 'P0 sends a reference'"):
        prove(_model(V2, "D2", "D6", "D7", "D8"), (NOT_BROKEN,), ("L1",))


def test_a_variant_that_reports_misses_breaks_the_no_miss_certificate() -> None:
    with pytest.raises(ParametricRejected, match="consecution of no-miss-reported under 'P1 "
                                                  "takes a reference'"):
        prove(_model(V1), NO_MISS, ("L3",))


def test_reordered_delivery_breaks_the_mirror_for_l3() -> None:
    model = parametric_mirror.MirrorModel(
        V2, frozenset({Drift.D11}), parametric_mirror.Knobs("reordered", reordered=True))
    with pytest.raises(ParametricRejected):
        parametric_mirror.prove(model, ("L3",))


def test_a_goal_proved_under_e_is_proved_below_e() -> None:
    for goal in goals():
        order = sorted(goal.environment, key=lambda d: int(d[1:]))
        for smaller in (frozenset(), goal.environment - {order[0]}):
            assert replace(goal, environment=smaller).prove().instance == "any", (goal, smaller)


def test_the_environments_left_open_name_the_failing_step() -> None:
    assert "does not apply" in (attempt(V2, "L3", frozenset({"D3", "D11"})) or "")
    assert "'P0 records a payload it does not send'" in (attempt(V2, "L1", ALL) or "")
    assert attempt(V3, "L1", ALL - {"D2", "D6"}) is None
    assert l1_environment(replace(V2, name="late", touches_first=False)) is None


@pytest.mark.parametrize(("variant", "drift"), [
    (V1, ("D1", "D3", "D11")), (V2, ("D4", "D9", "D10")), (V2, ("D5",)), (V3, ("D7", "D8")),
    (V3, ("D1", "D4", "D9")),
])
def test_sampled_runs_keep_owed_identities_out_of_the_shadow(variant: Variant,
                                                             drift: tuple[str, ...]) -> None:
    """The L1 certificate's first part on spec runs inside its environment."""
    for seed in range(6):
        config = _config(variant, drift, random.Random(seed))
        trace = random_walk(config, 40, seed)
        assert owed_held(trace) is None, (config, trace.steps)


def test_the_l1_witness_breaks_the_certificate_at_the_unsent_record() -> None:
    """Outside the environment the certificate fails on the spec where the model says: the
    second request that P0's assertion stops (step 16) records h, which P0 owes."""
    witness = next(w for w in WITNESSES if w.property == "L1")
    assert owed_held(witness.trace(V2)) == 16


@pytest.mark.parametrize("witness", WITNESSES, ids=lambda w: w.name)
def test_each_witness_breaks_its_property_at_its_last_step(witness: object) -> None:
    from model_checks.smt.prove.parametric_witness_liveness import Witness

    assert isinstance(witness, Witness)
    for variant in witness.variants:
        violation = by_id(witness.property).check_trace(witness.trace(variant))
        assert violation is not None and violation.step == len(witness.actions)
        above = run(replace(witness.config_for(variant), environment=ALL_DRIFT),
                    witness.actions)
        again = by_id(witness.property).check_trace(above)
        assert again is not None and again.step == len(witness.actions)
        assert (ROOT / witness.path(variant)).read_text() == witness.text(variant), (
            "regenerate: parametric_witness_liveness.write()")


def test_every_witness_is_taken_as_evidence_outside_its_proofs() -> None:
    """Each committed trace replays as a break, and no proof of its variant and property
    covers its environment (a proof there would be a contradiction)."""
    paths = [ROOT / w.path(v) for w in WITNESSES for v in w.variants]
    found = [b for b in gather(paths) if b.checker == "scenarios"]  # no pair witnesses
    assert sorted(b.source for b in found) == sorted(str(p) for p in paths)
    proved = {(g.variant.name, g.property): g.environment for g in goals()}
    for found_break in found:
        env = proved.get((found_break.variant, found_break.property), frozenset())
        assert not set(found_break.environment) <= env, found_break
    assert V0 not in {v for w in WITNESSES for v in w.variants}
