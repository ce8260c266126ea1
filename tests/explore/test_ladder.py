"""The instance ladder: rungs only add behaviours (the lift check on runs, and a break at rung
k found again at rung k+1), the climb reports a break at the smallest rung with the rung below
that held it, the options are the same words on `explore` and `explore --lattice`, and bad
rung options are one line and exit 2."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.docs.lattice_page import answer
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.lattice import (
    BREAKS,
    HOLDS,
    EnvOutcome,
    EnvTask,
    LatticeContradiction,
    LatticeRequest,
    seeded,
)
from model_checks.explore.lattice_instance import (
    Rung,
    describe_family,
    ladder,
    lattice_config,
)
from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.explore.lattice_profiles import BASE_RUNG, LATTICE_PROFILES
from model_checks.explore.lattice_report import summarise
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.explore.lru_judging.monotone import lift_failure
from spec import Config, variant_named

SMALL = Rung(max_requests=2, max_in_flight=2, max_retries=2, identities=2)


def _paths(config: Config, count: int) -> list[list[object]]:
    graph = build(config, GraphOptions(reduce=False, max_states=3000))
    step = max(1, len(graph.states) // count)
    return [graph.path_to(i) for i in [*range(0, len(graph.states), step), len(graph.states) - 1]]


@pytest.mark.parametrize(("variant", "env", "larger"), [
    ("V1", ("D7",), Rung(3, 2, 2, 2)),
    ("V2", ("D1", "D7"), Rung(2, 2, 2, 3)),
    ("V3", ("D8",), Rung(2, 2, 3, 2)),
    ("V0", ("D5", "D9"), Rung(3, 3, 2, 3)),
])
def test_every_run_of_a_rung_is_a_run_of_every_rung_above(
    variant: str, env: tuple[str, ...], larger: Rung
) -> None:
    """The ladder half of the lemma: runs of (E, r) are runs of (E, r') for r' covering r,
    with the same states and verdicts (shortest paths to states all over the graph)."""
    small = lattice_config(variant_named(variant), env, SMALL)
    large = lattice_config(variant_named(variant), env, larger)
    assert larger.covers(SMALL)
    for path in _paths(small, 25):
        assert lift_failure(small, large, path) is None, path  # type: ignore[arg-type]


def test_a_rung_that_does_not_cover_loses_runs() -> None:
    """The check can fail: fewer retries is not a rung above, and a run that retries twice
    does not lift to it."""
    small = lattice_config(variant_named("V1"), ("D1",), SMALL)
    fewer = lattice_config(variant_named("V1"), ("D1",), Rung(3, 2, 0, 2))
    assert not Rung(3, 2, 0, 2).covers(SMALL)
    failures = [lift_failure(small, fewer, p) for p in _paths(small, 80)]  # type: ignore[arg-type]
    assert any(f is not None for f in failures)


def test_a_break_at_one_rung_is_a_break_at_the_next() -> None:
    """On small cases: every property broken at rung k is broken at rung k + 1 (with a trace
    no longer), and every property holding at k + 1 holds at k."""
    rungs = ladder(Rung(1, 1, 1, 2), Rung(2, 2, 1, 2))
    for variant, env in (("V1", ("D7", "D10")), ("V2", ("D2",)), ("V0", ("D1",))):
        verdicts = []
        for rung in rungs:
            graph = build(lattice_config(variant_named(variant), env, rung))
            assert graph.complete
            verdicts.append({j.property_id: j for j in judge_all(graph, with_lemmas=False)})
        for below, above in itertools.pairwise(verdicts):
            for prop, judgement in below.items():
                if judgement.status is Status.COUNTEREXAMPLE:
                    assert above[prop].status is Status.COUNTEREXAMPLE, (variant, env, prop)
                    assert len(above[prop].actions) <= len(judgement.actions)
                if above[prop].status is Status.PROVED:
                    assert judgement.status in (Status.PROVED, Status.VACUOUS)


def test_the_ladder_climbs_one_request_at_a_time_and_checks_its_order() -> None:
    rungs = ladder(BASE_RUNG, Rung(4, 2, 2, 3))
    assert [r.max_requests for r in rungs] == [2, 3, 4]
    assert all(b.covers(a) for a, b in itertools.pairwise(rungs))
    with pytest.raises(ValueError, match="must cover the base rung"):
        ladder(BASE_RUNG, Rung(3, 2, 1, 3))
    with pytest.raises(ValueError, match="identities must be an int >= 1"):
        Rung(identities=0)


def test_the_ladder_reaches_a_rung_that_can_evict_for_capacity() -> None:
    """Three 1-byte identities in the 2-byte budget: at the base rung (two requests of two
    items) a run with no drift evicts for capacity (its family text, read off the
    configuration, says so); two requests of one item meet two identities and cannot, and
    the text says that too."""
    config = lattice_config(variant_named("V1"), (), BASE_RUNG)
    assert sum(config.shadow_bytes(c) for c in config.contents()) > config.budget
    assert "the rung can evict for capacity" in describe_family(BASE_RUNG)
    assert "the rung can evict for capacity" in describe_family(Rung(3, 2, 2, 3, 1))
    assert "the rung cannot evict for capacity" in describe_family(Rung(2, 2, 2, 3, 1))
    assert "the rung cannot evict for capacity" in describe_family(Rung(3, 2, 2, 2))
    text = describe_family(BASE_RUNG, sources=("D7", "D9", "D11"))
    assert "skewed: P0 1 byte, P1 3" in text and "skewed@1" in text


def test_the_climb_reports_the_smallest_breaking_rung_and_the_rung_that_held() -> None:
    """V1 under D7+D10 with one request per run holds S1 (nothing to reuse an identity
    across), breaks it with two: the outcome says both, and the answer in words reads
    'holds with 1 requests, breaks with 2'."""
    rungs = (Rung(1, 1, 2, 2), Rung(2, 2, 2, 2))
    outcome = LRU_LATTICE.explore(EnvTask("V1", ("D7", "D10"), rungs, 30_000))
    assert outcome.verdicts["S1"] == BREAKS and outcome.rung["S1"] == 1
    assert outcome.held["S1"] == 0 and outcome.reached == 1
    request = LatticeRequest(("V1",), ("D7", "D10"), 2, ladder=rungs, design=LRU_LATTICE,
                             processes=1)
    knowledge = seeded(LRU_LATTICE, request.sources, "V1", top=1)
    knowledge.learn(outcome)
    entry = next(e for e in summarise(request, {"V1": knowledge}) if e["property"] == "S1")
    witness = entry["traces"][0]
    assert witness["rung"] == rungs[1].words() and witness["held_below"] == rungs[0].words()
    assert "holds with 1 requests, breaks with 2" in answer(entry)


def test_a_break_below_a_larger_holding_rung_is_a_contradiction() -> None:
    """Monotonicity across rungs is checked on what the search learns: a hold at rung 1 of
    an environment whose subset breaks at rung 0 stops the search."""
    knowledge = seeded(LRU_LATTICE, ("D1", "D2"), "V1", top=1)
    knowledge.learn(EnvOutcome("V1", ("D1",), 10, 3, True, 0.0, {"H1": BREAKS}, {},
                               {"H1": 0}))
    with pytest.raises(LatticeContradiction, match="H1"):
        knowledge.learn(EnvOutcome("V1", ("D1", "D2"), 10, 3, True, 0.0, {"H1": HOLDS}, {},
                                   {"H1": 1}))


@pytest.mark.parametrize("lattice", [False, True])
@pytest.mark.parametrize(("option", "value"), [
    ("--max-requests", "0"), ("--unfinished", "0"), ("--retries", "-1"),
    ("--identities", "0"), ("--max-states", "0"),
])
def test_bad_rung_options_are_one_line_and_exit_2_in_both_commands(
    lattice: bool, option: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "out.json"
    selection = "--sources" if lattice else "--environment"
    argv = ["explore", *(["--lattice"] if lattice else []), "--variant", "V1", selection, "D1",
            option, value, "--json", str(target)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and option in err
    assert not target.exists()


@pytest.mark.parametrize(("option", "value"), [("--items", "0"), ("--reused-bytes", "0")])
def test_bad_family_options_are_one_line_and_exit_2(
    option: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The family's options: below 1 with --lattice, or without --lattice at all, one error
    line, exit 2, nothing written."""
    target = tmp_path / "out.json"
    for argv in (["explore", "--lattice", "--variant", "V1", "--sources", "D1", option, value],
                 ["explore", "--variant", "V1", option, "1"]):
        assert main([*argv, "--json", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1 and option in err
        assert not target.exists()


def test_every_profile_is_documented_rung_by_rung() -> None:
    explore_md = (Path(__file__).resolve().parents[2] / "docs" / "explore.md").read_text()
    for name, profile in LATTICE_PROFILES.items():
        assert profile.top.covers(profile.base)
        assert f"`{name}`: {profile.words()}" in explore_md, name


def test_the_per_cell_explorer_climbs_above_what_it_proves(tmp_path: Path) -> None:
    """`explore --max-requests`: a property the first instance proves is judged again one
    request higher; V1 under D7+D10 holds S1 with one request and breaks it with two, and
    the record says exactly that, with the larger instance."""
    from model_checks.explore.cell_tasks import CellTask, explore_cell
    from model_checks.explore.instance import Shape
    from model_checks.kernel.verdict_records import Verdict
    from spec import V1

    outcome = explore_cell(CellTask(V1, ("D7", "D10"), tmp_path, 30_000, (Shape(1),),
                                   with_lemmas=False, climb=(Shape(2),)))
    s1 = next(r for r in outcome.records if r.property == "S1")
    assert s1.verdict is Verdict.COUNTEREXAMPLE
    assert "holds with 1 requests (proved for that instance), breaks with 2" in s1.detail
    assert "2 requests" in s1.detail
    s2 = next(r for r in outcome.records if r.property == "S2")
    assert s2.verdict is Verdict.PROVED and "2 requests" in s2.detail


def test_a_rung_that_admits_duplicates_covers_one_that_does_not() -> None:
    """Admitting requests that name one identity twice only enables more requests."""
    admitting = Rung(duplicates=True)
    assert admitting.covers(Rung()) and not Rung().covers(admitting)
    assert "an identity may repeat" in admitting.words()
    config = lattice_config(variant_named("V3"), (), admitting)
    assert config.duplicates and not lattice_config(variant_named("V3"), (), Rung()).duplicates


def test_duplicates_need_the_lattice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.json"
    assert main(["explore", "--variant", "V1", "--duplicates", "--json", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "--duplicates" in err
    assert not target.exists()
