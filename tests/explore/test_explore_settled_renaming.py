"""Identity symmetry's renaming settled before the key (`symmetry.settled_renaming`) is the
one the key's state guides (`search_core.key_state`): on every real successor of a forgetting
search, with and without request slots renumbered, wherever the caches, messages and replies
settle it, it equals `canonical_identities` guided by the state part of the successor's
deduplication key, and the search's representative and fingerprint are those of the guided
renaming. Planted wrong heads (the requests read in their slots, which the slots key
renumbers; a group settled with two identities unmet) give renamings the comparison
catches."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_reductions import symmetry
from model_checks.explore.lru_reductions.symmetry import canonical_identities
from model_checks.explore.search_core import Reductions, dedup_key, key_state
from spec import V3, Action, Config, State

STATES = 2000


def _config() -> Config:
    return explore_config(V3, ("D2",), max_requests=3, max_items=2)


def _reals(config: Config, slots: bool) -> Iterator[tuple[Reductions, State, Action, State]]:
    """Every state of a forgetting search, with each enabled action and its real successor
    (processing ids renamed)."""
    graph = build(config, GraphOptions(forget=True, slots=slots, max_states=STATES, checks=()))
    moves = graph.reductions()
    assert isinstance(moves, Reductions) and moves.groups
    for state in list(graph.states):
        for action in moves.enabled(state):
            yield moves, state, action, moves.renamed_step(state, action)


def _disagreements(config: Config, slots: bool) -> tuple[int, int, int]:
    """(settled renamings that moved identities, unsettled ones, settled ones that differ
    from the guided renaming)."""
    moved = unsettled = wrong = 0
    for moves, _, _, real in _reals(config, slots):
        settled, renaming = symmetry.settled_renaming(real, moves.groups)
        guide = key_state(dedup_key(config, real, slots))
        guided = canonical_identities(real, moves.groups, guide)
        unsettled += not settled
        moved += settled and renaming is not None
        wrong += settled and renaming != guided[1]
    return moved, unsettled, wrong


@pytest.mark.parametrize("slots", [False, True], ids=["forget", "slots"])
def test_a_settled_renaming_is_the_guided_one(slots: bool) -> None:
    moved, unsettled, wrong = _disagreements(_config(), slots)
    assert wrong == 0
    assert moved > 0 and unsettled > 0  # both ways were taken


@pytest.mark.parametrize("slots", [False, True], ids=["forget", "slots"])
def test_the_search_keys_the_guided_representative(slots: bool) -> None:
    config, checked = _config(), 0
    for moves, state, action, real in itertools.islice(_reals(config, slots), 0, None, 7):
        guided, renaming = canonical_identities(
            real, moves.groups, key_state(dedup_key(config, real, slots)))
        assert symmetry._head_met(real, moves.groups) == symmetry._met(
            symmetry._head_runs(real), moves.groups)  # the head walked as it runs
        (_, representative, given), = moves.successors(state, [action])
        assert (representative, given) == (guided, renaming)
        assert moves.fingerprint(representative) == hash(dedup_key(config, guided, slots))
        assert moves.canonical(real) == (guided, renaming)
        checked += renaming is not None
    assert checked > 0


def _requests_in_the_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the head reads the requests in their slots too (the slots key renumbers them,
    so the key's state may meet their identities in another order)."""
    def planted(state: State, groups: symmetry.Groups) -> list[str]:
        runs = itertools.chain(symmetry._head_runs(state),
                               ([item.identity for item in r.items] for r in state.requests))
        return symmetry._met(runs, groups)

    monkeypatch.setattr(symmetry, "_head_met", planted)


def _two_unmet_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: a group settles with two identities the head does not meet (their order is the
    rest of the traversal's)."""
    def planted(state: State, groups: symmetry.Groups) -> tuple[bool, symmetry.Renaming | None]:
        if state.fault is not None:
            return True, None
        met = symmetry._head_met(state, groups)
        if any(sum(i not in met for i in group) > 2 for group in groups):
            return False, None
        return True, symmetry._renaming(met, groups)

    monkeypatch.setattr(symmetry, "settled_renaming", planted)


@pytest.mark.parametrize(("plant", "slots"), [(_requests_in_the_head, True),
                                              (_two_unmet_settle, False)],
                         ids=["requests_in_the_head", "two_unmet"])
def test_a_wrong_head_is_caught(plant: Callable[[pytest.MonkeyPatch], None], slots: bool,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    plant(monkeypatch)
    assert _disagreements(_config(), slots)[2] > 0
