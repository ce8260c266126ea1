"""The lattice page states which rungs its liveness answers reached, counted from the run's
kept outcomes; an unreadable or incomplete outcomes file is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.docs.lattice_reach import (
    HELD_CUT,
    OutcomesFileError,
    liveness_ids,
    load_outcomes,
    reach_counts,
    reach_section,
    reach_sentence,
)
from model_checks.explore.lattice import BREAKS, HOLDS, UNDECIDED
from spec import Kind, by_id

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_liveness_ids_are_the_registrys_liveness_properties() -> None:
    assert liveness_ids()
    assert all(by_id(p).kind is Kind.LIVENESS for p in liveness_ids())


def test_every_explored_environment_is_counted_once_per_liveness_property() -> None:
    """Per variant and liveness property the counts add up to the variant's explored
    environments, and the committed page carries the section with a line for each."""
    outcomes = load_outcomes(DOCS)
    page = (DOCS / "drift-combinations.md").read_text()
    assert "## Which rungs the liveness answers reached" in page
    for variant in sorted({o["variant"] for o in outcomes}):
        explored = sum(o["variant"] == variant for o in outcomes)
        for prop in liveness_ids():
            counts = reach_counts(outcomes, variant, prop)
            assert sum(counts.values()) == explored
            assert f"- **{variant} {prop}**: {reach_sentence(counts)}." in page


def _outcome(verdict: str, rung: int, cut_at: int | None = None) -> dict[str, object]:
    props = liveness_ids()
    return {"variant": "V2", "environment": ["D1"], "cut_at": cut_at,
            "verdicts": dict.fromkeys(props, verdict), "rung": dict.fromkeys(props, rung)}


def test_a_hold_below_a_cut_rung_is_told_apart_from_a_climb_that_stopped() -> None:
    prop = liveness_ids()[0]
    counts = reach_counts([_outcome(HOLDS, 0), _outcome(HOLDS, 0, cut_at=1),
                           _outcome(BREAKS, 1), _outcome(UNDECIDED, 0, cut_at=0)], "V2", prop)
    assert counts == {(HOLDS, 0): 1, (HELD_CUT, 0): 1, (BREAKS, 1): 1, (UNDECIDED, 0): 1}
    text = reach_sentence(counts)
    assert text.index("held to rung 0 in") < text.index("(rung 1 cut)") < text.index(
        "broke first at rung 1") < text.index("undecided (cut) at rung 0")
    assert reach_sentence(reach_counts([], "V2", prop)) == "not explored"
    lines = reach_section([_outcome(HOLDS, 1)], ["V2"], ["small", "large"])
    assert any("0: small / 1: large" in line for line in lines)


@pytest.mark.parametrize("content", ["not json", json.dumps({"format": "x"}),
                                     json.dumps({"outcomes": {"a": 1}})])
def test_an_unreadable_outcomes_file_is_a_clear_error(tmp_path: Path, content: str) -> None:
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "lattice-outcomes.json").write_text(content)
    with pytest.raises(OutcomesFileError, match=r"lattice-outcomes\.json"):
        load_outcomes(tmp_path)


def test_an_outcome_without_the_property_is_a_clear_error() -> None:
    broken = _outcome(HOLDS, 0)
    broken["rung"] = {}
    with pytest.raises(OutcomesFileError, match=r"no verdict and rung for L"):
        reach_counts([broken], "V2", liveness_ids()[0])
