"""The Z3 encoding has both choices on a receive under D9 (`P1ReceiveOwnPayload`): the spec's
trace where a tagged receiver serves a reference from its own message's payload is accepted
step by step, and with the choice's relation planted shut it is not; bounded model checking
still finds the other choice's miss (H1); V3's all-instance model has the choice, and the
proof fails with it planted wrong."""

from __future__ import annotations

from dataclasses import replace

import pytest
import z3

from model_checks.smt.decode.crosscheck import first_disagreement
from model_checks.smt.encode import engine as relations
from model_checks.smt.encode.symbols import Bounds, Encoding
from model_checks.smt.prove import parametric
from model_checks.smt.results import Violated
from model_checks.smt.search.bmc import bmc
from spec import V3, V4, Config, Content, ItemSize, Variant, environment, run
from spec.state import ClientItem
from spec.trace import Trace
from spec.transitions import P0Handle, P0ReceiveReply, P1ReceiveOwnPayload, Submit

BOUNDS = Bounds(duplicates=True)


def _served(variant: Variant) -> Trace:
    config = Config(identities=("a", "b"), budget=2, variant=variant, duplicates=True,
                    environment=environment("D9"), sizes=(ItemSize(Content("a"), 1, 3),))
    twice = (ClientItem("a"), ClientItem("a"))
    return run(config, (Submit(twice), P0Handle(0), P1ReceiveOwnPayload(0), P0ReceiveReply()))


@pytest.mark.parametrize("variant", [V3, V4], ids=lambda v: v.name)
def test_the_served_trace_is_one_of_the_encodings(variant: Variant) -> None:
    trace = _served(variant)
    assert trace.final.requests[0].outcome is not None
    assert trace.final.requests[0].outcome.value == "success"
    assert first_disagreement(Encoding(variant, environment("D9"), BOUNDS), trace) is None


def test_without_the_choice_the_encoding_refuses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relations, "_own_pair", lambda enc, ordered: relations.z3.BoolVal(False))
    assert first_disagreement(Encoding(V3, environment("D9"), BOUNDS), _served(V3)) is not None


def test_bmc_still_finds_the_other_choices_miss() -> None:
    found = bmc(Encoding(V3, environment("D9"), BOUNDS), "H1", 3)
    assert isinstance(found, Violated), found


def test_the_all_instance_model_has_the_choice_and_rejects_it_planted_wrong(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """V3's all-instance proof covers a reference served from its own message's payload (the
    processing its tag names); served any processing of its identity instead, S1 breaks."""
    label = "P1 serves a reference from its own message's payload"
    assert label in parametric.ACTIONS

    def wrong(m: parametric.ParametricModel, p: parametric.Params,
              s: parametric.ParametricState, c: parametric.Choice
              ) -> tuple[z3.BoolRef, parametric.ParametricState]:
        guard, after = parametric.p1_serve_own_payload(m, p, s, c)
        return z3.And(guard, p.owner(c.pid) == z3.Select(s.w_id, c.wire)), replace(
            after, ld_tensor=c.pid)

    monkeypatch.setitem(parametric.ACTIONS, label, wrong)
    with pytest.raises(parametric.ParametricRejected, match="served-from-one-processing"):
        parametric.prove()
