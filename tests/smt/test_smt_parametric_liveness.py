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

from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.kernel.verdict_records import Verdict
from model_checks.scenarios import SCENARIOS
from model_checks.smt.prove import parametric_mirror
from model_checks.smt.prove.parametric import (
    CERTIFICATE,
    RESEND_PAYLOADS,
    RESEND_REFERENCES,
    ParametricModel,
    ParametricRejected,
)
from model_checks.smt.prove.parametric_liveness import (
    ALL,
    L1_CERTIFICATE,
    NO_MISS,
    NOT_BROKEN,
    RESEND_CERTIFICATE,
    LivenessModel,
    goals,
    l1_environment,
    nearest,
    prove,
    records,
)
from spec import (
    ALL_DRIFT,
    V0,
    V1,
    V2,
    V3,
    V4,
    Config,
    Drift,
    State,
    Trace,
    Variant,
    by_id,
    enabled,
    initial,
    lru,
    run,
    step,
)
from spec.fairness import fair_choice, pending
from spec.observations import miss_taken, sent_message
from spec.transitions import Retry, Submit
from tests.smt.parametric_abstraction import check_state
from tests.smt.parametric_witness_liveness import WITNESSES
from tests.smt.test_smt_crosscheck import _config, random_walk


def owed_held(trace: Trace) -> int | None:
    """The first step after which a front end's shadow holds an identity that front end owes
    a payload (`L1_CERTIFICATE`'s first part, on the spec's states with the history computed
    as the model does: owed at a miss reply P0 takes, discharged by a payload it sends);
    None if there is none."""
    owed: set[tuple[int, str]] = set()
    for number, before, action, after in trace.transitions():
        reply = miss_taken(before, action)
        if reply is not None:
            owed |= {(reply.front_end, h) for h in reply.missed}
        message = sent_message(before, after)
        if message is not None:
            owed -= {(message.front_end, i.identity) for i in message.items if i.data is not None}
        if any(lru.probe(after.shadows[fe], h) for fe, h in owed):
            return number
    return None


ROOT = Path(__file__).resolve().parents[2]


def attempt(variant: Variant, prop: str, environment: frozenset[str]) -> str | None:
    """Try `prop` (L1-L3) under `environment` with the nearest certificate (`nearest` where
    one covers every source; else L1: `L1_CERTIFICATE`; L2, L3: the mirror); None if
    proved, otherwise the query that failed."""
    drifts = frozenset(Drift(d) for d in environment)
    liveness_model = LivenessModel(ParametricModel(variant, environment=drifts))
    whole = nearest(variant)
    try:
        if whole is not None:
            prove(liveness_model, whole, (prop,))
        elif prop == "L1":
            prove(liveness_model, L1_CERTIFICATE, (prop,))
        else:
            parametric_mirror.prove(parametric_mirror.MirrorModel(variant, drifts), (prop,))
    except ParametricRejected as error:
        return str(error)
    return None


def _model(variant: Variant, *without: str) -> LivenessModel:
    env = frozenset(d for d in Drift if d.value not in without)
    return LivenessModel(ParametricModel(variant, environment=env))


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
    assert env["V4", "L1"] == env["V4", "L2"] == env["V4", "L3"] == ALL


@pytest.mark.parametrize("model", [ParametricModel(V4, RESEND_REFERENCES), ParametricModel(V3)],
                         ids=["V4-resend-reads-the-shadow", "V3"])
@pytest.mark.parametrize("prop", ["L1", "L2", "L3"])
def test_a_resend_that_sends_a_reference_breaks_the_resend_certificate(model: ParametricModel,
                                                                       prop: str) -> None:
    """V4's certificate fails, for each property, on the step that a resend reading the
    shadow adds: P0 sends a reference with the resend flag set."""
    with pytest.raises(ParametricRejected, match="consecution of resend-items-carry-data "
                                                  "under 'P0 sends a reference'"):
        prove(LivenessModel(model), RESEND_CERTIFICATE, (prop,))


def test_the_resend_certificate_needs_its_wire_part() -> None:
    """Without "every live resend item carries data", P1 may take a resend's reference and
    miss it: the history part alone is not inductive."""
    with pytest.raises(ParametricRejected, match="consecution of no-resend-missed under 'P1 "
                                                  "takes a reference'"):
        prove(LivenessModel(ParametricModel(V4)), RESEND_CERTIFICATE[1:], ("L2",))


def _resend_items(state: State) -> int:
    """The wire items of resends in a spec state (in flight, or built under D6)."""
    sent = sum(len(m.items) for m in state.to_engine if state.requests[m.rid].retries > 0)
    built = sum(len(r.work.wire) for r in state.requests
                if r.work is not None and r.retries > 0)
    return sent + built


def _resends_checked(variant: Variant, config: Config, states: list[State]) -> int:
    """How many states with a resend item in flight the certificates were checked on; fails
    on a state whose abstraction does not satisfy V3's certificate and the resend part."""
    checked = 0
    for state in states:
        assert check_state(config, state, certificate=(*CERTIFICATE, RESEND_PAYLOADS)) is None
        checked += _resend_items(state) > 0
    return checked


def _references_held(state: State, submit: Submit) -> bool:
    shadow = state.shadows[submit.front_end]
    return all(i.has_data or lru.probe(shadow, i.identity) for i in submit.items)


def _retrying_walk(config: Config, steps: int, rng: random.Random) -> list[State]:
    """The states of a run that retries every miss at once and otherwise mixes uniform steps
    (drift, interleavings) with the fair scheduler's (deliver, take the reply), so that
    resends are in flight often (a uniform walk rarely gets as far as one)."""
    state, states = initial(config), [initial(config)]
    for _ in range(steps):
        owed, choices = pending(config, state), list(enabled(config, state))
        if not choices:
            break
        retries = [a for a in choices if isinstance(a, Retry)]
        served = [a for a in choices if isinstance(a, Submit) and _references_held(state, a)]
        fair = fair_choice(owed) if owed and rng.random() < 0.6 else rng.choice(choices)
        if isinstance(fair, Submit) and served:
            fair = rng.choice(served)  # items without data the shadow holds: references
        state = step(config, state, retries[0] if retries else fair)
        states.append(state)
    return states


@pytest.mark.parametrize("drift", [("D3", "D6"), ("D2", "D3", "D5", "D9"),
                                   ("D1", "D4", "D7", "D10")])
def test_sampled_reachable_v4_states_satisfy_the_resend_certificate(
        drift: tuple[str, ...]) -> None:
    """The abstraction (the resend flag: the request's `retries > 0`) of every state of V4
    random walks satisfies V3's certificate and "every live resend item carries data"."""
    checked = 0
    for seed in range(4):
        config = replace(_config(V4, drift, random.Random(seed)), max_requests=8, max_retries=2)
        checked += _resends_checked(V4, config, _retrying_walk(config, 60, random.Random(seed)))
    assert checked > 0, "no resend was ever in flight: the walks check nothing"


def test_the_resend_part_fails_on_a_v3_resend_reference() -> None:
    """V3's retry, routed to the other engine, references a (P0 re-recorded it): its wire
    item is a resend's without data, and the state check names the part."""
    scenario = next(s for s in SCENARIOS if s.name == "router-retry-to-the-other-engine")
    v4 = scenario.run(V4)
    assert _resends_checked(V4, v4.config, list(v4.states())) > 0
    v3 = scenario.run(V3)
    problems = [p for s in v3.states()
                if (p := check_state(v3.config, s, certificate=(RESEND_PAYLOADS,)))]
    assert problems and "resend-items-carry-data fails" in problems[0], problems


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
        V2, frozenset({Drift.D11}), parametric_mirror.MirrorKnobs("reordered", reordered=True))
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
    from tests.smt.parametric_witness_liveness import Witness

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
    found = [b for b in LRU_LATTICE.evidence(paths)
             if b.checker == "scenarios"]  # no pair witnesses
    assert sorted(b.source for b in found) == sorted(str(p) for p in paths)
    proved = {(g.variant.name, g.property): g.environment for g in goals()}
    for found_break in found:
        env = proved.get((found_break.variant, found_break.property), frozenset())
        assert not set(found_break.environment) <= env, found_break
    assert V0 not in {v for w in WITNESSES for v in w.variants}


@pytest.mark.parametrize("witness", [w for w in WITNESSES if V3 in w.variants],
                         ids=lambda w: w.name)
def test_each_witness_that_breaks_v3_replays_on_v4_without_breaking_it(witness: object) -> None:
    """V3's breaks (a rejection, a one-sided clear, a reset, a restart, two front ends) run
    on V4 step for step, and its resend, all payloads, does not miss (the proof's claim)."""
    from tests.smt.parametric_witness_liveness import Witness

    assert isinstance(witness, Witness)
    trace = run(witness.config_for(V4), witness.actions)
    assert by_id(witness.property).check_trace(trace) is None
