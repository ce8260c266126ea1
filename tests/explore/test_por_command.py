"""`explore --por`: the same records as without it (verdicts, counterexample lengths),
details that name the reduction; `--por` with `--lattice` is a usage error."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.kernel.trace_file import replay_file
from model_checks.kernel.verdict_records import VerdictRecord, read_records


def test_por_records_match_the_unreduced_ones(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    def explore(name: str, *extra: str) -> dict[tuple[object, ...], VerdictRecord]:
        path = tmp_path / f"{name}.json"
        code = main(["explore", "--variant", "V2", "--environment", "D1+D7", "--environment", "D3",
                     "--jobs", "1", "--json", str(path), "--out", str(tmp_path / name),
                     *extra])
        assert code == 0, capsys.readouterr().out
        return {(r.environment, r.property): r for r in read_records(path)}

    plain, reduced = explore("plain"), explore("por", "--por")
    assert plain.keys() == reduced.keys()
    for key, want in plain.items():
        got = reduced[key]
        assert (got.verdict, got.counterexample_length) == (
            want.verdict, want.counterexample_length)
        assert "partial-order reduction" in got.detail
        if got.counterexample_path:
            replayed = replay_file(Path(got.counterexample_path))
            assert replayed.step == got.counterexample_length


def test_por_with_the_lattice_is_a_usage_error(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explore", "--lattice", "--por", "--json", str(tmp_path / "l.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--por" in err
    assert not (tmp_path / "l.json").exists()
