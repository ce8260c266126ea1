"""`conform --check-log FILE`: a log recorded from the reference under drift is explained and
names its drift; the same log with one eviction deleted, and a log with a stale pairing, are
not, each pointing at its first unexplained event; drift outside the environment explains
nothing; over its limit the checker says undecided, never explained."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
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
from model_checks.history.log import parse_log, read_log
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


def _call(client: str, items: str, invoked: int, returned: int, result: Mapping[str, object]
          ) -> dict[str, object]:
    return {"client": client, "side": "fe0", "op": "serve", "invoked": invoked,
            "returned": returned, "result": result,
            "items": [{"identity": i, "content": i, "bytes": 1, "media": True}
                      for i in items.split()]}


def test_a_call_open_at_the_cut_may_have_taken_its_parts() -> None:
    """Call 1's miss is explained by call 0, still open when call 1 returned: call 0's
    update recorded `a` in the shadow, call 1 sent a reference to it, and the engine took
    call 1's message first (D1). The first unexplained event is call 2's stale pairing, not
    call 1, which a prefix leaving the open call 0 out would name."""
    served_a = {"kind": "served", "inputs": [{"identity": "a", "tensor": "a",
                                              "placeholders": "a"}]}
    stale = {"kind": "served", "inputs": [{"identity": "b", "tensor": "a",
                                           "placeholders": "b"}]}
    lines = [{"schema": "paired-caches-history/1", "variant": "V3", "budget": 3,
              "environment": ["D1"], "source": "test"},
             _call("thread-0", "a", 1, 100, served_a),
             _call("thread-1", "a", 2, 10, {"kind": "missed", "identities": ["a"]}),
             _call("thread-1", "b", 11, 20, stale)]
    history = parse_log("".join(json.dumps(line) + "\n" for line in lines))
    verdict = explain(history, environment("D1"))
    assert isinstance(verdict, Unexplained)
    cut, open_calls = history.as_of(1)
    assert [c.number for c in cut.calls] == [0, 1] and open_calls == {0}
    assert isinstance(explain(cut, environment("D1"), open_calls=open_calls), Explained)
    assert isinstance(explain(history.prefix(1), environment("D1")), Unexplained)
    shortest = shortest_unexplained(history, environment("D1"), verdict)
    assert shortest.first_unexplained == 2 and shortest.open_calls == {0}
