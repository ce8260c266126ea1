"""benchmarks/compare_records.py says two runs give the same verdicts only when they do: a
changed verdict, bound or counterexample length, or a cell one run left out, fails it; a
changed time or trace file name does not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "compare_records.py"


def _record(**changed: Any) -> dict[str, Any]:
    return {"variant": "V1", "environment": ["D1"], "property": "S3", "checker": "z3-bmc",
            "verdict": "counterexample", "seconds": 1.0, "bound": 5, "bound_unit": "depth",
            "counterexample_length": 3, "counterexample_path": "a/V1-D1-S3.json",
            "detail": "BMC", "instance": "3 identities", **changed}


def _compare(tmp_path: Path, before: list[dict[str, Any]], after: list[dict[str, Any]],
             *options: str) -> subprocess.CompletedProcess[str]:
    for name, records in (("before", before), ("after", after)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"records": records}))
    return subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "before.json"),
                           str(tmp_path / "after.json"), *options],
                          capture_output=True, text=True, check=False)


def test_a_new_time_and_trace_name_are_the_same_verdicts(tmp_path: Path) -> None:
    moved = _record(seconds=9.0, counterexample_path="b/V1_D1_S3.json")
    assert _compare(tmp_path, [_record()], [moved]).returncode == 0


def test_a_changed_verdict_bound_or_length_differs(tmp_path: Path) -> None:
    for changed in ({"verdict": "proved"}, {"bound": 6}, {"counterexample_length": 4}):
        result = _compare(tmp_path, [_record()], [_record(**changed)])
        assert result.returncode == 1 and "DIFFER" in result.stdout


def test_a_cell_one_run_left_out_fails_unless_only_both_are_compared(tmp_path: Path) -> None:
    other = _record(environment=["D2"])
    assert _compare(tmp_path, [_record(), other], [_record()]).returncode == 1
    assert _compare(tmp_path, [_record(), other], [_record()], "--only-in-both").returncode == 0


def test_a_changed_detail_differs_unless_ignored(tmp_path: Path) -> None:
    changed = [_record(detail="BMC other figures")]
    assert _compare(tmp_path, [_record()], changed).returncode == 1
    assert _compare(tmp_path, [_record()], changed, "--ignore-detail").returncode == 0


def test_a_file_that_is_not_records_is_exit_2(tmp_path: Path) -> None:
    (tmp_path / "before.json").write_text("[]")
    (tmp_path / "after.json").write_text("{}")
    result = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "before.json"),
                             str(tmp_path / "after.json")], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 2 and "not a records file" in result.stderr


def test_two_files_with_no_cell_in_common_compare_nothing_and_are_exit_2(tmp_path: Path) -> None:
    for before, after in (([], []), ([_record()], [_record(environment=["D2"])])):
        result = _compare(tmp_path, before, after, "--only-in-both")
        assert result.returncode == 2 and "nothing was compared" in result.stderr
