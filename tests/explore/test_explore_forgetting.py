"""Ended requests forgotten (`model_checks.explore.lru_reductions.forgetting`) is sound: on a sample
of instances where requests end (three requests, of which two at once) and on every spec mutant's
witness instance, the search that deduplicates on the forgetting key gives every property and lemma
the verdict and shortest counterexample length of the search without it, from fewer states, and its
counterexamples replay on the spec. A planted unsound key (a miss the client may still retry
forgotten) makes the comparison fail. `benchmarks/forgetting_soundness.py` runs the same comparison
on every matrix cell."""

from __future__ import annotations

import pytest

from model_checks.explore.forgetting_agreement import compare
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lru_reductions import forgetting
from model_checks.explore.lru_reductions.forgetting import ended, forgetting_key
from model_checks.mutation.spec_mutants import Mutant, spec_mutants
from spec import V0, V1, V2, V3, ClientItem, Config, Outcome, Variant, run
from spec.state import Message, Request, Stage
from spec.transitions import Submit

LIMIT = 30_000
SAMPLE = [(V3, ("D2",)), (V0, ("D2",)), (V1, ("D6",))]


def _three_requests(variant: Variant, env: tuple[str, ...]) -> Config:
    return explore_config(variant, env, max_requests=3, max_items=1)


@pytest.mark.parametrize(("variant", "env"), SAMPLE,
                         ids=[f"{v.name}_{'+'.join(e)}" for v, e in SAMPLE])
def test_forgetting_agrees_with_the_search_without_it(variant: Variant,
                                                      env: tuple[str, ...]) -> None:
    result = compare(_three_requests(variant, env), LIMIT)
    assert result.plain_complete and result.forgetting_complete
    assert result.agrees, result.disagreements
    assert result.compared == 16  # every property and lemma compared
    assert result.forgetting_states < result.plain_states


@pytest.mark.parametrize("mutant", spec_mutants(), ids=lambda m: m.name)
def test_forgetting_agrees_on_every_spec_mutant(mutant: Mutant) -> None:
    result = compare(mutant.witness_config(), LIMIT)
    assert result.agrees, (mutant.name, result.disagreements)


def test_a_retryable_miss_forgotten_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a request whose miss the client may still retry is not ended."""
    monkeypatch.setattr(forgetting, "_final", lambda config, request: request.outcome
                        is not None)
    result = compare(_three_requests(V3, ("D2",)), LIMIT)
    assert not result.agrees


def test_the_key_forgets_what_ended_and_keeps_what_did_not() -> None:
    config = explore_config(V2, ("D3",), max_requests=3, max_items=1)
    submit = Submit((ClientItem("a"),))
    state = run(config, [submit]).final
    done = Request(0, 0, submit.items, 0, Stage.DONE, Outcome.SUCCESS)
    other = Request(0, 0, submit.items, 1, Stage.DONE, Outcome.REJECTED)
    one, two = state.evolve(requests=(done,)), state.evolve(requests=(other,))
    assert ended(config, one) == frozenset({0})
    assert forgetting_key(config, one) == forgetting_key(config, two)
    failed = state.evolve(requests=(Request(0, 0, submit.items, 0, Stage.DONE,
                                            Outcome.P0_ASSERT),))
    assert forgetting_key(config, failed) != forgetting_key(config, one)  # S3 reads it
    retryable = state.evolve(requests=(Request(0, 0, submit.items, 0, Stage.DONE,
                                               Outcome.MISS),))
    assert ended(config, retryable) == frozenset()
    named = one.evolve(to_engine=(Message(0, 0, ()),))
    assert ended(config, named) == frozenset()  # a message still names it
    assert forgetting_key(config, state) is state  # nothing ended: the state itself


def test_every_stored_state_is_a_real_state_its_path_reaches() -> None:
    config = _three_requests(V0, ("D2",))
    graph = build(config, GraphOptions(forget=True))
    assert graph.complete and graph.forgets
    reductions = graph.reductions()
    for index in range(0, len(graph.states), 53):
        real = run(config, graph.path_to(index)).final
        assert reductions.canonical(real)[0] == graph.states[index]


def test_the_agreement_command_compares_a_named_instance_and_refuses_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m model_checks.explore.forgetting_agreement`: exit 0 with the verdicts
    compared on a small named instance; exit 2 with one line on an unknown variant."""
    from model_checks.explore import forgetting_agreement

    small = "identities=2,requests=2,unfinished=2,items=1,retries=1,budget=1"
    assert forgetting_agreement.main(["--variant", "V3", "--environment", "D2",
                                      "--instance", small]) == 0
    assert "AGREE" in capsys.readouterr().out
    assert forgetting_agreement.main(["--variant", "V9", "--instance", small]) == 2
    assert capsys.readouterr().err.count("\n") == 1
