"""The lattice's generated page and questions.md region: rendered from the committed JSON,
every committed witness replays on the spec, completeness is said in words, and a missing
region or an unreferenced witness is reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from model_checks.docs import lattice_page as lat
from model_checks.simulate.counterexample import replay_file

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
        if "cycle_from" not in json.loads(path.read_text())["#meta"]:  # a lasso: no last step
            assert replayed.step == witness["steps"], witness["trace"]


def test_the_committed_lattice_explored_something_and_names_its_instance() -> None:
    entries = lat.load(DOCS)
    assert {e["variant"] for e in entries} == {"V0", "V1", "V2", "V3"}
    assert all(e["explored_environments"] > 0 and e["explored_states"] > 0 for e in entries)
    assert all("budget 2" in e["instance"] for e in entries)
    assert not lat.orphans(DOCS, entries)


def _entry(**changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "variant": "V2", "property": "S1", "instance": "tiny", "sources": ["D5", "D7"],
        "max_size": 1, "max_states": 10, "minimal_breaking": [], "holds_everywhere": False,
        "complete": True, "undecided_count": 0, "undecided_smallest": [],
        "unsettled_breaking": [], "traces": [], "explored_environments": 1,
        "explored_states": 5,
    }
    entry.update(changes)
    return entry


def test_answers_say_how_complete_they_are() -> None:
    assert "holds under every environment" in lat.answer(_entry(holds_everywhere=True))
    witness = {"drift": ["D5", "D7"], "steps": 9, "states": 5,
               "trace": "docs/results/lattice/V2_D5+D7_S1.json"}
    done = lat.answer(_entry(minimal_breaking=[["D5", "D7"]], traces=[witness]))
    assert "D5 (several front ends share one engine) + D7" in done
    assert "[9-step trace](results/lattice/V2_D5+D7_S1.json)" in done
    assert "complete: every environment decided" in done
    cut = lat.answer(_entry(complete=False, undecided_count=2, undecided_smallest=[["D5"]]))
    assert "no breaking environment found" in cut and "2 environment(s) undecided" in cut
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


def test_the_page_names_the_profile_that_wrote_the_json() -> None:
    """The page's command is the one whose profile searched the committed JSON's depth and
    state limit; a JSON no profile writes is an error, not a guessed command."""
    from model_checks.explore.lattice_command import LATTICE_PROFILES

    size, states = LATTICE_PROFILES["nightly"]
    nightly = lat._produced_by({"max_size": size, "max_states": states})
    assert "--profile nightly` (the nightly lattice profile)" in nightly
    size, states = LATTICE_PROFILES["ci"]
    assert "--profile" not in lat._produced_by({"max_size": size, "max_states": states})
    with pytest.raises(lat.LatticeFileError, match="no lattice profile"):
        lat._produced_by({"max_size": 7, "max_states": 5})
