"""benchmarks/check_load_independence.py compares two `prove` runs record by record and trace by
trace; it must report identical runs as identical and fail on any changed verdict or trace
(a comparison that cannot fail would make the load-independence figure meaningless)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "check_load_independence.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_load_independence", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(folder: Path, *, seconds: float, verdict: str = "counterexample",
         step: str = "P0Handle") -> Path:
    (folder / "build" / "cx").mkdir(parents=True)
    (folder / "build" / "cx" / "V1-D1-S3.json").write_text(json.dumps({"steps": [step]}))
    record = {"variant": "V1", "environment": ["D1"], "property": "S3", "checker": "z3-bmc",
              "verdict": verdict, "seconds": seconds, "bound": 5,
              "counterexample_path": "build/cx/V1-D1-S3.json"}
    records = folder / "build" / "records.json"
    records.write_text(json.dumps({"records": [record]}))
    return records


def test_runs_differing_only_in_time_and_folder_are_identical(tmp_path: Path) -> None:
    idle = _run(tmp_path / "idle", seconds=1.0)
    loaded = _run(tmp_path / "loaded", seconds=9.0)
    assert _script().compare(idle, loaded) == 0


def test_a_changed_verdict_or_trace_is_a_difference(tmp_path: Path) -> None:
    idle = _run(tmp_path / "idle", seconds=1.0)
    unknown = _run(tmp_path / "unknown", seconds=1.0, verdict="unknown")
    other_trace = _run(tmp_path / "trace", seconds=1.0, step="P1Receive")
    script = _script()
    assert script.compare(idle, unknown) == 1
    assert script.compare(idle, other_trace) == 1
