"""The implementation's side of a lockstep run knows only its observer: any object with the
four event methods (`implementation.Observer`) drives it, no lockstep driver needed, and the
driver's own observer (`observer.RunObserver`) reads the spec's run, not the driver."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep import Disagreement, Lockstep
from model_checks.conform.lru_lockstep.implementation import Implementation
from model_checks.conform.lru_lockstep.monitors import Monitors
from model_checks.conform.lru_lockstep.observer import RunObserver, SpecRun
from model_checks.conform.lru_lockstep.views import Tags
from model_checks.conform.reference_adapter import factory
from model_checks.scenarios.base import item, submit
from spec import Config, variant_named
from spec.machine import initial
from spec.transitions import P0Handle, P0ReceiveReply, P1Receive


class Recording:
    """An observer that records the events it is told, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[object, ...]] = []

    def sent(self, rid: int, front_end: int, message: api.WireMessage,
             front_end_of: Callable[[int], int]) -> None:
        self.events.append(("sent", rid, front_end_of(rid),
                            tuple(i.payload is None for i in message.items)))

    def shadow_changed(self, front_end: int, shadow: Sequence[api.ShadowEntry]) -> None:
        self.events.append(("shadow", front_end, tuple(e.identity for e in shadow)))

    def received(self, rid: int, missed: tuple[str, ...]) -> None:
        self.events.append(("received", rid, missed))

    def replied(self, rid: int, missed: tuple[str, ...]) -> None:
        self.events.append(("replied", rid, missed))


def _config() -> Config:
    return Config(variant=variant_named("V2"), max_requests=4)


def test_the_implementation_tells_any_observer_its_events_as_they_happen() -> None:
    recording = Recording()
    impl = Implementation(_config(), factory(), None, recording)
    try:
        for action in (submit(item("a")), P0Handle(0), P1Receive(0), P0ReceiveReply(),
                       submit(item("a")), P0Handle(1)):
            impl.apply(action)
    finally:
        impl.close()
    assert impl.fault is None
    assert recording.events == [
        ("sent", 0, 0, (False,)), ("shadow", 0, ("a",)),  # a miss: its payload sent
        ("received", 0, ()), ("replied", 0, ()),
        ("sent", 1, 0, (True,)), ("shadow", 0, ("a",)),  # a hit: a reference
    ]


def test_the_run_observer_judges_against_the_spec_run_it_is_given() -> None:
    config = _config()
    run = SpecRun(config, initial(config))
    observer = RunObserver(run, Tags(), Monitors())
    run.actions.append(P0ReceiveReply())  # one action taken, no spec step breaks L2
    observer.replied(0, ("a",))
    with pytest.raises(Disagreement, match="L2"):
        observer.replied(0, ("a",))  # the retry's miss lists a again: the spec keeps L2
    assert run.broken["L2"].spec_too is False


def test_the_driver_shares_its_spec_run_with_its_observer() -> None:
    run = Lockstep(_config(), factory())
    try:
        run.apply(submit(item("a")))
        assert run.observer.run is run.spec and run.impl.observer is run.observer
        assert run.actions == run.spec.actions and run.state is run.spec.state
    finally:
        run.close()
