"""The history's JSON-lines log: it round-trips, and a log that breaks the schema is refused
with one line saying where and what, changing nothing (`conform --check-log` exits 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from history_helpers import conform, reference_log, written

from model_checks.history.log import SCHEMA, LogError, log_lines, parse_log, read_log


def test_a_recorded_history_round_trips(tmp_path: Path) -> None:
    history = reference_log()
    assert history.calls and read_log(written(tmp_path, history)) == history
    header = json.loads(log_lines(history)[0])
    assert header["schema"] == SCHEMA and header["variant"] == "V3"
    first = json.loads(log_lines(history)[1])
    assert first["text"].startswith("fe0 serve [") and "->" in first["text"]


@pytest.mark.parametrize(("text", "message"), [
    ("", "line 1: got an empty log"),
    ("{not json", "line 1: got invalid JSON"),
    ('{"schema": "other/9"}', "expected 'paired-caches-history/1'"),
    (f'{{"schema": "{SCHEMA}", "variant": "V9", "budget": 3}}', "got variant 'V9'"),
    (f'{{"schema": "{SCHEMA}", "variant": "V3", "budget": 3, "environment": ["D12"]}}',
     "got drift ids ['D12']"),
    (f'{{"schema": "{SCHEMA}", "variant": "V3", "budget": 3}}\n'
     '{"client": "t", "side": "fe0", "op": "serve", "items": [], "invoked": 1, '
     '"returned": 2, "result": {"kind": "done"}}', "line 2: got a serve without items"),
    (f'{{"schema": "{SCHEMA}", "variant": "V3", "budget": 3}}\n'
     '{"client": "t", "side": "engine", "op": "clear", "invoked": 5, "returned": 5, '
     '"result": {"kind": "done"}}', "line 2: got invoked 5 and returned 5"),
    (f'{{"schema": "{SCHEMA}", "variant": "V3", "budget": 3}}\n'
     '{"client": "t", "side": "engine", "op": "evict", "invoked": 1, "returned": 2, '
     '"result": {"kind": "done"}}', "line 2: got op 'evict'"),
])
def test_a_log_that_breaks_the_schema_is_refused(text: str, message: str) -> None:
    with pytest.raises(LogError, match=r"^line") as raised:
        parse_log(text)
    assert message in str(raised.value)


def test_check_log_of_a_bad_file_is_a_usage_error_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"schema": "other/9"}\n')
    code, out, err = conform("--check-log", str(path))
    assert code == 2 and out == "" and err.startswith("error: --check-log")
    assert path.read_text() == '{"schema": "other/9"}\n'
    assert conform("--check-log", str(tmp_path / "missing.jsonl"))[0] == 2


def test_a_log_of_no_call_checks_nothing(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(log_lines(reference_log())[0] + "\n")
    code, out, _ = conform("--check-log", str(path))
    assert code == 1 and "RESULT: NOTHING CHECKED" in out
