"""Implementation freedom: where the spec allows a correct implementation a choice (keep or
undo the shadow update on a rejection, D2), conformance accepts either and says which it
observed; an implementation that does neither is still a disagreement."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep.choices import alternatives, choice_of
from model_checks.conform.reference_adapter import ReferenceFrontEnd
from spec import V2, V3, V4, Action, Config, Variant, environment
from spec.state import ClientItem
from spec.transitions import (
    P0Handle,
    P0HandleRejected,
    P0HandleRejectedUndo,
    P0ReceiveReply,
    P1Receive,
    Submit,
)
from tests.conform.choice_runs import Choice, check_neither_disagrees
from tests.conform.undoing_pair import UndoingAdapter, UndoingFrontEnd


def _config(variant: Variant) -> Config:
    return Config(identities=("a", "b"), budget=2, variant=variant,
                  environment=environment("D2"), max_requests=3)


def _script(rejection: type[P0HandleRejected]) -> list[Action]:
    """Request 0 records a and b and is rejected; request 1 then sends a and b: by
    reference after a kept update (P1 misses both), as payloads after an undone one."""
    both = (ClientItem("a"), ClientItem("b"))
    return [Submit(both), rejection(0), Submit(both), P0Handle(1), P1Receive(0),
            P0ReceiveReply()]


UNDO = Choice(P0HandleRejected, P0HandleRejectedUndo, _config, _script, succeeds=1)


@pytest.mark.parametrize("variant", [V2, V3, V4], ids=lambda v: v.name)
@pytest.mark.parametrize("named", [P0HandleRejected, P0HandleRejectedUndo],
                         ids=["script keeps", "script undoes"])
def test_a_pair_that_undoes_its_shadow_on_a_rejection_conforms(
        variant: Variant, named: type[P0HandleRejected]) -> None:
    """Whichever choice the script names, the undoing pair agrees with the spec's other
    choice, and the run records that it undid."""
    UNDO.check_made_by(variant, UndoingAdapter(), named)


@pytest.mark.parametrize("named", [P0HandleRejected, P0HandleRejectedUndo],
                         ids=["script keeps", "script undoes"])
def test_the_reference_keeps_its_shadow_and_is_seen_keeping_it(
        named: type[P0HandleRejected]) -> None:
    UNDO.check_reference(named, seen=1)


@dataclass
class _ForgetsTooMuch(UndoingFrontEnd):
    """Neither choice: on a rejection it also drops an identity the request only
    referenced (which the spec's undo keeps)."""

    def abandon(self, request_id: int) -> None:
        message = self.updated.get(request_id)
        super().abandon(request_id)
        if message is not None:
            self.front_end.sender.invalidate([i.identity for i in message.items])


@dataclass
class _ForgetsTooMuchAdapter(UndoingAdapter):
    def front_end(self, setup: api.Setup, index: int) -> ReferenceFrontEnd:
        return _ForgetsTooMuch(setup, index, make=self.front_end_class)


def test_a_front_end_making_neither_choice_disagrees() -> None:
    """a is sent by reference in the rejected request (request 0 recorded it), then
    dropped on the rejection: no spec choice drops a reference's entry."""
    a, b = ClientItem("a"), ClientItem("b")
    script = [Submit((a,)), P0Handle(0), P1Receive(0), P0ReceiveReply(),
              Submit((a, b)), P0HandleRejected(1)]
    check_neither_disagrees(_config(V3), _ForgetsTooMuchAdapter(), script)


def test_each_choice_has_the_other_as_its_alternative() -> None:
    UNDO.check_alternatives(2)
    assert alternatives(P0Handle(2)) == () and choice_of(P0Handle(2)) is None
