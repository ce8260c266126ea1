"""The drift lattice: its monotonicity lemma (and a non-monotone family failing the same
check), the pruned search against brute force over every subset, the command's JSON,
witnesses and bad input."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.docs.lattice_page import answer
from model_checks.explore import lattice_command
from model_checks.explore.exploration import antichain_minimal
from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.instance import explore_config
from model_checks.explore.lattice import (
    BREAKS,
    HOLDS,
    EnvOutcome,
    EnvTask,
    LatticeContradiction,
    LatticeRequest,
    search,
    seeded,
)
from model_checks.explore.lattice_instance import Rung, lattice_config
from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.explore.lattice_report import summarise
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.explore.lru_judging.monotone import lift_failure
from model_checks.kernel.trace_file import replay_file
from spec import ALL_DRIFT, Config, variant_named

SOURCES = tuple(sorted((d.value for d in ALL_DRIFT), key=lambda d: int(d[1:])))


def _sampled_paths(config: Config, count: int) -> list[list[object]]:
    """Shortest paths to `count` states spread over the (breadth-first) graph, deepest last."""
    graph = build(config, GraphOptions(reduce=False, max_states=4000))
    step = max(1, len(graph.states) // count)
    return [graph.path_to(i) for i in [*range(0, len(graph.states), step), len(graph.states) - 1]]


@pytest.mark.parametrize(("variant", "below"), [
    ("V2", ()), ("V1", ("D7",)), ("V3", ("D1", "D7")), ("V0", ("D5",)), ("V2", ("D9", "D11")),
])
def test_the_lattice_family_is_monotone(variant: str, below: tuple[str, ...]) -> None:
    """The lemma: every run of lattice_config(E) is, embedded, a run of lattice_config(E+d)
    with the same verdicts, for every d outside E (runs: shortest paths to states all over
    E's graph)."""
    shape = Rung()
    small = lattice_config(variant_named(variant), below, shape)
    paths = _sampled_paths(small, 30)
    for drift in (d for d in SOURCES if d not in below):
        large = lattice_config(variant_named(variant), (*below, drift), shape)
        for path in paths:
            assert lift_failure(small, large, path) is None, (drift, path)  # type: ignore[arg-type]


def test_the_per_cell_family_is_not_monotone() -> None:
    """The same check fails on the explorer's per-cell instance: D9 skews b, so a run using b
    without D9 reaches other states with it (the check can fail)."""
    small = explore_config(variant_named("V2"), ("D7",))
    large = explore_config(variant_named("V2"), ("D7", "D9"))
    failures = [lift_failure(small, large, p) for p in _sampled_paths(small, 60)]  # type: ignore[arg-type]
    assert any(f is not None for f in failures)


NARROW = Rung(max_items=1)
"""One item per request: graphs small enough for a brute force over every subset."""


def _brute_force(variant: str, sources: tuple[str, ...]) -> dict[str, set[frozenset[str]]]:
    """Per property, the breaking environments among every subset (all graphs complete)."""
    broken: dict[str, set[frozenset[str]]] = {}
    for size in range(len(sources) + 1):
        for env in itertools.combinations(sources, size):
            outcome = LRU_LATTICE.explore(EnvTask(variant, env, NARROW, 30_000))
            assert outcome.complete
            for prop, verdict in outcome.verdicts.items():
                broken.setdefault(prop, set())
                if verdict == BREAKS:
                    broken[prop].add(frozenset(env))
                else:
                    assert verdict == HOLDS
    return broken


def test_pruned_search_agrees_with_brute_force() -> None:
    """On a restriction (V1, D2, D7, D10), the search's minimal breaking sets and
    holds-everywhere answers are those of exploring all 8 subsets, with fewer explorations;
    S1's minimal set is a pair (D7+D10: identity reuse and a restart, the cache wins)."""
    sources = ("D2", "D7", "D10")
    request = LatticeRequest(("V1",), sources, max_size=3, ladder=(NARROW,),
                             design=LRU_LATTICE, processes=1)
    known = search(request)
    entries = {e["property"]: e for e in summarise(request, known)}
    for prop, breaking in _brute_force("V1", sources).items():
        entry = entries[prop]
        expected = sorted(sorted(e, key=lambda d: int(d[1:])) for e in antichain_minimal(breaking))
        assert sorted(entry["minimal_breaking"]) == expected, prop
        assert entry["holds_everywhere"] == (not breaking), prop
        assert entry["complete"] and not entry["unsettled_breaking"], prop
    assert entries["S1"]["minimal_breaking"] == [["D7", "D10"]]
    assert len(known["V1"].explored) < 2 ** len(sources)


def test_lattice_command_writes_json_and_replayable_witnesses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target, out = tmp_path / "lattice.json", tmp_path / "traces"
    code = main(["explore", "--lattice", "--variant", "V1", "--sources", "D7+D10",
                 "--max-requests", "2", "--identities", "2",
                 "--jobs", "1", "--json", str(target), "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    entries = json.loads(target.read_text())
    assert {e["property"] for e in entries} >= {"S1", "S2", "S3", "S4", "H1"}
    for entry in entries:
        assert {"variant", "property", "instance", "minimal_breaking",
                "holds_everywhere"} <= set(entry)
        for witness in entry["traces"]:
            assert witness["trace"].endswith(".json.gz")  # kept compressed, read as is
            replayed = replay_file(Path(witness["trace"]))
            assert replayed.property_id == entry["property"]
            assert replayed.step == witness["steps"]
    s1 = next(e for e in entries if e["property"] == "S1")
    assert s1["minimal_breaking"] == [["D7", "D10"]] and not s1["holds_everywhere"]
    s2 = next(e for e in entries if e["property"] == "S2")
    assert s2["holds_everywhere"] and s2["complete"]
    assert "V1 S1: minimal breaking: D7+D10" in printed


def test_a_lattice_that_explores_nothing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from model_checks.explore.lattice import Knowledge

    monkeypatch.setattr(lattice_command, "search",
                        lambda request, checkpoint=None: {v: Knowledge()
                                                          for v in request.variants})
    code = main(["explore", "--lattice", "--variant", "V1", "--sources", "D7",
                 "--json", str(tmp_path / "l.json"), "--out", str(tmp_path / "t")])
    assert code == 1
    assert "nothing was checked" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["explore", "--lattice", "--sources", "D1+D12"],
    ["explore", "--lattice", "--variant", "V9"],
    ["explore", "--lattice", "--environment", "D1"],
    ["explore", "--lattice", "--max-size", "-1"],
    ["explore", "--lattice", "--jobs", "0"],
    ["explore", "--sources", "D1"],
])
def test_bad_lattice_input_is_one_line_and_exit_2(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "lattice.json"
    assert main([*argv, "--json", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert not target.exists()


def test_the_nightly_job_runs_a_lattice_phase(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The nightly job's lattice phase: its JSON is the lattice's (not verdict records), and
    it is not given the cross-check the matrix explorer gets. Under D7 alone V1 breaks S4
    (the old content served) and, on the wide family (a's second content is 2 bytes, two
    items per request), S3 and L4: a reused identity's larger entry is a probed hit that the
    request's own smaller insert evicts, and P0's assertion fails the request."""
    from model_checks import cli
    from model_checks.jobs import phases
    from model_checks.jobs.phases import lattice

    monkeypatch.chdir(tmp_path)
    phase = lattice("--variant", "V1", "--sources", "D7", "--jobs", "1",
                    "--max-requests", "2", "--identities", "2")
    assert phase.argv[:2] in {p.argv[:2] for p in phases.NIGHTLY if p.output is phase.output}
    monkeypatch.setattr(phases, "NIGHTLY", (phase,))
    out = tmp_path / "nightly" / "records.json"
    assert cli.main(["nightly", "--json", str(out)]) == 0, capsys.readouterr().out
    entries = json.loads((tmp_path / "nightly" / "parts" / "2-explore.json").read_text())
    assert {e["property"] for e in entries if e["minimal_breaking"] == [["D7"]]} == {
        "S3", "S4", "L4"}


def test_v0_l1_to_l3_are_vacuous_everywhere_and_the_seed_is_checked() -> None:
    """V0 reports no miss (its engine crashes), so the search seeds L1-L3 as holding in every
    environment, with the reason, and the JSON says vacuous; every V0 exploration still
    judges them: L1 and L2 come out vacuous (no miss reply is ever taken), L3 too (no retry
    follows a miss), and nothing breaks.
    V1, which reports misses, gets no such seed."""
    sources = ("D1", "D10")
    request = LatticeRequest(("V0", "V1"), sources, max_size=2, ladder=(Rung(),),
                             design=LRU_LATTICE, processes=1)
    known = search(request)
    entries = {(e["variant"], e["property"]): e for e in summarise(request, known)}
    for prop in ("L1", "L2", "L3"):
        assert entries[("V0", prop)]["vacuous"] and entries[("V0", prop)]["holds_everywhere"]
        assert not entries[("V1", prop)]["vacuous"]
        assert "vacuous under every environment" in answer(entries[("V0", prop)])
    for outcome in known["V0"].explored:
        assert outcome.complete
        for prop in ("L1", "L2", "L3"):
            assert outcome.verdicts[prop] == HOLDS
    graph = build(lattice_config(variant_named("V0"), ("D1", "D10"), Rung()))
    judged = {j.property_id: j.status for j in judge_all(graph, with_lemmas=False)}
    assert judged["L1"] is Status.VACUOUS and judged["L2"] is Status.VACUOUS
    assert judged["L3"] is Status.VACUOUS  # P1 misses under D1, but the engine crashes there


def test_l3_is_vacuous_only_where_no_retry_follows_a_watched_miss() -> None:
    """The per-cell explorer and the lattice agree on V0's L3: P1 does miss under D1, yet no
    retry ever reaches P1 after the miss (V0's engine crashes at it), so L3 is vacuous, not
    proved. The vacuity check can fail: V1 under D1 retries after its misses, and L3 is
    judged there (proved, with its product's states)."""
    for variant, expected in (("V0", Status.VACUOUS), ("V1", Status.PROVED)):
        graph = build(lattice_config(variant_named(variant), ("D1",), Rung()))
        judged = {j.property_id: j for j in judge_all(graph, with_lemmas=False)}
        assert judged["L3"].status is expected, (variant, judged["L3"].reason)
        if expected is Status.VACUOUS:
            assert "no retry reaches P1 after a miss" in judged["L3"].reason


def test_a_seed_contradicted_by_an_exploration_is_a_defect() -> None:
    """The seed can fail: an exploration that breaks L1 where V0's seed says it holds (as
    V1's D6+D10 exploration does) makes the search raise instead of answering."""
    knowledge = seeded(LRU_LATTICE, ("D6", "D10"), "V0")
    outcome = EnvOutcome("V0", ("D6", "D10"), 10, 3, True, 0.0, {"L1": BREAKS}, {})
    with pytest.raises(LatticeContradiction, match="L1"):
        knowledge.learn(outcome)
    # no seed for a variant that reports misses
    seeded(LRU_LATTICE, ("D6", "D10"), "V1").learn(outcome)
