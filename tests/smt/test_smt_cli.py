"""`python -m model_checks prove`: exit codes and verdict records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.kernel.trace_file import replay_file
from model_checks.kernel.verdict_records import Verdict, read_records


def test_prove_a_selection_writes_records_and_exits_0(tmp_path: Path) -> None:
    out = tmp_path / "prove.json"
    code = main(["prove", "--variant", "V3", "--variant", "V0", "--environment", "D1",
                 "--property", "S1", "--property", "S3",
                 "--depth", "4", "--search-depth", "5", "--jobs", "1", "--json", str(out)])
    assert code == 0
    records = {(r.variant, r.property): r for r in read_records(out)}
    assert records[("V3", "S1")].verdict is Verdict.PROVED
    assert records[("V3", "S1")].bound is None
    assert records[("V3", "S1")].checker == "z3-induction"
    crash = records[("V0", "S3")]
    assert crash.verdict is Verdict.COUNTEREXAMPLE and crash.counterexample_length == 5
    assert crash.counterexample_path is not None and Path(crash.counterexample_path).exists()
    lifted = records[("V0", "S1")]  # BMC to depth 4, then 1-induction: all depths
    assert lifted.verdict is Verdict.PROVED and lifted.bound is None
    assert lifted.checker == "z3-induction" and "1-induction" in lifted.detail


def test_prove_usage_errors_exit_2() -> None:
    assert main(["prove", "--depth", "-1"]) == 2
    assert main(["prove", "--environment", "D99"]) == 2
    assert main(["prove", "--variant", "V9"]) == 2


def test_a_z3_counterexample_file_replays_on_the_spec(tmp_path: Path) -> None:
    out = tmp_path / "prove.json"
    code = main(["prove", "--variant", "V0", "--environment", "D1", "--property", "S3",
                 "--depth", "4", "--search-depth", "5", "--jobs", "1", "--json", str(out)])
    assert code == 0
    (record,) = read_records(out)
    assert record.counterexample_path is not None
    replayed = replay_file(Path(record.counterexample_path))
    assert replayed.property_id == "S3"
    assert replayed.step is not None and replayed.step == replayed.recorded_step
    assert len(replayed.trace.steps) == record.counterexample_length
    assert main(["replay", record.counterexample_path]) == 0


def test_a_missing_expected_counterexample_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """A resource limit too small for the search: the cell is undecided, reported with the
    units spent, and the run fails (the main job then fails too)."""
    code = main(["prove", "--variant", "V0", "--environment", "D1", "--property", "S3",
                 "--rlimit", "1000", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "MISSING COUNTEREXAMPLE: V0 D1 S3" in out and "rlimit 1000 exhausted" in out


def _verdicts(path: Path) -> list[dict[str, object]]:
    """Every field but the time; a counterexample by its trace's content, not its path."""
    found = []
    for record in read_records(path):
        data = {k: v for k, v in record.to_json().items() if k != "seconds"}
        if record.counterexample_path is not None:
            data["counterexample_path"] = Path(record.counterexample_path).read_text()
        found.append(data)
    return found


def test_verdicts_are_the_same_under_load(tmp_path: Path) -> None:
    """The same selection, alone and beside two CPU-bound processes: identical records
    (times aside), undecided cells included (a small rlimit leaves some undecided)."""
    argv = ["prove", "--variant", "V0", "--variant", "V2", "--environment", "D3",
            "--depth", "4", "--search-depth", "7", "--rlimit", "200000", "--jobs", "2"]
    main([*argv, "--json", str(tmp_path / "idle.json")])
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        main([*argv, "--json", str(tmp_path / "loaded.json")])
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    idle, loaded = _verdicts(tmp_path / "idle.json"), _verdicts(tmp_path / "loaded.json")
    assert idle == loaded
    assert any(r["verdict"] == "unknown" for r in idle)
