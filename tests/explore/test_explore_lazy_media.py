"""Media flags chosen where P0 reads them (`model_checks.explore.lru_reductions.lazy_media`,
on with the slots key) is sound: states that differ only in a fresh request's media flags take
the same steps to related successors under its moves and break the same state properties (the key
check on the relation, `key_check.check_key` with `merged`), verdicts and shortest lengths
are those of the search without forgetting (`test_explore_slots.py` compares the slots
search, which takes these moves, on a sample and every spec mutant), and every witness
replays on the spec; each `Decided` step, made from the parts its state's handlings share,
is the spec's step from the state with the flags set. Planted unsound forms are caught: the
key alone merging the flags (the spec's own moves), the moves never choosing a flag, the
relation merging flags P0 still reads after the first handling, a witness whose `Submit`s
keep the flags they had, parts shared across flag choices or engines."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import pytest

from model_checks.explore import search_core
from model_checks.explore.forgetting_agreement import compare
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.judge import judge_all
from model_checks.explore.lru_reductions import lazy_media
from model_checks.explore.lru_reductions.lazy_media import (
    Decided,
    SharedSteps,
    fresh,
    lazy_enabled,
    submits_decided,
    with_flags,
)
from model_checks.explore.search_core import Reductions
from spec import V2, V3, V4, Action, ClientItem, Config, State, Variant, enabled, initial, run
from spec.state import Stage
from spec.transitions import P0Handle, P0Process, Submit

sys.path.insert(0, str(Path(__file__).parent))
from key_check import check_key

LIMIT = 30_000
SAMPLE = [(V3, ("D2",), 3, 1), (V3, ("D6",), 2, 2), (V2, ("D7",), 2, 2)]


def fresh_media_set(state: State) -> State:
    """`state` with every fresh request's media flags set to True (`lazy_media.fresh`): the
    one state of its class the lazy search reaches; `state` itself when none is unset."""
    requests = state.requests
    if all(not fresh(r) or all(i.has_data for i in r.items) for r in requests):
        return state
    return state.evolve(requests=tuple(
        r.evolve(items=tuple(ClientItem(i.identity, i.version, True) for i in r.items))
        if fresh(r) else r for r in requests))


def _config(variant: Variant, env: tuple[str, ...], requests: int, items: int) -> Config:
    return explore_config(variant, env, max_requests=requests, max_items=items)


@pytest.mark.parametrize(("variant", "env", "requests", "items"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}@{r}x{i}" for v, e, r, i in SAMPLE])
def test_states_differing_in_fresh_flags_take_the_same_steps(
        variant: Variant, env: tuple[str, ...], requests: int, items: int) -> None:
    result = check_key(_config(variant, env, requests, items), LIMIT, slots=True,
                       merged=fresh_media_set)
    assert result.complete and result.merged > 0
    assert result.sound, result.conflicts[:1]


@pytest.mark.parametrize(("variant", "env", "requests", "items"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}@{r}x{i}" for v, e, r, i in SAMPLE])
def test_the_lazy_search_agrees_and_stores_fewer_states(
        variant: Variant, env: tuple[str, ...], requests: int, items: int) -> None:
    config = _config(variant, env, requests, items)
    result = compare(config, LIMIT, slots=True)
    assert result.agrees, result.disagreements
    groups = Reductions.of(config, True, None).groups
    eager = build(config, GraphOptions(max_states=LIMIT, forget=True, slots=True, checks=()),
                  moves=Reductions(config, True, groups, forget=True, slots=True, lazy=False))
    assert eager.complete and result.forgetting_states < len(eager.states)


def test_a_key_merging_the_flags_under_the_specs_moves_is_caught() -> None:
    """The key alone cannot merge the flags: with media and without, P0 handling one fresh
    request of one item missing from the shadow sends it, or ends it as a client error."""
    result = check_key(_config(V3, ("D2",), 3, 1), LIMIT, slots=True, merged=fresh_media_set,
                       lazy=False)
    assert not result.sound
    config = _config(V3, ("D2",), 1, 1)
    with_media = run(config, [Submit((ClientItem("a", 0, True),))]).final
    without = run(config, [Submit((ClientItem("a", 0, False),))]).final
    assert fresh_media_set(without) == with_media
    handle = P0Handle(0)
    assert handle.apply(config, with_media).requests[0].stage is Stage.IN_FLIGHT
    assert handle.apply(config, without).requests[0].stage is Stage.DONE


def test_moves_that_never_choose_a_flag_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def never_chosen(state: State, actions: list[Action]) -> list[Action]:
        return [a for a in actions
                if not isinstance(a, Submit) or all(i.has_data for i in a.items)]

    monkeypatch.setattr(search_core, "lazy_enabled", never_chosen)
    result = check_key(_config(V3, ("D2",), 3, 1), LIMIT, slots=True, merged=fresh_media_set)
    assert not result.sound


def test_flags_merged_after_the_first_handling_too_are_caught() -> None:
    """V3 under D6: P0's update reads the flag of an item probed as a hit and evicted
    since (the late miss: four one-item requests over three identities, two in the shadow),
    after `P0Process`: a relation merging those flags too is not one the moves respect."""
    def after_handling_too(state: State) -> State:
        return state.evolve(requests=tuple(
            r.evolve(items=tuple(ClientItem(i.identity, i.version, True) for i in r.items))
            if r.stage in (Stage.SUBMITTED, Stage.PROCESSED, Stage.UPDATING) else r
            for r in state.requests))

    config = explore_config(V3, ("D6",), max_requests=4, max_items=1, max_identities=3)
    result = check_key(config, 40_000, slots=True, merged=after_handling_too)
    assert result.complete
    assert not result.sound


def test_witnesses_need_the_choice_given_to_their_submits(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Every counterexample of the lazy search replays on the spec; with the handlings'
    choices dropped instead of given to the `Submit`s, some do not."""
    config = _config(V3, ("D2",), 3, 1)
    graph = build(config, GraphOptions(max_states=LIMIT, forget=True, slots=True))
    assert any(isinstance(a, Decided) and not all(a.flags) for a in graph.actions)
    judge_all(graph)  # replays every counterexample (`ReplayDisagrees` otherwise)

    def dropped(actions: list[Any]) -> list[Any]:
        return [a.action if isinstance(a, Decided) else a for a in actions]

    path = _path_through_a_client_error(config)
    assert run(config, submits_decided(path)).final.requests[0].stage is Stage.DONE
    assert run(config, dropped(path)).final.requests[0].stage is not Stage.DONE


def _path_through_a_client_error(config: Config) -> list[Any]:
    """A `Submit` with media, then P0 handling it with none: a path of the lazy search."""
    submit = next(a for a in lazy_enabled(initial(config), enabled(config, initial(config)))
                  if isinstance(a, Submit))
    after = submit.apply(config, initial(config))
    handle = next(a for a in lazy_enabled(after, enabled(config, after))
                  if isinstance(a, Decided) and isinstance(a.action, P0Handle)
                  and not all(a.flags))
    return [submit, handle]


def test_only_fresh_requests_have_their_flags_chosen() -> None:
    config = _config(V3, ("D6",), 2, 2)
    state = initial(config)
    submits = [a for a in lazy_enabled(state, enabled(config, state)) if isinstance(a, Submit)]
    assert submits and all(all(i.has_data for i in a.items) for a in submits)
    state = submits[0].apply(config, state)
    handlings = [a for a in lazy_enabled(state, enabled(config, state))
                 if isinstance(a, Decided)]
    assert {type(a.action) for a in handlings} == {P0Handle, P0Process}
    assert len({a.flags for a in handlings}) == 2 ** len(state.requests[0].items)
    processed = P0Process(0).apply(config, state)
    assert not any(isinstance(a, Decided)
                   for a in lazy_enabled(processed, enabled(config, processed)))


SHARED_SAMPLE = [(V3, ("D2",)), (V4, ("D6",)), (V2, ("D5",))]
"""Every handling a `Decided` step shares parts between: both rejections (D2), the processing
alone (D6), two engines (D5, one front end's router)."""


def _shared_steps_differing(variant: Variant, env: tuple[str, ...], limit: int = 2_000
                            ) -> list[tuple[State, Decided]]:
    """The `Decided` steps, taken in `lazy_enabled` order from every state of a breadth-first
    search of up to `limit` states (two requests of two items; D5 as two engines behind one
    front end), whose successor is not the spec's step from the state with the flags set."""
    config = _config(variant, env, 2, 2)
    if "D5" in env:
        config = dataclasses.replace(config, front_ends=1, engines=2)
    seen, frontier, wrong = {initial(config)}, [initial(config)], []
    while frontier and len(seen) < limit:
        state = frontier.pop(0)
        for action in lazy_enabled(state, enabled(config, state)):
            after = action.apply(config, state)
            if isinstance(action, Decided):
                flagged = with_flags(state, action.rid, action.flags)
                if after != action.action.apply(config, flagged):
                    wrong.append((state, action))
            if after not in seen:
                seen.add(after)
                frontier.append(after)
    return wrong


@pytest.mark.parametrize(("variant", "env"), SHARED_SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}" for v, e in SHARED_SAMPLE])
def test_shared_handlings_are_the_specs_steps(variant: Variant, env: tuple[str, ...]) -> None:
    assert not _shared_steps_differing(variant, env)


class _FlagsShared(SharedSteps):
    def key(self, rid: int, flags: tuple[bool, ...], engine: int
            ) -> tuple[int, tuple[bool, ...], int]:
        return rid, (), engine


class _EnginesShared(SharedSteps):
    def key(self, rid: int, flags: tuple[bool, ...], engine: int
            ) -> tuple[int, tuple[bool, ...], int]:
        return rid, flags, min(engine, 0)


@pytest.mark.parametrize(("wrong", "variant", "env"),
                         [(_FlagsShared, V3, ("D2",)), (_FlagsShared, V4, ("D6",)),
                          (_EnginesShared, V2, ("D5",))],
                         ids=["flags_D2", "flags_D6", "engines_D5"])
def test_parts_shared_across_flags_or_engines_are_caught(
        monkeypatch: pytest.MonkeyPatch, wrong: type[SharedSteps], variant: Variant,
        env: tuple[str, ...]) -> None:
    monkeypatch.setattr(lazy_media, "SHARED", wrong())
    assert _shared_steps_differing(variant, env)
