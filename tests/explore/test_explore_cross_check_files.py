"""`explore --cross-check FOLDER` reads the records files of a run's parts, not the trace
files conformance writes beside them; an unreadable records file is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model_checks.explore.command import ExploreUsageError, _other_records
from model_checks.kernel.verdict_records import write_records


def test_trace_files_beside_the_records_are_not_read(tmp_path: Path) -> None:
    write_records(tmp_path / "2-simulate.json", [])
    (tmp_path / "5-conform.S1.trace.json").write_text(json.dumps({"#meta": {}, "states": []}))
    assert _other_records(tmp_path) == []


def test_a_records_file_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "2-simulate.json").write_text(json.dumps({"#meta": {}, "states": []}))
    with pytest.raises(ExploreUsageError, match="unreadable records"):
        _other_records(tmp_path)
