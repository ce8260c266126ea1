"""Lockstep's deferred judgement (`observer.SpecRun.deferred`, `driver.Lockstep.judge`, by the
one lockstep step `design_lockstep.take_step`): a property the implementation breaks during a
step the spec offers a choice for is judged once the choice the implementation made is known,
against that choice's spec step.

The planted case: under size skew (D9) the reference receiver cannot cache a (1 byte at P0,
3 at P1, over P1's 2-byte budget), so a request naming a twice misses a, and so does its
retry. The script names the other choice on the retry's receive (`P1ReceiveOwnPayload`,
which serves the reference and keeps L3); the reference misses again, which breaks L3 while
that step runs, and only the spec's miss (`P1Receive`), known after the step, breaks it too.
So judged at once, L3 is a disagreement of a conforming receiver; judged when the choice is
known, it is L3 broken on both sides at the retry's receive (the variant's weakness). Each
planted break of the deferral (judging at once; dropping what was deferred) fails the check,
shown by the last test."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from receive_choice import skewed_config

from model_checks.conform.lru_lockstep import (
    Disagreement,
    Driving,
    Lockstep,
    driver,
    raised,
    replay,
)
from model_checks.conform.lru_lockstep.observer import SpecRun
from model_checks.conform.reference_adapter import factory
from spec.state import ClientItem
from spec.transitions import (
    Action,
    P0Handle,
    P0ReceiveReply,
    P1Receive,
    P1ReceiveOwnPayload,
    Retry,
    Submit,
)

RETRY_RECEIVE = 7
"""The lockstep step of the retry's receive: the seventh action of `_script`."""


def _script() -> list[Action]:
    twice = (ClientItem("a"), ClientItem("a"))
    return [Submit(twice), P0Handle(0), P1ReceiveOwnPayload(0), P0ReceiveReply(), Retry(0),
            P0Handle(0), P1ReceiveOwnPayload(0)]


def _check_l3_is_judged_against_the_choice_made() -> None:
    run = replay(skewed_config(max_requests=3), factory(), _script(), Driving(settle=False))
    raised(run)
    assert len(run.actions) == RETRY_RECEIVE
    assert type(run.actions[-1]) is P1Receive  # the choice the receiver made
    broken = run.broken.get("L3")
    assert broken is not None, f"L3 not recorded: {sorted(run.broken)}"
    assert (broken.step, broken.spec_too) == (RETRY_RECEIVE, True)


def test_a_property_broken_during_a_choice_is_judged_against_the_choice_made() -> None:
    _check_l3_is_judged_against_the_choice_made()


class _NeverDefers(SpecRun):
    """Planted: a spec run that judges every broken property at once (no deferral)."""

    @property  # type: ignore[override]
    def deferred(self) -> list[tuple[str, str]] | None:
        return None

    @deferred.setter
    def deferred(self, value: list[tuple[str, str]] | None) -> None:
        pass


def _judged_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "SpecRun", _NeverDefers)


def _deferred_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    judge = driver.Lockstep.judge

    def dropping(self: Lockstep, taken: driver.Taken, deferred: Sequence[tuple[str, str]],
                 again: bool) -> None:
        judge(self, taken, (), again)

    monkeypatch.setattr(driver.Lockstep, "judge", dropping)


@pytest.mark.parametrize(("plant", "failure", "match"), [
    (_judged_at_once, Disagreement, f"^step {RETRY_RECEIVE} .*: L3: spec holds"),
    (_deferred_dropped, AssertionError, "^L3 not recorded"),
], ids=["judged at once", "deferred dropped"])
def test_each_planted_break_of_the_deferral_fails_the_check(
        monkeypatch: pytest.MonkeyPatch, plant: Callable[[pytest.MonkeyPatch], None],
        failure: type[Exception], match: str) -> None:
    plant(monkeypatch)
    with pytest.raises(failure, match=match):
        _check_l3_is_judged_against_the_choice_made()
