"""The forgetting searches' keys are bisimulations (`tests/explore/key_check.py`), and the
two reductions their keys gained are sound:

- unread media flags forgotten (`forgetting.media_read`): a flag no step reads again (once P0
  processed or updated the item, every flag once the attempt is sent or done) is set in the
  key;
- identity symmetry on the key (`search_core.Reductions.canonical`): under forgetting, the
  identity renaming is read off the key's state, so keys that differ by a permutation of
  interchangeable identities merge;
- the last delivery forgotten by the slots key (`slots.delivery_forgotten`), which keeps the
  state properties it breaks.

On a sample of instances and on every spec mutant's witness, the key check finds no
conflict and the verdict comparison (`forgetting_agreement.compare`) agrees with the search
without forgetting; `-m slow`: on every matrix cell's first CI instance, both. Planted
unsound versions of the three (the media flags of a request P0 has not handled forgotten;
the key put in canonical form without renaming the stored state and its edges; the delivery
cleared without its breaks) are caught by the key check, where the verdict comparison
passes the first (checked here) and, on the samples tried, the other two."""

from __future__ import annotations

import pytest

from model_checks.explore import search_core
from model_checks.explore.command import PROFILES
from model_checks.explore.forgetting_agreement import compare, matrix_instances
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_reductions import forgetting, slots
from model_checks.explore.lru_reductions.forgetting import media_forgotten, media_read
from model_checks.explore.lru_reductions.symmetry import canonical_identities
from model_checks.explore.search_core import Reductions
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import V1, V3, ClientItem, Config, Outcome, State, Variant
from spec.state import P0Work, Request, Stage
from tests.explore.key_check import check_key

LIMIT = 30_000
SAMPLE = [(V3, ("D2",)), (V1, ("D6",))]


def _three_requests(variant: Variant, env: tuple[str, ...]) -> Config:
    return explore_config(variant, env, max_requests=3, max_items=1)


@pytest.mark.parametrize("with_slots", [False, True], ids=["forget", "slots"])
@pytest.mark.parametrize(("variant", "env"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}" for v, e in SAMPLE])
def test_the_keys_are_bisimulations(variant: Variant, env: tuple[str, ...],
                                    with_slots: bool) -> None:
    result = check_key(_three_requests(variant, env), LIMIT, with_slots)
    assert result.complete and result.sound, result.conflicts[:1]
    assert result.keys < result.states


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_the_slots_key_is_a_bisimulation_on_every_spec_mutant(mutant: Mutant) -> None:
    result = check_key(mutant.witness_config(), LIMIT, slots=True)
    assert not result.conflicts, (mutant.name, result.conflicts[:1])


def _forget_unhandled_media(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the media flags of a request P0 has not handled yet forgotten too (unsound:
    `process_attempt` reads them, a missed item without media is a client error)."""
    def planted(request: Request) -> Request:
        if request.stage is Stage.SUBMITTED:
            return request.evolve(items=tuple(ClientItem(i.identity, i.version, True)
                                              for i in request.items))
        return media_read(request)

    monkeypatch.setattr(forgetting, "media_read", planted)


def test_media_flags_of_an_unhandled_request_forgotten_are_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _forget_unhandled_media(monkeypatch)
    config = _three_requests(V3, ("D2",))
    # under the spec's moves (the slots search's own choose the flags at P0's handling
    # instead, `lazy_media`, under which states with one such key do step alike)
    assert check_key(config, LIMIT, slots=True, lazy=False).conflicts
    # the verdict comparison alone passes this plant: why the key check exists
    assert compare(config, LIMIT, slots=True).agrees


def test_the_key_put_in_canonical_form_without_renaming_the_state_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the fingerprint of the key in canonical identity form, the stored state and
    its edges left in their own names (no renaming recorded)."""
    fingerprint = Reductions.fingerprint

    def unrecorded(self: Reductions, state: State) -> int:
        guide = search_core.key_state(search_core.dedup_key(self.config, state, self.slots))
        return fingerprint(self, canonical_identities(state, self.groups, guide)[0])

    monkeypatch.setattr(Reductions, "fingerprint", unrecorded)
    monkeypatch.setattr(Reductions, "canonical",
                        lambda self, state: (self.rename_pids(state), None))
    config = _three_requests(V3, ("D2",))
    assert check_key(config, LIMIT).conflicts
    assert check_key(config, LIMIT, slots=True).conflicts


def test_the_last_delivery_forgotten_with_its_breaks_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the slots key clears the last delivery without keeping which state properties
    it breaks (S1, S3's freshness and H1 read it)."""
    monkeypatch.setattr(slots, "delivery_forgotten",
                        lambda config, state: (slots.cleared(state), frozenset()))
    assert check_key(_three_requests(V3, ("D2",)), LIMIT, slots=True).conflicts


def test_the_number_of_requests_forgotten_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: a slots key without the number of requests (`Submit`'s bound reads it), which
    the verdict comparison passes on the sampled instances."""
    def planted(config: Config, state: State) -> object:
        key = slots.slots_key(config, state)
        return key if not isinstance(key, tuple) else (key[0], 0, *key[2:])

    monkeypatch.setattr(search_core, "slots_key", planted)
    assert check_key(_three_requests(V3, ("D2",)), LIMIT, slots=True).conflicts


def test_the_renumbered_key_collapsed_with_requests_ended_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant: the slots key is the renumbered state alone whenever nothing broke, ended
    requests or not (the number of requests and the ended outcome classes dropped), where
    the sound key is that state alone only when nothing ended either."""
    def planted(config: Config, state: State) -> object:
        key = slots.slots_key(config, state)
        return key[0] if isinstance(key, tuple) and len(key) == 4 and not key[3] else key

    monkeypatch.setattr(search_core, "slots_key", planted)
    assert check_key(_three_requests(V3, ("D2",)), LIMIT, slots=True).conflicts


def test_a_check_that_merged_nothing_does_not_pass() -> None:
    result = check_key(_three_requests(V3, ("D2",)), 1)  # the initial state alone
    assert result.merged == 0 and not result.conflicts and not result.sound


def test_media_read_keeps_the_flags_a_step_still_reads() -> None:
    uuid_only = (ClientItem("a", 0, False), ClientItem("b", 0, False))
    submitted = Request(0, 0, uuid_only)
    assert media_read(submitted) is submitted  # P0's handling reads every flag
    for stage, outcome in ((Stage.IN_FLIGHT, None), (Stage.DONE, Outcome.MISS)):
        sent = Request(0, 0, uuid_only, 0, stage, outcome)
        assert all(i.has_data for i in media_read(sent).items)
    # D6: a processed item's flag is read no more; a probed hit's is, until it is updated
    work = P0Work(frozenset({"b"}), (0, None), ())
    processed = Request(0, 0, uuid_only, 0, Stage.PROCESSED, None, (), work)
    assert [i.has_data for i in media_read(processed).items] == [True, False]
    updating = processed.evolve(stage=Stage.UPDATING,
                                work=P0Work(work.hits, work.processed, (1, 0), 1))
    assert [i.has_data for i in media_read(updating).items] == [True, True]
    config = _three_requests(V3, ())
    state = build(config, GraphOptions(max_states=10, checks=())).states[0]
    assert media_forgotten(state) is state  # nothing to forget: the state itself


@pytest.mark.slow
@pytest.mark.parametrize(("label", "config"), matrix_instances(None),
                         ids=[label for label, _ in matrix_instances(None)])
def test_every_matrix_cell_agrees_and_its_keys_are_bisimulations(label: str,
                                                                 config: Config) -> None:
    limit = PROFILES["ci"].max_states
    for with_slots in (False, True):
        result = compare(config, limit, label, with_slots)
        assert result.agrees, (label, with_slots, result.disagreements)
        checked = check_key(config, limit, with_slots)
        assert not checked.conflicts, (label, with_slots, checked.conflicts[:1])
