"""The drift-combinations page's nightly section: rendered from the committed nightly lattice
and its kept outcomes, it says per liveness property how many of the profile's environments
are decided, and projects what is left from the run's own CPU seconds per exploration; a
missing run renders nothing, a malformed one is an error naming its file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from model_checks.docs import lattice_nightly as nightly
from model_checks.kernel import result_files

DOCS = Path(__file__).resolve().parents[2] / "docs"
RUN = {"profile": "nightly", "command": "c", "explorations": 2, "cut": 1, "states": 900,
       "wall_seconds": 7200.0, "cpu_seconds": 3600.0, "processes": 2, "dask": False,
       "parts": [{"variants": ["V3"], "wall_seconds": 7200.0, "processes": 2}]}


def _entry(variant: str, prop: str, **changes: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "variant": variant, "property": prop, "sources": ["D1", "D2", "D3"], "max_size": 2,
        "max_states": 600_000, "ladder": ["2 requests", "3 requests"],
        "minimal_breaking": [], "undecided_count": 0, "undecided_in_scope": 0,
        "vacuous": "", "traces": [], "run": RUN,
    }
    entry.update(changes)
    return entry


def _root(tmp_path: Path, entries: list[dict[str, Any]], cpu: list[float]) -> Path:
    (tmp_path / "results").mkdir()
    (tmp_path / nightly.NIGHTLY.json).write_text(json.dumps(entries))
    verdicts = {p: "holds" for p in ("L1", "L2", "L3", "L4")}
    outcomes = [{"variant": "V3", "cpu_seconds": c, "complete": c < max(cpu),
                 "verdicts": verdicts, "rung": {p: 1 for p in verdicts}, "cut_at": 2}
                for c in cpu]
    result_files.write(tmp_path / nightly.NIGHTLY.outcomes, {"outcomes": outcomes})
    return tmp_path


def test_the_section_counts_decided_environments_and_projects_the_rest(tmp_path: Path) -> None:
    entries = [_entry("V3", "L1", minimal_breaking=[["D2"]], undecided_in_scope=3),
               _entry("V3", "L2", undecided_in_scope=5, undecided_count=6),
               _entry("V0", "L1", vacuous="no miss reply"), _entry("V3", "S1")]
    root = _root(tmp_path, entries, [360.0, 720.0, 1080.0])
    text = "\n".join(nightly.long_run_section(nightly.load_long_run(root),
                                              nightly.load_kept(root, nightly.NIGHTLY)))
    assert "the 7 sets of at most 2 sources" in text  # 1 + 3 + 3
    assert "**V3 L1**: breaks minimally under D2; answered in 4 of the 7" in text
    assert "**V3 L2**: no break found; answered in 2 of the 7 environments (29 %), 5 undecided" \
        in text
    assert "explored: held to rung 1 (rung 2 cut) in 3 environment(s)." in text
    assert "**V0 L1**: vacuous (no miss reply); answered in 7 of the 7" in text
    assert "V3 S1" not in text  # safety answers are the main lattice's, for every instance
    # the most any property leaves, priced at the median of all (720 s) and of the cut (1080)
    assert "V3: at least 5 explorations left, about 1.0-1.5 CPU-hours" in text
    assert "V0: every environment of the run answered" in text
    assert "2.00 hours wall and 1.00 CPU-hours with 2 worker process(es)" in text


def test_no_committed_run_renders_nothing_and_a_bad_file_is_named(tmp_path: Path) -> None:
    assert nightly.load_long_run(tmp_path) is None
    assert nightly.long_run_section(None, []) == []
    (tmp_path / "results").mkdir()
    (tmp_path / nightly.NIGHTLY.json).write_text(json.dumps([{"variant": "V3"}]))
    with pytest.raises(nightly.NightlyFileError, match=r"lattice-nightly\.json"):
        nightly.load_long_run(tmp_path)


def test_the_committed_run_covers_every_variant_and_leaves_no_orphan_witness() -> None:
    from model_checks.docs import lattice_page as lat

    for run in nightly.LONG_RUNS:
        entries = nightly.load_long_run(DOCS, run)
        assert entries is not None, f"docs/{run.json} is not committed: {run.command()}"
        assert {e["variant"] for e in entries} == {"V0", "V1", "V2", "V3"}
        assert entries[0]["run"]["profile"] == "nightly"
        assert not lat.orphans(DOCS, entries, run.witnesses)
