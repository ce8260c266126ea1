"""`python -m model_checks prove`: exit codes and verdict records."""

from __future__ import annotations

from pathlib import Path

from model_checks.cli import main
from model_checks.records import Verdict, read_records
from model_checks.simulate.counterexample import replay_file


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
    assert records[("V0", "S1")].verdict is Verdict.PROVED and records[("V0", "S1")].bound == 4


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
