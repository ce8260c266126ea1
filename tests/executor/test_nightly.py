"""The nightly job: the main job's machinery over the deep budgets (`cli.NIGHTLY`). Running it
takes hours on 2 cores, so the tests check that every part is a valid command line (with the
cluster flag where the part is a sweep), and run the wiring on a one-cell stand-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks import cli
from model_checks.records import read_records


@pytest.mark.parametrize("argv", [*cli.MAIN_JOB, *cli.NIGHTLY], ids=" ".join)
def test_every_part_is_a_valid_command_line(argv: tuple[str, ...]) -> None:
    full = cli._with_dask(argv, "tcp://127.0.0.1:8786")
    assert ("--dask" in full) == (argv[0] in cli.SWEEPS)
    args = cli._parser(argv[0]).parse_args([*full, "--json", "x.json"])
    assert args.command == argv[0]


def test_nightly_writes_records_and_the_summary(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    one_cell = ("prove", "--variant", "V3", "--environment", "none", "--property", "S2",
                "--depth", "1", "--jobs", "1")
    monkeypatch.setattr(cli, "NIGHTLY", (one_cell,))
    out = tmp_path / "nightly" / "records.json"
    assert cli.main(["nightly", "--json", str(out)]) == 0
    records = read_records(out)
    assert {r.checker for r in records} >= {"scenarios", "z3-induction"}
    captured = capsys.readouterr()
    assert captured.out.startswith("== summary")
    assert "nightly: 2 phases" in captured.err
    assert (tmp_path / "nightly" / "2-prove.txt").exists()
