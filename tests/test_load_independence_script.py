"""benchmarks/check_load_independence.py compares two `prove` or `simulate` runs record by record
and trace by trace; it must report identical runs as identical and fail on any changed verdict,
bound, counterexample length or trace (a comparison that cannot fail would make the
load-independence figure meaningless)."""

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
         step: str = "P0Handle", checker: str = "z3-bmc", bound: int = 5,
         length: int = 3) -> Path:
    (folder / "build" / "cx").mkdir(parents=True)
    (folder / "build" / "cx" / "V1-D1-S3.json").write_text(json.dumps({"steps": [step]}))
    record = {"variant": "V1", "environment": ["D1"], "property": "S3", "checker": checker,
              "verdict": verdict, "seconds": seconds, "bound": bound,
              "counterexample_length": length, "counterexample_path": "build/cx/V1-D1-S3.json"}
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


def test_a_simulate_record_shrunk_further_or_longer_is_a_difference(tmp_path: Path) -> None:
    """What a clock-bounded shrink changes from run to run: the counterexample's length and
    the steps the search took (its bound), with the same verdict."""
    run = _run(tmp_path / "a", seconds=1.0, checker="hypothesis", bound=900, length=8)
    same = _run(tmp_path / "b", seconds=4.0, checker="hypothesis", bound=900, length=8)
    longer = _run(tmp_path / "c", seconds=1.0, checker="hypothesis", bound=900, length=13)
    more_steps = _run(tmp_path / "d", seconds=1.0, checker="hypothesis", bound=955, length=8)
    script = _script()
    assert script.compare(run, same) == 0
    assert script.compare(run, longer) == 1
    assert script.compare(run, more_steps) == 1


def test_the_default_selection_is_the_main_jobs() -> None:
    script = _script()
    assert script.main_job_arguments("simulate") == ["--profile", "ci", "--no-mutants"]
    assert "--environment" in script.main_job_arguments("prove")
