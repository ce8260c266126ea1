"""The transition system: pure, deterministic steps; guards; absorbing faults; valid reprs."""

from __future__ import annotations

import random

import pytest
import walks

import spec
from model_checks.scenarios import SCENARIOS
from spec import (
    ALL_DRIFT,
    V2,
    V3,
    VARIANTS,
    ClientItem,
    Config,
    Content,
    InvalidAction,
    ItemSize,
    State,
    by_id,
    enabled,
    initial,
    step,
)
from spec.drift import Drift
from spec.properties.registry import registry
from spec.state import Fault, FaultKind, Outcome
from spec.trace import Trace
from spec.transitions import ACTION_TYPES, P0Handle, P0ReceiveReply, P1Receive, Submit
from spec.transitions.base import describe


def all_drift_config(variant: spec.Variant = V3) -> Config:
    return Config(
        variant=variant,
        environment=ALL_DRIFT,
        versions=2,
        front_ends=2,
        max_items=3,
        sizes=(ItemSize(Content("b"), 1, 2), ItemSize(Content("c", 1), 3, 3)),
    )


def random_walk(config: Config, seed: int, length: int = 30) -> Trace:
    """A seeded random walk of `length` steps, then fair steps to quiescence."""
    return walks.random_walk(config, random.Random(seed), length, quiesce=True)


def test_step_is_pure_and_deterministic() -> None:
    config = Config()
    before = initial(config)
    action = Submit((ClientItem("a"),))
    first, second = step(config, before, action), step(config, before, action)
    assert first == second and hash(first) == hash(second)
    assert before == initial(config)  # the input state is untouched


def test_disabled_action_is_rejected_and_changes_nothing() -> None:
    config = Config()
    state = initial(config)
    with pytest.raises(InvalidAction, match="guard is false"):
        step(config, state, P1Receive(0))
    with pytest.raises(InvalidAction, match="needs drift source D3"):
        step(config, state, spec.transitions.P1Clear())
    assert state == initial(config)


def test_reordering_needs_d1() -> None:
    config = Config()
    state = initial(config)
    script = (Submit((ClientItem("a"),)), P0Handle(0), Submit((ClientItem("b"),)), P0Handle(1))
    for action in script:
        state = step(config, state, action)
    assert P1Receive(1) not in enabled(config, state)
    reordering = Config(environment=frozenset({Drift.D1}))
    assert P1Receive(1) in enabled(reordering, state)


def test_a_fault_is_absorbing() -> None:
    config = Config()
    faulted = State(shadows=((),), fault=Fault(FaultKind.HANG, "test"))
    assert enabled(config, faulted) == []
    with pytest.raises(InvalidAction, match="faulted"):
        step(config, faulted, Submit((ClientItem("a"),)))


def test_reprs_are_valid_python_that_round_trips() -> None:
    namespace = {name: getattr(spec, name) for name in spec.__all__}
    for module in (spec.state, spec.lru, spec.config, spec.transitions):
        namespace.update(vars(module))
    namespace.update(V0=spec.V0, V1=spec.V1, V2=spec.V2, V3=V3)
    for scenario in SCENARIOS:
        trace = scenario.run(V2)
        assert eval(repr(trace.config), namespace) == trace.config
        for s in trace.steps:
            assert eval(repr(s.action), namespace) == s.action
            assert eval(repr(s.state), namespace) == s.state


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_random_walks_under_all_drift_evaluate_every_property(variant: spec.Variant) -> None:
    config = all_drift_config(variant)
    for seed in range(25):
        trace = random_walk(config, seed)
        for prop in registry():
            prop.check_trace(trace)  # must not raise


def test_v3_keeps_s1_s2_s3_on_random_walks_under_all_drift() -> None:
    config = all_drift_config(V3)
    safety = [p for p in registry() if p.id in ("S1", "S2", "S3")]
    for seed in range(150):
        trace = random_walk(config, seed)
        for prop in safety:
            assert prop.check_trace(trace) is None, (seed, prop.id)


def test_every_action_type_has_a_label_and_a_docstring_naming_its_role() -> None:
    labels = [t.label for t in ACTION_TYPES]
    assert len(set(labels)) == len(labels)
    for action_type in ACTION_TYPES:
        doc = action_type.__doc__ or ""
        assert doc.strip(), action_type
        if action_type.drift is not None:
            assert action_type.drift.value in doc, action_type


def test_every_action_type_is_described_once_and_on_its_own() -> None:
    """Each class of `ACTION_TYPES` states its own label and drift sources (`describe`);
    known-bad: describing one again is refused."""
    for action_type in ACTION_TYPES:
        assert {"label", "drift", "requires", "exercises"} <= vars(action_type).keys()
    with pytest.raises(TypeError, match="described twice"):
        describe(ACTION_TYPES[0], "again")
    assert ACTION_TYPES[0].label == "submit"


def test_pending_is_exactly_the_owed_enabled_actions() -> None:
    from spec.fairness import pending

    config = all_drift_config(V2)
    rng = random.Random(3)
    for _ in range(40):
        state = initial(config)
        for _ in range(rng.randrange(15)):
            actions = enabled(config, state)
            if not actions:
                break
            state = step(config, state, rng.choice(actions))
        assert pending(config, state) == [a for a in enabled(config, state) if a.is_obligation()]


def test_p0_assertion_fails_its_request_only_and_the_system_goes_on() -> None:
    # a is cached; [b, c, a] needs 3 bytes of 2: c's insert evicts the probed hit a before P0
    # reaches it. The request ends as p0-assert, b and c stay recorded (never sent), and the
    # front end handles the next request.
    config = Config(variant=V2, environment=frozenset({Drift.D8}), max_items=3)
    a, b, c = ClientItem("a"), ClientItem("b"), ClientItem("c")
    state = spec.run(config, [Submit((a,)), P0Handle(0), P1Receive(0), P0ReceiveReply(),
                              Submit((b, c, a)), P0Handle(1)]).final
    assert state.fault is None and state.requests[1].outcome is Outcome.P0_ASSERT
    assert [e.identity for e in spec.lru.entries(state.shadows[0])] == ["b", "c"]
    assert not state.to_engine and [e.identity for e in state.receiver] == ["a"]
    assert by_id("S3").check_state(config, state)
    assert Submit((b,)) in enabled(config, state)


def _reference_enabled(config: Config, state: State) -> list[spec.Action]:
    """`enabled` by its definition: every candidate of every class, kept where available and
    guarded (what the per-class fast paths must reproduce, in the same order)."""
    if state.fault is not None:
        return []
    return [a for t in ACTION_TYPES for a in t.candidates(config, state)
            if a.available(config) and a.guard(config, state)]


def _enabled_differences(configs: list[Config], seeds: range) -> list[str]:
    found = []
    for config in configs:
        for seed in seeds:
            trace = random_walk(config, seed, length=25)
            for state in (trace.initial, *(s.state for s in trace.steps)):
                fast, slow = enabled(config, state), _reference_enabled(config, state)
                if fast != slow:
                    found.append(f"{config.environment}: {fast!r} != {slow!r}")
    return found


_FAST_PATH_CONFIGS = [
    all_drift_config(V2),
    all_drift_config(V3),
    Config(variant=V2, max_items=2),  # no D1: P1 takes only the oldest message
    Config(variant=V2, environment=frozenset({Drift.D1}), max_items=1),  # D1 alone
    Config(variant=V3, environment=frozenset({Drift.D5}), engines=2),  # the router
    Config(variant=V3, environment=frozenset({Drift.D1, Drift.D5, Drift.D6}), engines=2),
]


def test_enabled_fast_paths_list_exactly_the_guarded_candidates() -> None:
    """`enabled` uses per-class fast paths (`Action.enabled_instances`) and per-configuration
    tables; on random walks of several configurations it lists what the definition lists."""
    assert _enabled_differences(_FAST_PATH_CONFIGS, range(12)) == []


def test_the_fast_path_comparison_catches_a_wrong_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Known-bad: a fast path that forgets P1's reordered deliveries (D1) is caught."""
    def oldest_only(config: Config, state: State) -> list[spec.Action]:
        return [P1Receive(0)] if state.to_engine else []

    monkeypatch.setattr(P1Receive, "enabled_instances", oldest_only)
    assert _enabled_differences(_FAST_PATH_CONFIGS[3:4], range(12)) != []
