"""V2's S1 break under D7 alone (the all-instance witness, `parametric_witness`) lies inside
Z3's own instance of the matrix cell V2 D7: with its identities renamed to the encoding's
(g, h, z as a, b, c), every one of its 11 steps is a step of the SMT relation, and its last
state breaks S1 in the encoding. So the cell's "holds to depth 6" is a bound, not an answer,
and the matrix does not judge the cell (`matrix.beyond_the_bounds`): the break is 11 steps
deep, past the main job's search depth of 10."""

from __future__ import annotations

from dataclasses import replace

import z3

from model_checks.kernel.matrix import Expectation, beyond_the_bounds
from model_checks.smt.budget import Bounded
from model_checks.smt.decode.crosscheck import first_disagreement, matches
from model_checks.smt.encode.properties import BAD
from model_checks.smt.encode.symbols import encoding_for, params, params_constraint, state_at
from spec import ClientItem, Config, Content, ItemSize, Trace, by_id, run
from spec.transitions import Action, Submit
from tests.smt import parametric_witness as witness

RENAMED = {"g": "a", "h": "b", "z": "c"}


def _renamed_action(action: Action) -> Action:
    if not isinstance(action, Submit):
        return action
    return Submit(tuple(ClientItem(RENAMED[i.identity], i.version, i.has_data)
                        for i in action.items))


def _renamed() -> Trace:
    config = witness.CONFIG
    sizes = tuple(ItemSize(Content(RENAMED[s.content.identity], s.content.version),
                           s.shadow_bytes, s.receiver_bytes) for s in config.sizes)
    renamed: Config = replace(config, identities=tuple(RENAMED[i] for i in config.identities),
                              sizes=sizes)
    return run(renamed, tuple(_renamed_action(a) for a in witness.ACTIONS))


def _breaks_s1_in_the_encoding(trace: Trace) -> z3.CheckSatResult:
    enc = encoding_for(witness.CONFIG.variant, ("D7",))
    p, s = params(enc), state_at(enc, 0)
    solver = Bounded(200_000_000)
    last = list(trace.states())[-1]
    solver.add(params_constraint(enc, p), p.budget == trace.config.budget, matches(enc, s, last),
               BAD["S1"](enc, p, s))
    return solver.check().result


def test_the_renamed_witness_still_breaks_s1_on_the_spec_at_its_last_step() -> None:
    trace = _renamed()
    found = by_id("S1").check_trace(trace)
    assert found is not None and found.step == len(witness.ACTIONS) == 11


def test_every_step_of_the_witness_is_a_step_of_z3s_matrix_encoding_of_v2_under_d7() -> None:
    enc = encoding_for(witness.CONFIG.variant, ("D7",))
    assert first_disagreement(enc, _renamed()) is None


def test_its_last_state_breaks_s1_in_the_encoding_and_an_earlier_one_does_not() -> None:
    trace = _renamed()
    assert _breaks_s1_in_the_encoding(trace) == z3.sat
    shorter = run(trace.config, tuple(s.action for s in trace.steps[:-1]))
    assert _breaks_s1_in_the_encoding(shorter) == z3.unsat


def test_so_the_matrix_does_not_judge_the_cell() -> None:
    from tests.expected_cells import expected_cell

    assert "S1" in beyond_the_bounds("V2", ("D7",), set())
    assert expected_cell("V2", ("D7",)).expectations["S1"] is Expectation.NOT_JUDGED
