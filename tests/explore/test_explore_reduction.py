"""The processing renaming (`model_checks.explore.lru_reductions.canonical`) is sound: on small
instances the reduced and the unreduced graphs give the same verdict for every property and lemma,
the same shortest counterexample lengths, and no more states."""

from __future__ import annotations

from dataclasses import replace

import pytest

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import judge_all
from model_checks.explore.lru_reductions.canonical import canonical
from spec import V0, V1, V2, V3, Variant, enabled, initial, step

CASES = [
    (V2, ()), (V3, ("D1",)), (V1, ("D3",)), (V0, ("D3",)), (V2, ("D7",)), (V3, ("D7",)),
    (V1, ("D7", "D10")), (V2, ("D6",)), (V3, ("D2",)),
]


def _small(variant: Variant, env: tuple[str, ...]):  # type: ignore[no-untyped-def]
    config = explore_config(variant, env, max_requests=2)
    return replace(config, max_items=1) if "D6" not in env else config


@pytest.mark.parametrize(("variant", "env"), CASES, ids=lambda c: getattr(c, "name", str(c)))
def test_reduced_and_unreduced_agree(variant: Variant, env: tuple[str, ...]) -> None:
    config = _small(variant, env)
    reduced, plain = build(config,
                           GraphOptions(reduce=True)), build(config, GraphOptions(reduce=False))
    assert reduced.complete and plain.complete
    assert len(reduced.states) <= len(plain.states)
    assert reduced.diameter <= plain.diameter
    for a, b in zip(judge_all(reduced), judge_all(plain), strict=True):
        assert (a.property_id, a.status) == (b.property_id, b.status)
        assert len(a.actions) == len(b.actions)


def test_renaming_commutes_with_step() -> None:
    """Bisimulation, step by step: the canonical form of a successor equals the canonical
    form of the same action's successor from the canonical state."""
    config = _small(V3, ("D7", "D10"))
    graph = build(config, GraphOptions(reduce=False))
    for state in graph.states[:3000]:
        rep = canonical(state)
        assert [a for a in enabled(config, state)] == [a for a in enabled(config, rep)]
        for action in enabled(config, state):
            assert canonical(step(config, state, action)) == canonical(step(config, rep, action))


def test_renaming_merges_states_that_differ_only_in_names() -> None:
    config = _small(V2, ("D7",))
    assert canonical(initial(config)) == initial(config)
    graph = build(config, GraphOptions(reduce=False))
    assert len({canonical(s) for s in graph.states}) < len(graph.states)
