"""The distributed search's parts that need no cluster: its transport rebuilds equal states,
a task's expansion is `build`'s, the owned search's codes name and rebuild states, and a task
for a partition its process does not hold fails. (Its partitions' fingerprint, stable across
processes: `test_explore_fingerprint.py`.)"""

from __future__ import annotations

import pickle

import pytest

from model_checks.explore.distributed import expand_chunk, expand_task
from model_checks.explore.distributed_common import DistributedSearchFailed, dumps, field_values
from model_checks.explore.fingerprint import stable_fingerprint
from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.partition import PartitionLost, merge_task
from model_checks.explore.partition import expand_task as expand_task_of_partition
from model_checks.explore.wire import Channel, Codec
from spec import Config, State, variant_named


def test_states_cross_as_equal_states_and_a_task_expands_as_build() -> None:
    config = explore_config(variant_named("V0"), ("D6",), max_requests=2)
    graph = build(config)
    states = list(graph.states)
    assert pickle.loads(dumps(states)) == states
    assert field_values(State) is not None
    assert field_values(Config) is None, "Config runs __post_init__: pickled as usual"
    assert pickle.loads(dumps(config)) == config
    expansion = pickle.loads(expand_task(dumps((config, True, None, states[:50]))))
    for number, edges in enumerate(expansion.edges):
        assert [(action, states[target]) for action, target in graph.edges[number]] == [
            (action, expansion.successors[at][0]) for action, at, _ in edges]
    assert expansion == expand_chunk(config, True, None, states[:50])


def test_a_code_names_its_state_and_rebuilds_it_in_another_process() -> None:
    """Every state's code decodes, in a codec that has only received the elements over a
    channel, to an equal state; distinct states have distinct codes; a channel carries each
    element once."""
    config = explore_config(variant_named("V2"), ("D7",), max_requests=2)
    states = list(build(config).states)
    sender, receiver = Codec(), Codec()
    channel = Channel(sender)
    codes = [sender.encode(state) for state in states]
    elements = channel.elements(codes)
    receiver.learn(pickle.loads(dumps(elements)))
    assert [receiver.decode(code) for code in codes] == states
    assert len(set(codes)) == len(states)
    assert len(elements) < len(states), "states share their elements"
    assert channel.elements(codes) == {}, "nothing is carried twice"


def test_fields_do_not_share_fingerprints() -> None:
    """`True == 1`: one memo for every field would give an int field the fingerprint of a
    bool (and decode it as `True`); per field, each keeps its own."""
    codec = Codec()
    state = State(shadows=(), reset_pending=True)
    codec.encode(state)
    assert codec.memo[6] == {True: stable_fingerprint(True)}
    assert codec.decode(codec.encode(state)) == state


def test_a_task_for_a_partition_this_process_does_not_hold_fails_the_search() -> None:
    with pytest.raises(PartitionLost, match="is not held by this worker"):
        expand_task_of_partition("owned-none", 0, 0, b"")
    with pytest.raises(DistributedSearchFailed):
        merge_task("owned-none", 1, 0)
