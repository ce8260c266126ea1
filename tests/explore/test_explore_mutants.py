"""Every spec mutant (`model_checks.mutation.spec_mutants`) is caught by the explorer: in
its witness's configuration, restricted to the identities, requests and items the witness
uses, the explorer finds a counterexample to every property the mutant must break, and
replays it."""

from __future__ import annotations

import pytest

from model_checks.explore.graph import build
from model_checks.explore.lru_judging.judge import Status, judge
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import by_id


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_explore_catches_mutant(mutant: Mutant) -> None:
    graph = build(mutant.witness_config())
    assert graph.complete
    for prop_id in sorted(mutant.breaks):
        judgement = judge(graph, by_id(prop_id))
        assert judgement.status is Status.COUNTEREXAMPLE, (mutant.name, prop_id, judgement)
        assert judgement.trace is not None
        assert by_id(prop_id).check_trace(judgement.trace) is not None
