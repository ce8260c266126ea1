"""Every spec mutant (`model_checks.mutation.spec_mutants`) is caught by the explorer: in
its witness's configuration, restricted to the identities, requests and items the witness
uses, the explorer finds a counterexample to every property the mutant must break, and
replays it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.explore.graph import build
from model_checks.explore.judge import Status, judge
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import Config, by_id
from spec.transitions import Submit


def witness_config(mutant: Mutant) -> Config:
    """The witness's configuration, cut down to what its script uses: its identities, its
    number of requests, its largest request, and its most requests unfinished at once."""
    config = mutant.witness.config(mutant.variant)
    submits = [a for a in mutant.witness.script if isinstance(a, Submit)]
    used = {i.identity for s in submits for i in s.items}
    unfinished = max(s.unfinished() for s in mutant.witness.run(mutant.base).states())
    return replace(
        config,
        identities=tuple(i for i in config.identities if i in used),
        max_requests=len(submits),
        max_items=max(len(s.items) for s in submits),
        max_in_flight=max(unfinished, 1),
    )


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_explore_catches_mutant(mutant: Mutant) -> None:
    graph = build(witness_config(mutant))
    assert graph.complete
    for prop_id in sorted(mutant.breaks):
        judgement = judge(graph, by_id(prop_id))
        assert judgement.status is Status.COUNTEREXAMPLE, (mutant.name, prop_id, judgement)
        assert judgement.trace is not None
        assert by_id(prop_id).check_trace(judgement.trace) is not None
