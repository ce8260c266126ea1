"""L4 as a theorem about retries (`model_checks.kernel.retries`; its monitors
`tests/retry_monitor.py`): the undisturbed-attempt theorem holds in every run of a small
instance and on sampled runs of larger ones within its environment, its monitor fails where
the theorem's assumptions fail (size skew), the break of L3 with no drift event is a
disturbed attempt, and under size skew alone no number of retries is enough."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from model_checks.kernel.retries import (
    ENVIRONMENT,
    EVERY_SOURCE,
    FIRST_RESEND,
    SPLIT_FREE,
    STANDING_DRIFT,
    THEOREM,
)
from spec import (
    V1,
    V2,
    V3,
    V4,
    Config,
    Content,
    ItemSize,
    Trace,
    Variant,
    by_id,
    enabled,
    environment,
    initial,
    run,
)
from spec.fairness import fair_choice, pending
from spec.state import ClientItem
from spec.transitions import P0Handle, P0ReceiveReply, P1Receive, Retry, Submit
from tests.retry_monitor import (
    claimed_environment,
    recoveries,
    search,
    search_resends,
    standing_drift_config,
    standing_drift_run,
    undisturbed_retry_missed,
)
from tests.smt.parametric_witness_liveness import WITNESSES


def _sampled(variant: Variant, drift: tuple[str, ...], seed: int) -> Config:
    """A small instance with random sizes (no skew: the theorem's environment has no D9)."""
    rng = random.Random(seed)
    budget = rng.randint(2, 4)
    top = budget + 1 if "D11" in drift else budget
    sizes = tuple(ItemSize(Content(i, 0), n, n) for i in "abc" for n in [rng.randint(1, top)])
    return Config(budget=budget, sizes=sizes, variant=variant, environment=environment(*drift),
                  max_items=2, max_requests=5, max_retries=3)


def _walk(config: Config, steps: int, rng: random.Random) -> Trace:
    """A run that mixes uniformly chosen steps (drift, interleavings) with stretches of the
    fair scheduler's order (deliver, take the reply, retry), so that attempts run
    undisturbed often enough to reach the theorem's premise."""
    trace = Trace(config, initial(config))
    for _ in range(steps):
        owed = pending(config, trace.final)
        choices = enabled(config, trace.final)
        if not choices:
            break
        fair = owed and rng.random() < 0.7
        trace = trace.extended(fair_choice(owed) if fair else rng.choice(choices))
    return trace


def _premises(variant: Variant, drift: tuple[str, ...]) -> int:
    """How many retries after an undisturbed miss 80 sampled runs reach; fails on a run
    where such a retry misses."""
    premises = 0
    for seed in range(80):
        trace = _walk(_sampled(variant, drift, seed), 50, random.Random(seed))
        assert undisturbed_retry_missed(trace) is None, (seed, trace.steps)
        premises += sum(1 for _ in recoveries(trace))
    return premises


@pytest.mark.parametrize("variant", [V1, V2, V3])
@pytest.mark.parametrize("drift", [("D2",), ("D3",), ("D10", "D11"), ENVIRONMENT])
def test_no_undisturbed_attempt_is_followed_by_a_miss(variant: Variant,
                                                      drift: tuple[str, ...]) -> None:
    """The theorem on sampled runs, whose retries after an undisturbed miss are counted:
    the premise is reached, so the check can fail (it does under D9, below). The whole
    environment is the theorem's for the variant (V3: without D6)."""
    if drift == ENVIRONMENT:
        drift = claimed_environment(THEOREM, variant.name)
    assert _premises(variant, drift) > 0


@pytest.mark.parametrize(("variant", "drift"), [
    (V1, ("D1", "D4")), (V2, ("D1", "D4")), (V3, ("D1", "D4")), (V1, ("D6",)), (V2, ("D6",))])
def test_no_sampled_run_contradicts_the_theorem_where_its_premise_is_rare(
        variant: Variant, drift: tuple[str, ...]) -> None:
    """Reordering, clears racing requests and split updates make misses mostly through
    other requests in flight, which disturb the attempt: the sampled runs hold no
    contradiction, and rarely reach the premise; the proof covers them."""
    _premises(variant, drift)


def _small(variant: Variant, drift: tuple[str, ...], retries: int = 2) -> Config:
    """Two requests of up to two items over identities a, b, budget 2 (b is 2 bytes at P1
    under D9, the whole budget; 3 bytes on both sides under D11 without D9, over it)."""
    skew, over = "D9" in drift, "D11" in drift and "D9" not in drift
    sizes = tuple(ItemSize(Content(i, 0), 3 if over and i == "b" else 1,
                           2 if skew and i == "b" else 3 if over and i == "b" else 1)
                  for i in "ab")
    return Config(identities=("a", "b"), budget=2, sizes=sizes, variant=variant,
                  environment=environment(*drift), max_items=2, max_requests=2,
                  max_retries=retries)


@pytest.mark.parametrize(("variant", "source"), [
    (v, s) for v in (V1, V2, V3) for s in claimed_environment(THEOREM, v.name)])
def test_the_theorem_holds_in_every_run_of_a_small_instance(variant: Variant,
                                                            source: str) -> None:
    """Exhaustively, for each source the theorem allows (every reachable state paired with
    the monitor's memory); the premise is reached wherever a miss can follow an undisturbed
    send (every source but D1, whose reordering needs a second message in flight, and D11)."""
    found = search(_small(variant, (source,)))
    assert found.violation == ()
    assert (found.premises > 0) == (source not in ("D1", "D11"))


@pytest.mark.parametrize(("variant", "drift"), [
    (V3, SPLIT_FREE), (V3, ("D2", "D3", "D4")), (V1, ("D1", "D2", "D4")),
    (V2, ("D1", "D2", "D4")), (V2, ("D3", "D10", "D11"))],
    ids=lambda x: x.name if isinstance(x, Variant) else "+".join(x))
def test_the_theorem_holds_in_every_run_under_combined_environments(
        variant: Variant, drift: tuple[str, ...]) -> None:
    """Exhaustively, several sources at once (V3: every source the theorem allows it); the
    premise is reached."""
    found = search(_small(variant, drift))
    assert found.violation == () and found.premises > 0


def test_the_exhaustive_search_finds_the_split_update_break() -> None:
    """V3 under D2+D3+D6, outside the theorem: the breadth-first search over the same small
    instance finds a 12-step run where an undisturbed missed attempt is followed by a miss
    (`retry_witnesses`, "split-update-rejected")."""
    found = search(_small(V3, ("D2", "D3", "D6")))
    assert len(found.violation) == 12


@pytest.mark.parametrize("variant", [V1, V2])
def test_the_exhaustive_search_finds_the_size_skew_break(variant: Variant) -> None:
    found = search(_small(variant, ("D9",)))
    assert len(found.violation) == 11
    assert undisturbed_retry_missed(run(_small(variant, ("D9",)), found.violation)) == 11


def _skewed_retry() -> tuple[Config, tuple[object, ...]]:
    """Size skew: b is 1 byte at P0, 2 at P1 (the whole budget). After (b, a) is sent as
    payloads, P1 holds a only; the next (b, a) misses b, undisturbed; its retry sends b's
    payload, whose insert at P1 evicts a, the retry's reference: a miss again."""
    sizes = (ItemSize(Content("a", 0), 1, 1), ItemSize(Content("b", 0), 1, 2))
    config = Config(identities=("a", "b"), budget=2, sizes=sizes, variant=V2,
                    environment=environment("D9"), max_items=2, max_requests=2)
    both = (ClientItem("b", 0, True), ClientItem("a", 0, True))
    return config, (Submit(both), P0Handle(0), P1Receive(0), P0ReceiveReply(), Submit(both),
                    P0Handle(1), P1Receive(0), P0ReceiveReply(), Retry(1), P0Handle(1),
                    P1Receive(0))


@pytest.mark.parametrize("variant", [V1, V2])
def test_the_monitor_fails_where_sizes_differ_between_the_sides(variant: Variant) -> None:
    config, actions = _skewed_retry()
    trace = run(replace(config, variant=variant), actions)  # type: ignore[arg-type]
    assert undisturbed_retry_missed(trace) == len(actions)


def test_every_l3_break_with_no_drift_event_is_a_disturbed_attempt() -> None:
    """Each L3 witness (a rejected request, a key P1 alone lost, identity reuse before the
    miss) breaks L3 with no drift event after the miss, yet not the theorem: another
    request's step changed a cache during the window."""
    for witness in (w for w in WITNESSES if w.property == "L3"):
        for variant in witness.variants:
            assert undisturbed_retry_missed(witness.trace(variant)) is None, witness.name


@pytest.mark.parametrize("variant", [V1, V2, V3])
@pytest.mark.parametrize("retries", range(1, 7))
def test_no_number_of_retries_is_enough_under_size_skew(variant: Variant, retries: int) -> None:
    trace = run(standing_drift_config(retries, variant), standing_drift_run(retries))
    assert all(step.action.drift_event() is None for step in trace.steps)
    violation = by_id("L4").check_trace(trace)
    assert violation is not None
    assert violation.reason == f"request 1 ended as miss after {retries} retries"


def test_the_first_resend_claim_is_about_v4_and_standing_drift_about_the_others() -> None:
    assert FIRST_RESEND.variants == ("V4",) and FIRST_RESEND.environment == EVERY_SOURCE
    assert STANDING_DRIFT.variants == ("V1", "V2", "V3")


@pytest.mark.parametrize("source", EVERY_SOURCE)
def test_no_resend_misses_in_every_run_of_a_small_instance(source: str) -> None:
    """Exhaustively, per source, on V4: no step answers a resend with a miss. The same search
    on V3 finds one where a resend can miss (here under D3: P1 cleared alone before the
    retry references what P0 still holds), so the check can fail."""
    found = search_resends(_small(V4, (source,)))
    assert found.violation == ()
    # resends reach P1 wherever a miss can happen in this instance (one front end and no
    # size difference between contents: no miss under D5, D7, D8, D11)
    assert (found.premises > 0) == (source not in ("D5", "D7", "D8", "D11"))


def test_the_resend_search_finds_a_v3_resend_that_misses() -> None:
    found = search_resends(_small(V3, ("D3",)))
    assert found.violation and found.premises > 0


@pytest.mark.parametrize("retries", range(1, 4))
def test_one_retry_is_enough_under_size_skew_in_v4(retries: int) -> None:
    """The standing-drift family, which no R survives in V1-V3, ends in success at V4's
    first resend (its payload is used, not cached, at P1): L4 holds at the end."""
    trace = run(standing_drift_config(retries, V4), standing_drift_run(1))
    assert by_id("L4").check_trace(trace) is None
    assert trace.final.requests[1].outcome is not None
    assert trace.final.requests[1].outcome.value == "success"
