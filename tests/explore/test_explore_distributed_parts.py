"""The distributed search's parts that need no cluster: its transport rebuilds equal states,
a task's expansion is `build`'s, the owned search's codes name and rebuild states, every
design's values cross (pickled, and on the owned search's wire), and a task for a partition
its process does not hold fails. (Its partitions' fingerprint, stable across
processes: `test_explore_fingerprint.py`.)"""

from __future__ import annotations

import pickle

import pytest

from model_checks.explore.distributed import expand_chunk, expand_task
from model_checks.explore.distributed_common import (
    DistributedSearchFailed,
    Searched,
    dumps,
    field_values,
)
from model_checks.explore.fingerprint import stable_fingerprint
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.partition import PartitionLost, merge_task
from model_checks.explore.partition import expand_task as expand_task_of_partition
from model_checks.explore.wire import Channel, Codec
from spec import Config, State, variant_named
from spec.designs import designs
from spec.designs.base import Design


def test_states_cross_as_equal_states_and_a_task_expands_as_build() -> None:
    config = explore_config(variant_named("V0"), ("D6",), max_requests=2)
    graph = build(config)
    states = list(graph.states)
    assert pickle.loads(dumps(states)) == states
    assert field_values(State) is not None
    assert field_values(Config) is None, "Config runs __post_init__: pickled as usual"
    assert pickle.loads(dumps(config)) == config
    searched = Searched("lru", config, True, None)
    expansion = pickle.loads(expand_task(dumps((searched, states[:50]))))
    for number, edges in enumerate(expansion.edges):
        assert [(action, states[target]) for action, target in graph.edges[number]] == [
            (action, expansion.successors[at]) for action, at, _ in edges]
    assert expansion == expand_chunk(searched, states[:50])


def test_a_code_names_its_state_and_rebuilds_it_in_another_process() -> None:
    """Every state's code decodes, in a codec that has only received the elements over a
    channel, to an equal state; distinct states have distinct codes; a channel carries each
    element once."""
    config = explore_config(variant_named("V2"), ("D7",), max_requests=2)
    states = list(build(config).states)
    sender, receiver = Codec(State), Codec(State)
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
    codec = Codec(State)
    state = State(shadows=(), reset_pending=True)
    codec.encode(state)
    assert codec.memo[6] == {True: stable_fingerprint(True)}
    assert codec.decode(codec.encode(state)) == state


@pytest.mark.parametrize("design", designs(), ids=lambda design: design.name)
def test_every_designs_values_cross_and_a_task_expands_as_build(design: Design) -> None:
    """A design's configuration, states and actions pickle to equal values (the stateless
    search's tasks carry them so), its states cross the owned search's wire as codes, and a
    task expands its states through the design's `Moves` as `build` does."""
    config = design.instance(design.variants[0], frozenset())
    graph = build(config, GraphOptions(max_states=400), design.name)
    states, actions = list(graph.states), list(graph.actions)
    for value in (config, states, actions):
        assert pickle.loads(pickle.dumps(value)) == value
        assert pickle.loads(dumps(value)) == value
    sender, receiver = Codec(type(states[0])), Codec(type(states[0]))
    codes = [sender.encode(state) for state in states]
    receiver.learn(pickle.loads(dumps(Channel(sender).elements(codes))))
    assert [receiver.decode(code) for code in codes] == states
    assert len(set(codes)) == len(states)
    moves = graph.reductions()  # equal successors, as stepped again, have the target's code
    for number, state in enumerate(states[:50]):
        edges = graph.edges[number]
        stepped = moves.successors(state, [action for action, _ in edges])
        assert [sender.encode(successor) for _, successor, _ in stepped] == [
            codes[target] for _, target in edges]
    expansion = expand_chunk(Searched(design.name, config, True, None), states[:20])
    for number, edges in enumerate(expansion.edges):
        assert [(action, states[target]) for action, target in graph.edges[number]] == [
            (action, expansion.successors[at]) for action, at, _ in edges]


def test_a_state_that_is_no_dataclass_of_the_spec_crosses_whole() -> None:
    """A design whose states are not the spec's frozen dataclasses: each state is one
    element, named by its stable fingerprint (equal whatever the set's order)."""
    sender, receiver = Codec(frozenset), Codec(frozenset)
    state = frozenset({"b", "a"})
    code = sender.encode(state)
    assert len(code) == 1 and code == Codec(frozenset).encode(frozenset({"a", "b"}))
    receiver.learn(Channel(sender).elements([code]))
    assert receiver.decode(code) == state


def test_a_task_for_a_partition_this_process_does_not_hold_fails_the_search() -> None:
    with pytest.raises(PartitionLost, match="is not held by this worker"):
        expand_task_of_partition("owned-none", 0, 0, b"")
    with pytest.raises(DistributedSearchFailed):
        merge_task("owned-none", 1, 0)
