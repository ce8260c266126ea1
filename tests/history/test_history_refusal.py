"""The engine's refusal (D2) driven through the front end's own refusal path, on pairs written
without the harness's hooks whose engine declares how it refuses (`adapter.Refuses`):
`tests/history/planted_pair.py`'s refusal pairs. A front end that keeps what the refused
attempt recorded and one that undoes it both pass, in lockstep and in the concurrent runs,
and the report says which choice it observed; one whose undo also drops the request's hits
(entries an earlier accepted request recorded, which the engine holds) is caught at the
defaults (`--profile ci`) at every seed 1-5; the report says how many refusals ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from history_helpers import conform

from model_checks.conform import adapter as api
from model_checks.history.explain import Explained, Unexplained, explain
from model_checks.history.log import (
    Call,
    Header,
    History,
    Input,
    Item,
    Result,
    read_log,
    write_log,
)
from model_checks.history.recorder import Refused, can_refuse
from spec import environment
from tests.history.planted_pair import EngineRefused, factory_refusal_keeps

DEPLOYED = "D1+D2+D3+D4+D5+D9+D10+D11"
PLANTED = "tests.history.planted_pair"
SEEDS = [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow),
         pytest.param(4, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow)]
CLEAN = ("factory_refusal_keeps", "factory_refusal_undoes")


def gate(adapter: str, seed: int, *mode: str) -> tuple[int, str]:
    """`conform --adapter PLANTED:ADAPTER [MODE] --seed SEED` in the deployment's environment
    at the CI profile (the default); no mode: lockstep."""
    code, out, _ = conform("--adapter", f"{PLANTED}:{adapter}", *mode, "--seed", str(seed),
                           "--environment", DEPLOYED)
    return code, " ".join(out.split())


@pytest.mark.parametrize("seed", SEEDS)
def test_a_refusal_that_undoes_the_hits_is_caught_in_lockstep_at_every_seed(seed: int
                                                                             ) -> None:
    code, out = gate("factory_refusal_undoes_hits", seed)
    assert code == 1 and "RESULT: DISAGREEMENT" in out, out
    assert "caught by shadow 0" in out, out
    assert "tested by lockstep: the engine's refusal (D2):" in out


@pytest.mark.parametrize("seed", SEEDS)
def test_a_refusal_that_undoes_the_hits_is_caught_by_threads_at_every_seed(seed: int
                                                                           ) -> None:
    code, out = gate("factory_refusal_undoes_hits", seed, "--threads", "4")
    assert code == 1 and "RESULT: NOT EXPLAINED" in out, out
    assert "-> refused" in out and "RACE on" not in out, out


@pytest.mark.parametrize("adapter", CLEAN)
def test_a_refusal_kept_or_undone_conforms_in_lockstep(adapter: str, tmp_path: Path) -> None:
    code, out = gate(adapter, 1, "--json", str(tmp_path / "run.json"))
    assert code == 0 and "RESULT: CONFORMS" in out, out
    choice = "keeps" if adapter.endswith("keeps") else "undoes"
    observed = out.split("implementation choices observed")[1].split(" x")[0]
    assert f"{choice} its shadow update on a rejection (D2)" in observed, out
    assert "tested by lockstep: the engine's refusal (D2):" in out
    assert "rejections run through the front end's own end-to-end call" in out
    written = json.loads((tmp_path / "run.json").read_text())
    assert written["refusals"] > 0
    assert set(written["choices"]) == {f"{choice} its shadow update on a rejection (D2)"}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("mode", ["threads", pytest.param("async-clients", marks=pytest.mark.slow)])
@pytest.mark.parametrize("adapter", CLEAN)
def test_a_refusal_kept_or_undone_is_explained_at_every_seed(adapter: str, mode: str,
                                                            seed: int) -> None:
    code, out = gate(adapter, seed, f"--{mode}", "4")
    assert code == 0 and "RESULT: EXPLAINED" in out, out
    assert "RACE on" not in out and "split front-end sections: none" in out, out


def test_the_report_says_how_many_refusals_ran_and_which_choice(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    code, out = gate("factory_refusal_keeps", 3, "--threads", "4", "--json", str(path))
    assert code == 0, out
    assert "tested: the engine's refusal: 9 requests refused after P0's update (D2)" in out
    assert "alone on their front end" in out
    assert "the choice observed where keeping and undoing differ: keeps its shadow" in out
    assert "P0HandleRejected x" in out  # the explanations' coverage of the spec's actions
    assert "never tested:" in out and "the engine's refusal (D2" not in out.split(
        "never tested:")[1]
    assert "tested: in flight:" in out  # restarts in flight: D10 is in the environment
    tested = json.loads(path.read_text())["tested"]
    assert tested["refused"] == 9 and tested["refusals_read"] > 0
    assert set(tested["refusal_choices"]) == {"keeps its shadow update on a rejection (D2)"}


def test_without_a_declared_refusal_the_report_says_none_ran() -> None:
    code, out, _ = conform("--adapter", "tests.history.hookless_pair:factory", "--threads",
                           "4", "--seed", "1", "--environment", DEPLOYED)
    text = " ".join(out.split())
    assert code == 0 and "tested: the engine's refusal: none made" in text, out
    assert "the engine's refusal (D2: made only where" in text.split("never tested:")[1]
    code, out, _ = conform("--adapter", "tests.history.hookless_pair:factory", "--seed", "1",
                           "--environment", "D2")
    assert "the engine's refusal (D2): never run through the front end's own refusal path" \
        in " ".join(out.split())


def test_the_harness_refuses_only_where_the_engine_says_how() -> None:
    from model_checks.conform.codec import process_media

    setup = api.Setup(3, "V2", 1, process_media)
    keeps = factory_refusal_keeps()
    engine = keeps.engine(setup)
    assert isinstance(engine, api.Refuses) and can_refuse(keeps.front_end(setup, 0), engine)
    from tests.history.hookless_pair import factory

    plain = factory()
    assert not can_refuse(plain.front_end(setup, 0), plain.engine(setup))
    refusing = api.RefusingEngine(engine)
    with pytest.raises(EngineRefused):
        refusing.receive(api.WireMessage(7, ()))
    assert api.refused_by(refusing, EngineRefused("again"))
    assert not api.refused_by(refusing, RuntimeError("other"))
    assert engine.receiver() == ()  # the refusal read nothing


def test_a_refused_call_round_trips_through_the_log(tmp_path: Path) -> None:
    from tests.history.history_helpers import reference_log

    history = reference_log()
    first = history.calls[0]
    refused = type(first)(first.number, first.client, first.side, "serve", first.items,
                          first.invoked, first.returned, Result("refused", shadow_after=("a",)),
                          first.hints)
    changed = type(history)(history.header, (refused, *history.calls[1:]))
    path = tmp_path / "log.jsonl"
    write_log(path, changed)
    assert read_log(path).calls[0].result == Result("refused", shadow_after=("a",))
    assert Refused(("a",)).shadow == ("a",)


def _refusal_history(shadow_after: tuple[str, ...] | None) -> History:
    """fe0 serves [a], then the engine refuses [a b] (a a hit, b recorded by the attempt);
    `shadow_after`: what fe0's shadow held once it handled the refusal."""
    served = Result("served", inputs=(Input("a", "a", "a"),))
    return History(Header("V2", 3, 1, ("D2",), "test"), (
        Call(0, "c", "fe0", "serve", (Item("a", "a", 1),), 1, 2, served),
        Call(1, "c", "fe0", "serve", (Item("a", "a", 1), Item("b", "b", 1)), 3, 4,
             Result("refused", shadow_after=shadow_after)),
    ))


@pytest.mark.parametrize(("shadow", "choices"), [
    (("a", "b"), ("keeps its shadow update on a rejection (D2)",)),
    (("a",), ("undoes its shadow update on a rejection (D2)",)),
    (None, ()),  # not read: either choice explains it, none is observed
])
def test_a_refusal_is_explained_by_either_choice_and_says_which(
        shadow: tuple[str, ...] | None, choices: tuple[str, ...]) -> None:
    verdict = explain(_refusal_history(shadow), environment("D2"))
    assert isinstance(verdict, Explained) and verdict.choices == choices


@pytest.mark.parametrize("shadow", [(), ("b",)])
def test_a_refusal_that_drops_an_earlier_entry_is_not_explained(shadow: tuple[str, ...]
                                                                ) -> None:
    assert isinstance(explain(_refusal_history(shadow), environment("D2")), Unexplained)
    assert isinstance(explain(_refusal_history(("a",)), environment()), Unexplained)  # no D2
