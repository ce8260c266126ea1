"""D5's router configuration: one front end, two engines, a routing choice per message.

The configuration is accepted only under D5; every engine has its own receiver; the sending
step chooses the engine; each engine takes its own messages in order; and a mutant that
ignores the routing (every engine sharing one receiver) is caught by the scenario checker.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import Status, judge
from model_checks.kernel.instance import config_for
from model_checks.scenarios import SCENARIOS
from model_checks.scenarios.base import item, submit
from spec import V1, V3, Config, InvalidConfiguration, Variant, by_id, environment, initial, step
from spec.drift import ROUTER
from spec.lru import Entry
from spec.state import State
from spec.trace import TraceError
from spec.transitions import InvalidAction, P0Handle, P0ReceiveReply, P1Clear, P1Receive
from tests.expected_cells import expected_cell

ROUTED = Config(variant=V3, environment=environment("D5"), engines=2)


@pytest.mark.parametrize(
    ("fields", "hint"),
    [
        ({"engines": 2}, "engines behind a router need D5 enabled"),
        ({"engines": 3, "environment": environment("D5")}, "at most 2 supported"),
        ({"engines": 0, "environment": environment("D5")}, "at most 2 supported"),
        ({"engines": 2, "front_ends": 2, "environment": environment("D5")},
         "separate configurations"),
    ],
)
def test_bad_router_configuration_names_the_fix(fields: dict[str, object], hint: str) -> None:
    with pytest.raises(InvalidConfiguration, match=hint):
        Config(**fields)  # type: ignore[arg-type]


def test_matrix_router_environment_is_one_front_end_and_two_engines() -> None:
    config = config_for(V1, (ROUTER,))
    assert (config.front_ends, config.engines) == (1, 2)
    assert config.environment == environment("D5")
    assert len(initial(config).receivers()) == 2
    assert config_for(V1, ("D5",)).engines == 1  # the shared-engine half is unchanged


def _run(config: Config, *actions: object) -> State:
    state = initial(config)
    for action in actions:
        state = step(config, state, action)  # type: ignore[arg-type]
    return state


def test_each_engine_caches_what_was_routed_to_it() -> None:
    state = _run(ROUTED, submit(item("a")), P0Handle(0, 1), P1Receive(0, 1))
    assert state.receiver == ()
    assert [e.identity for e in state.other_receivers[0] if isinstance(e, Entry)] == ["a"]
    assert state.last_delivery is not None and state.last_delivery.message.engine == 1


def test_engines_take_their_own_messages_in_any_relative_order_without_d1() -> None:
    state = _run(ROUTED, submit(item("a")), submit(item("b")), P0Handle(0, 0), P0Handle(1, 1))
    assert state.queue_of(0) == (0,) and state.queue_of(1) == (1,)
    # Engine 1 takes the later message first: no reordering within an engine, no drift event.
    after = step(ROUTED, state, P1Receive(0, 1))
    assert [m.rid for m in after.to_engine] == [0]
    assert P1Receive(0, 1).drift_event() is None


def test_an_engine_without_messages_or_out_of_range_is_refused_and_nothing_changes() -> None:
    state = _run(ROUTED, submit(item("a")), P0Handle(0, 0))
    for bad in (P1Receive(0, 1), P1Receive(0, 2), P0Handle(0, 5)):
        with pytest.raises(InvalidAction, match="not enabled"):
            step(ROUTED, state, bad)
    assert state == _run(ROUTED, submit(item("a")), P0Handle(0, 0))
    one_engine = replace(ROUTED, engines=1)
    with pytest.raises(InvalidAction):
        step(one_engine, initial(one_engine), P1Clear(1))


def test_budget_is_checked_on_every_engine() -> None:
    over = (Entry("a", 2, 0), Entry("b", 1, 1))
    state = replace(initial(ROUTED), other_receivers=(over,))
    assert by_id("S2").check_state(ROUTED, state) == [
        "P1 (engine 1) holds 3 bytes, over the budget 2"
    ]


def test_a_miss_at_one_engine_invalidates_the_one_shadow() -> None:
    state = _run(
        ROUTED, submit(item("a")), P0Handle(0, 0), P1Receive(0, 0), P0ReceiveReply(),
        submit(item("a")), P0Handle(1, 1), P1Receive(0, 1), P0ReceiveReply(),
    )
    assert state.requests[1].missed == ("a",)
    assert state.shadows[0] == ()  # P0 dropped a, though engine 0 still holds it
    assert [e.identity for e in state.receiver if isinstance(e, Entry)] == ["a"]


def test_the_router_cell_breaks_recovery_within_the_bounds_two_front_ends_beyond() -> None:
    """The router breaks L2 within the main job's bounds; two front ends sharing an engine
    break it only six requests deep (`parametric_witness_liveness`), so that cell is not
    judged."""
    router, shared = expected_cell("V3", (ROUTER,)), expected_cell("V3", ("D5",))
    assert router.expectations["L2"].value == "breaks"
    assert shared.expectations["L2"].value == "not judged"


@pytest.fixture
def one_engine_wiring_mutant(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Known-bad router wiring: the routing choice is dropped on delivery; engine 0 takes
    every message, in order, with its own receiver (a router wired to one engine only).
    (A weaker mutant, engines sharing one receiver but running concurrently, still breaks H1
    by cross-engine reordering, like D1: not a useful known-bad variant.)"""

    def receiver_of(self: State, engine: int) -> tuple[object, ...]:
        return self.receiver

    def with_receiver(self: State, engine: int, receiver: tuple[object, ...]) -> State:
        return replace(self, receiver=receiver)  # type: ignore[arg-type]

    def queue_of(self: State, engine: int) -> tuple[int, ...]:
        return tuple(range(len(self.to_engine))) if engine == 0 else ()

    monkeypatch.setattr(State, "receiver_of", receiver_of)
    monkeypatch.setattr(State, "with_receiver", with_receiver)
    monkeypatch.setattr(State, "queue_of", queue_of)
    yield


def _explorer_finds_h1(variant: Variant) -> bool:
    config = explore_config(variant, (ROUTER,), max_requests=2)
    graph = build(config)
    assert graph.complete
    return judge(graph, by_id("H1")).status is Status.COUNTEREXAMPLE


def test_router_h1_is_found_by_the_explorer_on_the_base() -> None:
    assert expected_cell("V1", (ROUTER,)).expectations["H1"].value == "breaks"
    assert _explorer_finds_h1(V1)


def test_checkers_catch_a_router_wired_to_one_engine(one_engine_wiring_mutant: None) -> None:
    # The explorer no longer finds the H1 break the matrix expects (a mismatch it reports),
    # and the router scenario's script stops being enabled (engine 1 never gets a message).
    assert not _explorer_finds_h1(V1)
    scenario = next(s for s in SCENARIOS if s.name == "router-retry-to-the-other-engine")
    with pytest.raises(TraceError, match=r"P1Receive\(index=0, engine=1\) is not enabled"):
        scenario.run(V3)
