"""`conform --check-log FILE`: a log recorded from the reference under drift is explained and
names its drift; the same log with one eviction deleted, and a log with a stale pairing, are
not, each pointing at its first unexplained event; drift outside the environment explains
nothing; over its limit the checker says undecided, never explained."""

from __future__ import annotations

import re
from pathlib import Path

from history_helpers import conform, eviction_deleted, reference_log, stale_pairing, written

from model_checks.history.explain import (
    Explained,
    Limit,
    Undecided,
    Unexplained,
    explain,
    shortest_unexplained,
)
from model_checks.history.log import read_log
from spec import Drift, environment


def test_a_reference_log_under_drift_is_explained_naming_its_drift(tmp_path: Path) -> None:
    history = reference_log()
    assert any(c.op == "clear" for c in history.calls)
    assert any(c.result.kind == "missed" for c in history.calls)
    code, out, _ = conform("--check-log", str(written(tmp_path, history)))
    assert code == 0, out
    assert "D3 (one-sided clear) x" in out and "RESULT: EXPLAINED" in out
    verdict = explain(history, environment("D1", "D3"))
    assert isinstance(verdict, Explained) and verdict.drift[Drift.D3] > 0
    assert verdict.explored > 0 and len(verdict.steps) >= len(history.calls)


def _first_unexplained(out: str) -> int:
    found = re.search(r"first unexplained event: call (\d+) ", out)
    assert found, out
    return int(found.group(1))


def test_a_deleted_eviction_is_the_first_unexplained_event(tmp_path: Path) -> None:
    history, changed = eviction_deleted(reference_log())
    path = written(tmp_path, history)
    code, out, _ = conform("--check-log", str(path), "--json", str(tmp_path / "r.json"))
    assert code == 1 and "RESULT: NOT EXPLAINED" in out, out
    assert _first_unexplained(out) == changed.number
    assert "<< first unexplained" in out and "thread-" in out  # the swim lanes
    replay = tmp_path / "r.unexplained.jsonl"
    assert replay.exists() and (tmp_path / "r.unexplained.md").read_text().count("mermaid")
    again, out_again, _ = conform("--check-log", str(replay))
    assert again == 1 and "RESULT: NOT EXPLAINED" in out_again
    shortest = read_log(replay)
    assert len(shortest.calls) <= len(history.calls)


def test_a_stale_pairing_is_the_first_unexplained_event(tmp_path: Path) -> None:
    history, changed = stale_pairing(reference_log())
    code, out, _ = conform("--check-log", str(written(tmp_path, history)),
                           "--json", str(tmp_path / "s.json"))
    assert code == 1, out
    assert _first_unexplained(out) == changed.number


def test_drift_outside_the_environment_explains_nothing() -> None:
    history = reference_log()
    verdict = explain(history, environment("D1"))  # the clears are D3
    assert isinstance(verdict, Unexplained) and verdict.explored > 0
    shortest = shortest_unexplained(history, environment("D1"), verdict)
    first = history.calls[shortest.first_unexplained]
    assert first.op == "clear" or first.result.kind == "missed"


def test_over_its_limit_the_checker_is_undecided_never_explained() -> None:
    history = reference_log()
    assert isinstance(explain(history, environment("D1", "D3")), Explained)
    for nodes in (1, 2, len(history.calls) // 2):
        verdict = explain(history, environment("D1", "D3"), Limit(nodes))
        assert isinstance(verdict, Undecided) and verdict.explored == nodes
