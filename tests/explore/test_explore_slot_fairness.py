"""L4's candidates ruled out on the slots graph (`model_checks.explore.lru_judging.slot_fairness`)
give the judgement of the second search on the forgetting keys: on the slots tests' instances
and on every spec mutant's witness instance (where the spec has no fair cycle and the rules
rule every candidate out), and with planted obligations under which fair cycles exist (some
owed steps left unowed), the verdict, counterexample, cycle start and reason are those of the
judge made to run the second search. A planted unsound rule (every candidate where a step
naming a request is enabled dropped, owed or not) changes a verdict: the comparison catches
it."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.judgement import Judgement, Status
from model_checks.explore.lru_judging import judge, liveness, slot_fairness
from model_checks.explore.lru_judging.liveness import candidates
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import V0, V1, V2, V3, Action, Config, Variant, by_id
from spec.transitions import P0ReceiveReply, Retry

LIMIT = 30_000
SAMPLE = [(V3, ("D2",)), (V0, ("D2",)), (V1, ("D6",)), (V2, ("D7",))]


def _three_requests(variant: Variant, env: tuple[str, ...]) -> Config:
    return explore_config(variant, env, max_requests=3, max_items=1)


def _slots_graph(config: Config) -> Graph:
    return build(config, GraphOptions(max_states=LIMIT, forget=True, slots=True, checks=()))


def _outcome(judgement: Judgement) -> tuple[object, ...]:
    return (judgement.status, judgement.actions, judgement.cycle_from, judgement.reason)


def _both(graph: Graph, monkeypatch: pytest.MonkeyPatch) -> tuple[Judgement, Judgement]:
    """L4 judged with the rules, then with the second search forced."""
    ruled = judge.judge(graph, by_id("L4"))
    with monkeypatch.context() as patch:
        patch.setattr(judge, "every_candidate_ruled_out", lambda graph: False)
        searched = judge.judge(graph, by_id("L4"))
    return ruled, searched


@pytest.mark.parametrize(("variant", "env"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}" for v, e in SAMPLE])
def test_the_rules_rule_out_every_candidate_and_agree(variant: Variant, env: tuple[str, ...],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _slots_graph(_three_requests(variant, env))
    with graph.holding_states():
        assert list(candidates(graph))  # the second search would run
        assert slot_fairness.every_candidate_ruled_out(graph)
    ruled, searched = _both(graph, monkeypatch)
    assert _outcome(ruled) == _outcome(searched)


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_the_rules_agree_on_every_spec_mutant(mutant: Mutant,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    ruled, searched = _both(_slots_graph(mutant.witness_config()), monkeypatch)
    assert _outcome(ruled) == _outcome(searched)


def _owed_but_replies(action: Action) -> bool:
    """Planted fairness: `P0ReceiveReply` never owed."""
    return action.is_obligation() and not isinstance(action, P0ReceiveReply)


def _owed_but_retries(action: Action) -> bool:
    """Planted fairness: `Retry` never owed."""
    return action.is_obligation() and not isinstance(action, Retry)


def _owed_naming_no_request(action: Action) -> bool:
    """Planted fairness: no step that names a request owed."""
    return action.is_obligation() and getattr(action, "rid", None) is None


PLANTED = [(_owed_but_replies, V3, ("D2",)), (_owed_but_retries, V3, ("D2",)),
           (_owed_naming_no_request, V1, ("D6",))]
"""Planted fairness under which L4 breaks by a lasso, and an instance where it does."""


def _plant_owed(patch: pytest.MonkeyPatch, owed: Callable[[Action], bool]) -> None:
    patch.setattr(liveness, "is_owed", owed)
    patch.setattr(slot_fairness, "is_owed", owed)


@pytest.mark.parametrize(("owed", "variant", "env"), PLANTED,
                         ids=[f"{o.__name__}_{v.name}_{'+'.join(e)}" for o, v, e in PLANTED])
def test_the_rules_agree_where_fair_cycles_exist(owed: Callable[[Action], bool],
                                                 variant: Variant, env: tuple[str, ...],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _plant_owed(monkeypatch, owed)
    graph = _slots_graph(_three_requests(variant, env))
    ruled, searched = _both(graph, monkeypatch)
    assert searched.status is Status.COUNTEREXAMPLE and searched.cycle_from is not None
    assert _outcome(ruled) == _outcome(searched)


def test_dropping_candidates_with_a_rid_naming_step_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: a rule that drops every candidate where a step naming a
    request is enabled, without asking whether it is owed at a tracked request's slot and
    never taken there, rules out the fair ones too."""
    def names_a_request(graph: Graph, labels: slot_fairness._Labels, members: set[int]
                        ) -> bool:
        return any(labels.rid[graph.edge_action[k]] is not None
                   for state in members for k in graph.edge_range(state))

    _plant_owed(monkeypatch, _owed_but_retries)
    graph = _slots_graph(_three_requests(V3, ("D2",)))
    ruled, searched = _both(graph, monkeypatch)
    assert _outcome(ruled) == _outcome(searched)  # the sound rules
    monkeypatch.setattr(slot_fairness, "_tracking_unfair", names_a_request)
    mutated, _ = _both(graph, monkeypatch)
    assert searched.status is Status.COUNTEREXAMPLE
    assert mutated.status is Status.PROVED
