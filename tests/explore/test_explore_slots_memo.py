"""The slots search's memos give what their functions compute afresh: each successor's
fingerprint read off its representative step (`Reductions.keys`, filled from the memo of real
successors `Reductions.known`) is the hash of its slots key, and each product edge's rid map
built from remembered orders (`slots.slot_map`) is the pairing of the two states'
`slot_order`s, on an instance where requests end, slots move and identities are renamed. A
planted wrong entry in either memo of keys is read (the comparison can fail)."""

from __future__ import annotations

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_reductions.slots import SlotMap, slot_map, slot_order, slots_key
from model_checks.explore.search_core import Reductions
from spec import V3, Config, State

STATES = 1500


def _config() -> Config:
    return explore_config(V3, ("D2",), max_requests=3, max_items=1)


def _fresh_map(config: Config, real: State, stored: State) -> SlotMap | None:
    """`slot_map` without its memos."""
    if real.fault is not None:
        return None
    pairs = tuple(zip(slot_order(config, real), slot_order(config, stored), strict=True))
    return None if all(old == new for old, new in pairs) else pairs


def test_the_memos_give_the_keys_and_rid_maps_computed_afresh() -> None:
    config = _config()
    graph = build(config, GraphOptions(forget=True, slots=True, max_states=STATES))
    moves = graph.reductions()
    assert isinstance(moves, Reductions) and moves.groups
    states, remembered, moved = list(graph.states), 0, 0
    for index, state in enumerate(states):
        successors = moves.successors(state, moves.enabled(state))
        remembered += sum(id(s) in moves.keys for _, s, _ in successors)
        for _, successor, _ in successors:
            assert moves.fingerprint(successor) == hash(slots_key(config, successor))
        for k, (_, successor, _) in zip(graph.edge_range(index), successors, strict=True):
            stored = states[graph.edge_target[k]]
            fresh = _fresh_map(config, successor, stored)
            assert slot_map(config, successor, stored) == fresh
            moved += fresh is not None
    assert remembered > 0 and moved > 0  # both memos were read, and maps moved rids


def test_a_wrong_remembered_key_is_read() -> None:
    config = _config()
    moves = Reductions.of(config, True, None, forget=True, slots=True)
    start = moves.start()
    _, successor, _ = moves.successors(start, moves.enabled(start))[0]
    assert id(successor) in moves.keys
    moves.keys[id(successor)] = (successor, hash("planted"))
    assert moves.fingerprint(successor) == hash("planted")
    assert moves.fingerprint(successor) != hash(slots_key(config, successor))


def test_a_wrong_remembered_successor_is_read() -> None:
    config = _config()
    moves = Reductions.of(config, True, None, forget=True, slots=True)
    start = moves.start()
    action = moves.enabled(start)[0]
    real = moves.renamed_step(start, action)
    (_, successor, renaming), = moves.successors(start, [action])
    assert moves.known[hash(real)][:4] == (real, successor, renaming,
                                           hash(slots_key(config, successor)))
    moves.known[hash(real)] = (real, start, None, hash("planted"), None)
    (_, again, _), = moves.successors(start, [action])
    assert again is start and moves.fingerprint(again) == hash("planted")
