"""The lattice's generated page and questions.md region: rendered from the committed JSON,
every committed witness replays on the spec, completeness is said in words, and a missing
region or an unreferenced witness is reported."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from model_checks.docs import lattice_page as lat
from model_checks.kernel import result_files
from model_checks.kernel.trace_file import replay_file
from spec import VARIANT_NAMES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_committed_witness_replays_and_breaks_its_property() -> None:
    """If this fails after a spec change, regenerate: the command in lattice_page."""
    entries = lat.load(DOCS)
    witnesses = [(e, w) for e in entries for w in e["traces"]]
    assert witnesses, "the committed lattice has no witness"
    for entry, witness in witnesses:
        path = DOCS.parent / witness["trace"]
        replayed = replay_file(path)
        assert replayed.property_id == entry["property"]
        assert replayed.recorded_step == witness["steps"]
        if "loop" not in result_files.read(path):  # a lasso: no last step
            assert replayed.step == witness["steps"], witness["trace"]


def test_the_committed_lattice_explored_something_and_names_its_instance() -> None:
    entries = lat.load(DOCS)
    assert {e["variant"] for e in entries} == set(VARIANT_NAMES)
    assert all(e["explored_environments"] > 0 and e["explored_states"] > 0 for e in entries)
    assert all("budget 2" in e["instance"] for e in entries)
    assert not lat.orphans(DOCS, entries)


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "variant": "V2", "property": "S1", "instance": "tiny", "sources": ["D5", "D7"],
        "max_size": 1, "max_states": 10, "minimal_breaking": [], "holds_everywhere": False,
        "complete": True, "undecided_count": 0, "undecided_smallest": [],
        "unsettled_breaking": [], "traces": [], "explored_environments": 1,
        "explored_states": 5, "ladder": ["2 requests"], "run": _run(),
    }
    entry.update(changes)
    return entry


def test_answers_say_how_complete_they_are() -> None:
    assert "holds under every environment" in lat.answer(_entry(holds_everywhere=True))
    witness = {"drift": ["D5", "D7"], "steps": 9, "states": 5, "checker": "explore-lattice",
               "rung": "3 requests", "held_short": "2 requests", "rung_short": "3 requests",
               "trace": "docs/results/lattice/V2_D5+D7_S1.json.gz"}
    done = lat.answer(_entry(minimal_breaking=[["D5", "D7"]], traces=[witness]))
    assert "D5 (several front ends share one engine) + D7" in done
    assert "[9-step trace](results/lattice/V2_D5+D7_S1.json.gz)" in done
    assert "holds with 2 requests, breaks with 3 requests" in done
    assert "complete: every environment decided" in done
    cut = lat.answer(_entry(complete=False, undecided_count=2, undecided_smallest=[["D5"]]))
    assert "no breaking environment found with 2 requests" in cut
    assert "2 environment(s) undecided" in cut
    assert "D5, cut by the state limit" in cut


def test_questions_without_the_region_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "questions.md").write_text("# Questions\n\nno region here\n")
    with pytest.raises(lat.LatticeFileError, match="no region between"):
        lat.splice_questions(tmp_path, [_entry()])


def test_an_unreferenced_witness_is_extra(tmp_path: Path) -> None:
    shutil.copytree(DOCS / "results", tmp_path / "results")
    (tmp_path / lat.WITNESSES / "V9_D1_S1.json").write_text("{}\n")
    assert lat.orphans(tmp_path, lat.load(tmp_path)) == [f"{lat.WITNESSES}/V9_D1_S1.json"]


def test_an_unreadable_lattice_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / lat.LATTICE).write_text("{not json")
    with pytest.raises(lat.LatticeFileError, match="unreadable lattice result"):
        lat.load(tmp_path)


def _run(**changes: Any) -> dict[str, Any]:
    run: dict[str, Any] = {
        "profile": "ci", "command": "python -m model_checks explore --lattice",
        "explorations": 12, "cut": 1, "states": 3456, "wall_seconds": 78.9,
        "cpu_seconds": 150.2, "processes": 2, "dask": False, "resumed_explorations": 0,
        "evidence": 7, "proofs": 3,
    }
    run.update(changes)
    return run


def test_the_page_states_the_run_that_wrote_the_json() -> None:
    """The page's produced-by line is generated from the run the JSON records: command,
    profile rung by rung, explorations, states, workers (never one run's wall or CPU time);
    a JSON without a run record, or naming no profile, is an error, not a guessed command."""
    from model_checks.explore.lattice_profiles import LATTICE_PROFILES

    line = lat._produced_by({"run": _run()})
    assert LATTICE_PROFILES["ci"].words() in line
    assert "run with 2 worker process(es)" in line
    assert "78.9" not in line and "150.2" not in line
    assert "12 explorations" in line and "3,456 states" in line
    parts = lat._produced_by({"run": _run(parts=[
        {"variants": ["V1", "V2"], "wall_seconds": 10.5, "processes": 2},
        {"variants": ["V3"], "wall_seconds": 7, "processes": 1}])})
    assert "V1+V2 with 2 process(es), V3 with 1 process(es)" in parts
    assert "run in 2 parts: V1+V2" in parts and "10.5" not in parts
    assert "7 replayed breaks" in parts
    with pytest.raises(lat.LatticeFileError, match="no run record"):
        lat._produced_by({})
    with pytest.raises(lat.LatticeFileError, match="no lattice profile"):
        lat._produced_by({"run": _run(profile="weekly")})


def test_a_break_found_elsewhere_is_never_answered_no_break_found() -> None:
    """A break from another checker, merged as evidence, is the answer (with its checker
    and instance); "no breaking environment found" names its rung."""
    witness = {"drift": ["D2", "D7"], "steps": 10, "checker": "z3-bmc",
               "instance": "identities a,b,c; 4 requests", "found_by": ["z3-bmc"],
               "held_short": "3 requests", "rung_short": None,
               "trace": "docs/results/lattice/V2_D2+D7_S1.json.gz"}
    text = lat.answer(_entry(minimal_breaking=[["D2", "D7"]], traces=[witness]))
    assert "no breaking environment" not in text
    assert "Z3, its instance: identities a,b,c; 4 requests" in text
    assert "the explorer holds it with 3 requests" in text
    held = lat.answer(_entry(holds_up_to="3 requests (2 unfinished)"))
    assert "no breaking environment found with 3 requests (2 unfinished)" in held


def test_the_plain_answer_names_the_shared_source_first() -> None:
    sets = [["D1", "D7"], ["D5", "D7"]]
    traces = [{"drift": s, "steps": 9, "trace": "x.json"} for s in sets]
    lines = lat.plain("V2", [_entry(minimal_breaking=sets, traces=traces)])
    assert lines == ["- V2 pairs a stale tensor (S1) when D7 (identity reused for new "
                     "content) meets any of: D1 (reordered delivery); D5 (several front ends "
                     "share one engine)."]


GENERATED_PAGES = sorted(p for p in DOCS.rglob("*.md")
                         if p.read_text().startswith("<!-- Generated"))


def _explorer_cells(text: str) -> list[str]:
    """Every table cell under a column whose header (the row above a `|---|` line) names the
    explorer."""
    lines = text.splitlines()
    cells: list[str] = []
    columns: list[int] = []
    for number, line in enumerate(lines):
        if not line.startswith("|"):
            columns = []
            continue
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if following.startswith("|---") or following.startswith("| ---"):
            columns = [i for i, c in enumerate(row) if "explore" in c.lower()]
            continue
        if line.startswith("|---"):
            continue
        cells += [row[i] for i in columns if i < len(row)]
    return cells


def test_no_generated_page_says_an_explorer_result_holds_for_all_depths() -> None:
    """Every generated page: an explorer proof is for its instance, never "all depths" (the
    explorer's columns, every sentence naming the explorer's instance, the lattice page);
    the check can fail on the wording it replaced."""
    assert GENERATED_PAGES
    for page in GENERATED_PAGES:
        text = page.read_text()
        for cell in _explorer_cells(text):
            assert "all depths" not in cell, (page.name, cell)
        for sentence in re.split(r"\. |\n", text.replace("|", "\n")):
            if "explorer's instance" in sentence or "for its instance" in sentence:
                assert "all depths" not in sentence, (page.name, sentence)
    old = "| explorer |\n|---|\n| proved for all depths, for its instance: a |\n"
    assert any("all depths" in c for c in _explorer_cells(old))
    lattice = (DOCS / "drift-combinations.md").read_text()
    assert "all depths" not in lattice.replace("for all depths and every instance", "")
