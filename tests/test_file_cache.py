"""model_checks.executor.file_cache: a value is computed once per key and sources, read back after,
and an entry that is absent, unreadable or of another shape is computed again; the kill matrix's
cached rows are the rows of a fresh run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from model_checks.executor import file_cache
from model_checks.mutant_run import killmatrix
from model_checks.mutant_run.reference_mutants import history_mutants


def _counting() -> tuple[list[int], Any]:
    calls: list[int] = []

    def compute() -> list[int]:
        calls.append(1)
        return [1, 2, 3]

    return calls, compute


def _ints(data: Any) -> list[int]:
    if not isinstance(data, list) or not all(isinstance(x, int) for x in data):
        raise TypeError(f"got {data!r}, expected a list of ints")
    return data


def test_computed_once_then_read(tmp_path: Path) -> None:
    calls, compute = _counting()
    assert file_cache.cached("n", "k", compute, _ints, tmp_path) == [1, 2, 3]
    assert file_cache.cached("n", "k", compute, _ints, tmp_path) == [1, 2, 3]
    assert len(calls) == 1
    assert file_cache.cached("n", "other key", compute, _ints, tmp_path) == [1, 2, 3]
    assert len(calls) == 2
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize("content", ["not json {", json.dumps({"value": "a string"}),
                                     json.dumps({"no value": 1})])
def test_an_unusable_entry_is_computed_again_and_rewritten(tmp_path: Path, content: str) -> None:
    calls, compute = _counting()
    path = file_cache.entry_path("n", "k", tmp_path)
    path.write_text(content)
    assert file_cache.cached("n", "k", compute, _ints, tmp_path) == [1, 2, 3]
    assert len(calls) == 1
    assert json.loads(path.read_text())["value"] == [1, 2, 3]


def test_the_key_covers_the_sources_and_libraries(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    before = file_cache.entry_path("n", "k", tmp_path)
    monkeypatch.setattr(file_cache, "source_digest", lambda: "other sources")
    assert file_cache.entry_path("n", "k", tmp_path) != before
    monkeypatch.undo()
    monkeypatch.setattr(file_cache, "LIBRARIES", (*file_cache.LIBRARIES, "pytest"))
    assert file_cache.entry_path("n", "k", tmp_path) != before


def test_turned_off_it_computes_every_time(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    monkeypatch.setenv(file_cache.OFF, "1")
    calls, compute = _counting()
    file_cache.cached("n", "k", compute, _ints, tmp_path)
    file_cache.cached("n", "k", compute, _ints, tmp_path)
    assert len(calls) == 2 and not list(tmp_path.iterdir())


def test_kill_matrix_rows_round_trip_and_reject_another_shape() -> None:
    kill = killmatrix.Kill("S1", 4, "where", "trace")
    decode = killmatrix._rows_of(history_mutants())
    data = [[killmatrix._as_json(kill), None] for _ in history_mutants()]
    rows = decode(json.loads(json.dumps(data)))
    assert [r.mutant for r in rows] == list(history_mutants())
    assert all(r.in_process == kill and r.two_processes is None for r in rows)
    with pytest.raises(ValueError, match="one entry per mutant"):
        decode(data[:-1])
    with pytest.raises(TypeError, match="expected a kill record"):
        decode([["S1", None] for _ in history_mutants()])


def test_the_cache_lives_under_the_checkouts_build_folder() -> None:
    """Entries go to build/cache/ at the checkout's root (ignored by git), never inside the
    package's own folders, wherever the module sits in the package."""
    checkout = Path(__file__).resolve().parents[1]
    assert checkout / "build" / "cache" == file_cache.ROOT
