"""`explore --lattice --resume FILE`: a lattice run in parts gives the answers of one run, the
kept file names each part, and `--no-explore` answers from it alone; a kept file written for
another instance is refused and left as it was."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.explore import lattice_command

SMALL = ["explore", "--lattice", "--sources", "D3", "--max-size", "1", "--max-requests", "2",
         "--jobs", "1"]


def _lattice(tmp: Path, name: str, *options: str) -> tuple[int, list[dict[str, object]]]:
    target = tmp / f"{name}.json"
    code = main([*SMALL, *options, "--json", str(target), "--out", str(tmp / name)])
    return code, (json.loads(target.read_text()) if target.exists() else [])


class _SlowClock:
    """`time` for the lattice command, whose every reading is 100 s after the last."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 100.0
        return self.now

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def _answers(entries: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return [(e["variant"], e["property"], e["minimal_breaking"], e["holds_everywhere"])
            for e in entries]


def test_a_run_in_parts_answers_as_one_run(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tmp_path / "kept.json"
    whole_code, whole = _lattice(tmp_path, "whole", "--variant", "V0", "--variant", "V1")
    first, _ = _lattice(tmp_path, "first", "--variant", "V0", "--resume", str(kept))
    second, _ = _lattice(tmp_path, "second", "--variant", "V1", "--resume", str(kept))
    assert (whole_code, first, second) == (0, 0, 0)
    parts = json.loads(kept.read_text())["parts"]
    assert [p["variants"] for p in parts] == [["V0"], ["V1"]]
    before = kept.read_text()
    code, answered = _lattice(tmp_path, "answered", "--variant", "V0", "--variant", "V1",
                              "--resume", str(kept), "--no-explore")
    assert code == 0 and kept.read_text() == before  # answering writes nothing back
    assert _answers(answered) == _answers(whole) and _answers(whole)
    run = answered[0]["run"]
    assert isinstance(run, dict) and f"--resume {kept.as_posix()}" in str(run["command"])
    assert run["explorations"] == whole[0]["run"]["explorations"]  # type: ignore[index]
    # answering again writes the same page: its wall time is the kept runs', not its own
    assert run["wall_seconds"] == json.loads(kept.read_text())["wall_seconds"]
    page = (tmp_path / "answered.json").read_text()
    monkeypatch.setattr(lattice_command, "time", _SlowClock())  # a slower machine answering
    code, _ = _lattice(tmp_path, "answered", "--variant", "V0", "--variant", "V1",
                       "--resume", str(kept), "--no-explore")
    assert code == 0 and (tmp_path / "answered.json").read_text() == page


def test_a_kept_file_of_another_instance_is_refused_and_unchanged(tmp_path: Path) -> None:
    kept = tmp_path / "kept.json"
    assert _lattice(tmp_path, "first", "--variant", "V0", "--resume", str(kept))[0] == 0
    before = kept.read_text()
    code, _ = _lattice(tmp_path, "other", "--variant", "V0", "--resume", str(kept),
                       "--max-states", "999")
    assert code == 2 and kept.read_text() == before
