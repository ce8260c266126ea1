"""SMT -> spec: every Z3 counterexample decodes into spec actions and replays on the spec."""

from __future__ import annotations

import pytest

from model_checks.smt.encode.symbols import Encoding
from model_checks.smt.results import Violated
from model_checks.smt.search.bmc import bmc
from spec import V0, V1, V2, by_id, environment, run
from spec.transitions import ACTION_TYPES

CASES = [
    (V0, ("D1",), "S3", 5),
    (V2, ("D2",), "H1", 5),
    (V1, ("D7", "D10"), "S1", 7),
    (V0, ("D3", "D7", "D9", "D11"), "S1", 6),
]


@pytest.mark.parametrize(("variant", "env", "prop", "length"), CASES,
                         ids=lambda x: getattr(x, "name", str(x)))
def test_counterexample_is_shortest_and_replays(
    variant: object, env: tuple[str, ...], prop: str, length: int
) -> None:
    enc = Encoding(variant, environment(*env))  # type: ignore[arg-type]
    found = bmc(enc, prop, length)
    assert isinstance(found, Violated)
    assert found.depth == length
    assert all(type(s.action) in ACTION_TYPES for s in found.trace.steps)
    replayed = run(found.config, [s.action for s in found.trace.steps])
    violation = by_id(prop).check_trace(replayed)
    assert violation is not None and violation.step == length


def test_the_replay_discriminates_between_variants() -> None:
    """V1's stale pairing after a front-end restart is no violation under V2 (payload wins)."""
    from dataclasses import replace

    found = bmc(Encoding(V1, environment("D7", "D10")), "S1", 7)
    assert isinstance(found, Violated)
    config = replace(found.config, variant=V2)
    assert by_id("S1").check_trace(run(config, [s.action for s in found.trace.steps])) is None
