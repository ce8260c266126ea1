"""Request slots renumbered (`model_checks.explore.lru_reductions.slots`) is sound: on a sample of
instances where requests end and slots move (three requests, of which two at once) and on every spec
mutant's witness instance, the search whose key renumbers the live requests' slots gives every
property and lemma the verdict and shortest counterexample length of the search without any
forgetting, from fewer states than forgetting alone, and its counterexamples (the monitors' through
their rid maps) replay on the spec. Planted unsound rid maps across edges (pairs in the wrong order;
none at all) make the comparison fail. `benchmarks/forgetting_soundness.py --slots` runs the same
comparison on every matrix cell."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.explore.forgetting_agreement import compare
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging import product
from model_checks.explore.lru_judging.monitors import MONITORS
from model_checks.explore.lru_reductions.canonical import canonical
from model_checks.explore.lru_reductions.forgetting import media_read
from model_checks.explore.lru_reductions.slots import (
    SlotMap,
    _read_summary,
    concrete_rids,
    renumber,
    slot_order,
    slots_key,
)
from model_checks.explore.search_core import Reductions
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import V0, V1, V2, V3, Action, ClientItem, Config, Outcome, State, Variant, run
from spec.state import Message, Request, Stage
from spec.transitions import Retry, Submit

LIMIT = 30_000
SAMPLE = [(V3, ("D2",)), (V0, ("D2",)), (V1, ("D6",)), (V2, ("D7",))]


def _summary(request: Request) -> tuple[object, ...]:
    """What the slots key orders live requests by, read on `request` as the key keeps it."""
    return _read_summary(media_read(request))


def _three_requests(variant: Variant, env: tuple[str, ...]) -> Config:
    return explore_config(variant, env, max_requests=3, max_items=1)


@pytest.mark.parametrize(("variant", "env"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}" for v, e in SAMPLE])
def test_slots_agree_with_the_search_without_forgetting(variant: Variant,
                                                        env: tuple[str, ...]) -> None:
    config = _three_requests(variant, env)
    result = compare(config, LIMIT, slots=True)
    assert result.plain_complete and result.forgetting_complete
    assert result.agrees, result.disagreements
    assert result.compared == 16  # every property and lemma compared
    forgetting = build(config, GraphOptions(max_states=LIMIT, forget=True, checks=()))
    assert result.forgetting_states < len(forgetting.states)


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_slots_agree_on_every_spec_mutant(mutant: Mutant) -> None:
    result = compare(mutant.witness_config(), LIMIT, slots=True)
    assert result.agrees, (mutant.name, result.disagreements)


def test_a_wrong_rid_map_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a rid map that pairs the live slots in the wrong order renames
    the monitors' memories and the witnesses' actions onto the wrong requests."""
    def reversed_map(config: Config, real: State, stored: State) -> SlotMap | None:
        pairs = tuple(zip(slot_order(config, real), slot_order(config, stored)[::-1],
                          strict=True))
        return None if all(old == new for old, new in pairs) else pairs

    monkeypatch.setattr(product, "slot_map", reversed_map)
    result = compare(_three_requests(V3, ("D2",)), LIMIT, slots=True)
    assert not result.agrees


def test_monitors_left_unrenamed_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: without the rid maps across edges, the monitors' violations do
    not replay on the spec (or are missed)."""
    monkeypatch.setattr(product, "slot_map", lambda config, real, stored: None)
    result = compare(_three_requests(V3, ("D2",)), LIMIT, slots=True)
    assert not result.agrees


def test_the_monitors_recompute_each_real_successor_once(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """The product search recomputes an edge's real successor once, though it expands some
    states more than once (reached with other memories)."""
    graph = build(_three_requests(V3, ("D2",)),
                  GraphOptions(max_states=LIMIT, forget=True, slots=True, checks=()))
    expanded: list[int] = []
    computed: list[tuple[State, Action]] = []
    edge_range, renamed_step = graph.edge_range, Reductions.renamed_step

    def counted_range(index: int) -> range:
        expanded.append(index)
        return edge_range(index)

    def counted_step(self: Reductions, state: State, action: Action) -> State:
        computed.append((state, action))
        return renamed_step(self, state, action)

    monkeypatch.setattr(graph, "edge_range", counted_range)
    monkeypatch.setattr(Reductions, "renamed_step", counted_step)
    with graph.holding_states():
        product.search_product(graph, [m for m in MONITORS.values() if not m.state_local])
    assert len(set(expanded)) < len(expanded)  # some state expanded again
    assert len(computed) == sum(len(edge_range(i)) for i in set(expanded))


def test_the_key_renumbers_live_slots_and_keeps_the_rest() -> None:
    config = explore_config(V2, ("D3",), max_requests=3, max_items=1)
    a, b = Submit((ClientItem("a"),)), Submit((ClientItem("b"),))
    state = run(config, [a, b]).final
    _, second = state.requests
    done = Request(0, 0, a.items, 0, Stage.DONE, Outcome.SUCCESS)
    # request 0 ended, request 1 live  versus  request 0 live, request 1 ended
    one = state.evolve(requests=(done, second))
    two = state.evolve(requests=(Request(0, 0, b.items), Request(1, 0, a.items, 0, Stage.DONE,
                                                                 Outcome.SUCCESS)))
    assert slot_order(config, one) == (1,) and slot_order(config, two) == (0,)
    assert slots_key(config, one) == slots_key(config, two)
    named = one.evolve(to_engine=(Message(1, 0, ()),))
    assert slots_key(config, named) != slots_key(config, two)  # the message moves with it
    assert slots_key(config, state) is state  # nothing ended, slots in order: the state
    more = one.evolve(requests=(done, second, Request(2, 0, a.items, 0, Stage.DONE,
                                                      Outcome.SUCCESS)))
    assert slots_key(config, more) != slots_key(config, one)  # Submit's bound reads the count


def test_rid_maps_are_undone_on_the_actions() -> None:
    """A step renaming rid 1 onto 0 (rid 0 ended): the next action naming 0 from the stored
    state is the real run's action naming 1; a fresh rid is the same in both."""
    retry = Retry(0)
    assert concrete_rids([Submit(()), retry], [((1, 0),), None]) == [Submit(()), Retry(1)]
    assert concrete_rids([Submit(()), Retry(2)], [((1, 0),), None])[1] == Retry(2)
    swapped = concrete_rids([Submit(()), Submit(()), Retry(0), Retry(1)],
                            [None, ((0, 1), (1, 0)), None, None])
    assert swapped[2:] == [Retry(1), Retry(0)]


def test_symmetric_requests_needs_forget_ended(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "records.json"
    code = main(["explore", "--variant", "V2", "--environment", "D7", "--json", str(records),
                 "--out", str(tmp_path / "cx"), "--instance",
                 "identities=2,requests=2,unfinished=1,items=1,retries=1,budget=2",
                 "--symmetric-requests"])
    err = capsys.readouterr().err
    assert code == 2 and "--symmetric-requests needs --forget-ended" in err
    assert len(err.strip().splitlines()) == 1 and not records.exists()


def _live_reversed(config: Config, state: State) -> State:
    """`state` with its live requests' slots reversed (the ended ones kept where they are):
    a state related to it by renaming rids."""
    order = sorted(slot_order(config, state))
    moved = dict(zip(order, reversed(order), strict=True))
    names = {rid: moved.get(rid, rid) for rid in range(len(state.requests))}
    back = {new: old for old, new in names.items()}
    requests = tuple(state.requests[back[rid]] for rid in range(len(state.requests)))
    return canonical(renumber(state, names, requests))


def test_related_states_get_one_key_even_when_their_live_requests_tie() -> None:
    """Every reachable state with two live requests or more and the state with their slots
    reversed have one key: ties between equal summaries are broken by the least key text, and
    a renumbered state with nothing ended has the key of one already in order."""
    config = explore_config(V3, ("D2",), max_requests=3, max_items=1)
    graph = build(config, GraphOptions(max_states=3_000, checks=(), forget=True, slots=True))
    compared = tied = 0
    for state in graph.states:
        if state.fault is not None or len(slot_order(config, state)) < 2:
            continue
        compared += 1
        summaries = [_summary(state.requests[rid]) for rid in slot_order(config, state)]
        tied += len(set(summaries)) < len(summaries)
        assert slots_key(config, _live_reversed(config, state)) == slots_key(config, state)
    assert compared and tied  # states with ties were compared


def test_only_memories_that_name_no_request_skip_the_rid_map() -> None:
    """The product skips an edge's rid map only where every memory is one that the empty
    map keeps (each monitor's start): a start that names a request is not taken for one."""
    graph = build(_three_requests(V3, ("D2",)),
                  GraphOptions(max_states=100, forget=True, slots=True, checks=()))
    monitors = [m for m in MONITORS.values() if not m.state_local]
    joint = product.ProductSearch(graph, monitors)
    assert joint._names_no_request(tuple(m.start for m in monitors))
    assert not joint._names_no_request(tuple(
        frozenset({0}) if m.property_id == "L3" else m.start for m in monitors))
    named = dataclasses.replace(MONITORS["L3"], start=frozenset({0}))
    assert not product.ProductSearch(graph, [named])._names_no_request((frozenset({0}),))


def test_rid_maps_skipped_where_a_memory_names_a_request_are_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a product that took every memory for one naming no request
    (so crossed every edge without its rid map) disagrees with the search without
    forgetting."""
    monkeypatch.setattr(product.ProductSearch, "_names_no_request", lambda self, m: True)
    result = compare(_three_requests(V3, ("D2",)), LIMIT, slots=True)
    assert not result.agrees
