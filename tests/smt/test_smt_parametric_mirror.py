"""H1 and S3 for every instance where the caches mirror each other (`parametric_mirror`):
proved for V0-V2 under D11 (and so with no drift), each abstraction step has a mutant the
prover rejects, the one fact assumed of the LRU holds of `spec.lru`, and the invariant's
concrete reading (P1's cache, once it has taken every message in flight, is P0's shadow, and
no delivery misses) holds on wide spec walks."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest

from model_checks.smt.prove.parametric import ParametricRejected
from model_checks.smt.prove.parametric_mirror import (
    MIRRORING,
    MirrorKnobs,
    MirrorModel,
    prove,
)
from spec import (
    V0,
    V1,
    V2,
    V3,
    V4,
    Config,
    Drift,
    LruFlaw,
    State,
    Variant,
    enabled,
    initial,
    lru,
    step,
)
from spec.transitions import ClearBoth, Submit
from spec.transitions.engine import deliver
from tests.smt.test_smt_parametric_wide import wide_config

D11 = frozenset({Drift.D11})


@pytest.mark.parametrize(("variant", "environment"), [
    (V0, D11), (V1, D11), (V2, D11), (V0, frozenset()), (V3, MIRRORING), (V4, MIRRORING),
])
def test_h1_and_s3_are_proved_where_the_caches_mirror(variant: Variant,
                                                      environment: frozenset[Drift]) -> None:
    """V0-V2 under D11 (and no drift); V3 and V4 under D7+D8+D11."""
    proofs = prove(MirrorModel(variant, environment))
    assert [(p.property, p.instance) for p in proofs] == [("H1", "any"), ("S3", "any")]
    assert all(p.peak > 0 for p in proofs)


@pytest.mark.parametrize("variant", [V0, V1, V2])
@pytest.mark.parametrize("drift", [Drift.D7, Drift.D8])
def test_a_late_miss_source_fails_the_mirror_where_p0_asserts(variant: Variant,
                                                              drift: Drift) -> None:
    """Under D7 or D8, V0-V2's P0 may assert (and then, in the spec, goes on with a shadow
    updated for a request P1 never sees): the mirror's proof fails at that step."""
    with pytest.raises(ParametricRejected, match="consecution of no-fault under 'P0 asserts'"):
        prove(MirrorModel(variant, D11 | {drift}))


def test_a_reference_with_a_stale_tag_is_rejected_where_tags_are_checked() -> None:
    """V3's mirror needs each reference to carry its entry's tag; V2 reads no tag."""
    stale = MirrorKnobs("a reference with any tag", stale_tag=True)
    with pytest.raises(ParametricRejected, match="each-pending-operation-replays under 'P0 "
                                                  "handles an operation'"):
        prove(MirrorModel(V3, D11, stale))
    assert len(prove(MirrorModel(V2, D11, stale))) == 2


@pytest.mark.parametrize(("knobs", "query"), [
    (MirrorKnobs("reordered delivery", reordered=True),
     "p1-is-the-drain-start under 'P1 takes an operation'"),
    (MirrorKnobs("a lost operation", lost=True),
     "shadow-is-the-drain-end under 'P0 handles an operation'"),
    (MirrorKnobs("P1 cleared alone", one_sided_clear=True),
     "p1-is-the-drain-start under 'P1 is cleared alone'"),
    (MirrorKnobs("unequal sizes", unequal_sizes=True),
     "p1-is-the-drain-start under 'P1 takes an operation'"),
    (MirrorKnobs("both cleared in flight", clear_in_flight=True),
     "p1-is-the-drain-start under 'both sides are cleared'"),
])
@pytest.mark.parametrize("variant", [V0, V2])
def test_each_abstraction_step_has_a_mutant_the_prover_rejects(variant: Variant, knobs: MirrorKnobs,
                                                               query: str) -> None:
    """FIFO delivery, nothing lost, no one-sided clear, equal sizes, the clear of both sides
    only when idle: without any one of them the mirror is not inductive."""
    with pytest.raises(ParametricRejected, match=f"consecution of {query}"):
        prove(MirrorModel(variant, D11, knobs=knobs))


@pytest.mark.parametrize(("variant", "query"), [
    (replace(V0, name="V0-evicts-most-recent-in-P1", receiver_lru=LruFlaw.EVICT_MOST_RECENT),
     "p1-is-the-drain-start under 'P1 takes an operation'"),
    (replace(V0, name="V0-ghost-keys", shadow_lru=LruFlaw.GHOST_TOUCH,
             receiver_lru=LruFlaw.GHOST_TOUCH),
     "p1-is-the-drain-start under 'P1 takes an operation'"),  # the fact assumed fails there
    (replace(V0, name="V0-touches-late", touches_first=False), "no-fault under 'P0 asserts'"),
])
def test_a_variant_whose_sides_differ_or_that_faults_is_rejected(variant: Variant,
                                                                 query: str) -> None:
    """Another LRU on one side is another function; of a ghost-key LRU (which hangs) the
    model assumes nothing, so its sides do not mirror in the model either; a front end that
    does not touch its hits first may evict one before its update (P0's assertion)."""
    with pytest.raises(ParametricRejected, match=f"consecution of {query}"):
        prove(MirrorModel(variant, D11))


@pytest.mark.parametrize(("model", "why"), [
    (MirrorModel(V0, frozenset({Drift.D1, Drift.D11})), "D1 outside its environment"),
    (MirrorModel(V3, frozenset({Drift.D5})), "D5 outside its environment"),
])
def test_the_mirror_refuses_what_it_does_not_model(model: MirrorModel, why: str) -> None:
    with pytest.raises(ParametricRejected, match=why):
        prove(model)


def _lrus(budget: int) -> list[lru.Lru]:
    """Every LRU over identities a, b of sizes 1..budget, in every order."""
    entries = [lru.Entry(i, n, p) for i in "ab" for n in range(1, budget + 1) for p in (0, 1)]
    found: list[lru.Lru] = [()]
    for size in (1, 2):
        for chosen in itertools.permutations(entries, size):
            if len({e.identity for e in chosen}) == size:
                found.append(tuple(chosen))
    return found


@pytest.mark.parametrize("flaw", [f for f in LruFlaw if f is not LruFlaw.GHOST_TOUCH])
def test_the_fact_assumed_of_the_lru_holds_of_spec_lru(flaw: LruFlaw) -> None:
    """`ABSENT_OVERSIZE_PUT`: a put of an absent key larger than the budget changes nothing."""
    budget, checked = 2, 0
    for cache in _lrus(budget):
        for identity in "abc":
            if lru.probe(cache, identity):
                continue
            entry = lru.Entry(identity, budget + 1, 7)
            assert lru.put(cache, entry, budget, flaw) == (cache, False)
            checked += 1
    assert checked > 50


def _walk(config: Config, steps: int, seed: int) -> list[State]:
    """A spec run of up to `steps` enabled actions, chosen at random but rarely a clear of
    both sides or a request naming an item by identity only (which mostly ends at once as a
    client error), so that messages are in flight."""
    rng, state, states = random.Random(seed), initial(config), []
    states.append(state)
    for _ in range(steps):
        choices = [a for a in enabled(config, state)
                   if not (isinstance(a, ClearBoth) and rng.random() < 0.95)
                   and not (isinstance(a, Submit) and not all(i.has_data for i in a.items)
                            and rng.random() < 0.8)]
        if not choices:
            break
        state = step(config, state, rng.choice(choices))
        states.append(state)
    return states


def _drained(config: Config, state: State) -> tuple[lru.Lru, list[tuple[str, ...]]]:
    """P1's cache once it has taken every message in flight, oldest first, and what each of
    those deliveries missed."""
    missed = []
    for message in state.to_engine:
        state = deliver(config, state, message)
        assert state.last_delivery is not None
        missed.append(state.last_delivery.missed)
    return state.receiver, missed


@pytest.mark.parametrize(("variant", "drift"), [
    (V0, ("D11",)), (V1, ("D11",)), (V2, ("D11",)), (V2, ()), (V3, ("D7", "D8", "D11")),
    (V4, ("D7", "D8", "D11")),
])
def test_the_drained_receiver_is_the_shadow_on_wide_walks(variant: Variant,
                                                          drift: tuple[str, ...]) -> None:
    """The certificate's concrete reading, on walks with two items per request and a size
    per content (over the budget under D11): in every state, P1 drained is P0's shadow and
    no pending delivery misses."""
    for seed in range(3):
        config = replace(wide_config(variant, drift, seed), max_requests=8)
        states = _walk(config, 40, seed)
        assert len(states) > 20
        pending = 0
        for state in states:
            receiver, missed = _drained(config, state)
            assert receiver == state.shadows[0]
            assert all(m == () for m in missed)
            pending += len(state.to_engine)
        assert pending > 0, "no message was ever in flight: the walk checks nothing"


def test_the_drained_receiver_differs_from_the_shadow_under_d3() -> None:
    """The concrete reading can fail: a one-sided clear of P1 (D3) leaves the shadow full."""
    config = replace(wide_config(V1, ("D3",), 0), max_requests=8)
    assert any(_drained(config, s)[0] != s.shadows[0] for s in _walk(config, 40, 0))
