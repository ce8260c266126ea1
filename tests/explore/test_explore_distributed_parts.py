"""The distributed search's parts that need no cluster: its transport rebuilds equal states,
and a task's expansion is `build`'s. (Its partitions' fingerprint, stable across processes:
`test_explore_fingerprint.py`.)"""

from __future__ import annotations

import pickle

from model_checks.explore.distributed import (
    _field_values,
    dumps,
    expand_chunk,
    expand_task,
)
from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from spec import Config, State, variant_named


def test_states_cross_as_equal_states_and_a_task_expands_as_build() -> None:
    config = explore_config(variant_named("V0"), ("D6",), max_requests=2)
    graph = build(config)
    states = list(graph.states)
    assert pickle.loads(dumps(states)) == states
    assert _field_values(State) is not None
    assert _field_values(Config) is None, "Config runs __post_init__: pickled as usual"
    assert pickle.loads(dumps(config)) == config
    expansion = pickle.loads(expand_task(dumps((config, True, None, states[:50]))))
    for number, edges in enumerate(expansion.edges):
        assert [(action, states[target]) for action, target in graph.edges[number]] == [
            (action, expansion.successors[at][0]) for action, at, _ in edges]
    assert expansion == expand_chunk(config, True, None, states[:50])
