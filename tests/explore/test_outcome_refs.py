"""Every trace stored once: kept outcomes refer to the witness files that hold their traces,
and read back as the traces themselves; a reference to a missing file is a clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.explore.outcome_refs import REF, MissingTrace, refer, resolve

ROOT = Path(__file__).resolve().parents[2]
TRACE = {"#meta": {"format": "paired-caches-trace/1"}, "steps": [1, 2, 3]}
OTHER = {"#meta": {"format": "paired-caches-trace/1"}, "steps": [4]}


def _outcomes(tmp_path: Path) -> Path:
    path = tmp_path / "outcomes.json"
    path.write_text(json.dumps({"outcomes": [{"traces": {"S1": TRACE, "H1": OTHER}},
                                             {"traces": {}}]}))
    return path


def test_a_trace_a_witness_holds_is_kept_as_a_reference_and_read_back(tmp_path: Path) -> None:
    path = _outcomes(tmp_path)
    (tmp_path / "witnesses").mkdir()
    (tmp_path / "witnesses" / "V2_D7_S1.json").write_text(json.dumps(TRACE, indent=1))
    assert refer(path, [tmp_path / "witnesses" / "V2_D7_S1.json"]) == 1
    kept = json.loads(path.read_text())["outcomes"]
    assert kept[0]["traces"] == {"S1": {REF: "witnesses/V2_D7_S1.json"}, "H1": OTHER}
    assert resolve(kept, tmp_path)[0]["traces"] == {"S1": TRACE, "H1": OTHER}


def test_a_reference_to_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(MissingTrace, match=r"gone\.json"):
        resolve([{"traces": {"S1": {REF: "gone.json"}}}], tmp_path)


@pytest.mark.parametrize("name", ["lattice", "lattice-nightly", "lattice-single-source"])
def test_every_committed_reference_resolves_to_a_witness_of_its_run(name: str) -> None:
    results = ROOT / "docs" / "results"
    outcomes = json.loads((results / f"{name}-outcomes.json").read_text())["outcomes"]
    refs = [t[REF] for o in outcomes for t in (o.get("traces") or {}).values()
            if isinstance(t, dict) and REF in t]
    assert refs, "no trace is kept by reference: each is stored twice"
    assert all(ref.startswith(f"{name}/") and (results / ref).is_file() for ref in refs)
    resolve(outcomes, results)
