"""Generated docs are deterministic; the freshness check catches stale, missing and extra
pages; the results snapshot's traces replay; bad input is exit 2. That the committed docs are
fresh is CI's own phase (`python -m model_checks docs --check` in `.ci/run`), not repeated
here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.docs.generate import check, pages
from model_checks.docs.snapshot import RECORDS, TRACES, key, load, read_run
from model_checks.kernel import result_files
from model_checks.kernel.trace_file import replay_file
from model_checks.kernel.verdict_records import Verdict
from spec.drift import Environment

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _copy(tmp_path: Path) -> Path:
    """docs/ and the answer store (generated with the pages, beside them in the tree)."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    store = tmp_path / "model_checks" / "answers"
    store.mkdir(parents=True)
    for name in ("answers.json", "designs.json"):
        shutil.copy(DOCS.parent / "model_checks" / "answers" / name, store)
    return docs


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_generation_is_deterministic() -> None:
    assert pages(DOCS) == pages(DOCS)


def test_regenerating_twice_gives_an_identical_tree(tmp_path: Path) -> None:
    docs = _copy(tmp_path)
    assert main(["docs", "--out", str(docs)]) == 0
    first = _tree(docs)
    assert main(["docs", "--out", str(docs)]) == 0
    assert _tree(docs) == first == _tree(DOCS)


def test_check_reports_stale_missing_and_extra_pages(tmp_path: Path) -> None:
    docs = _copy(tmp_path)
    (docs / "drift.md").write_text("edited by hand\n")
    (docs / "verdicts.md").unlink()
    (docs / "counterexamples" / "V9-none-S1.md").write_text("an old page\n")
    shutil.copy(next((docs / TRACES).glob("*.json")), docs / TRACES / "V9-none-S1.json")
    found = {(p.kind, p.name) for p in check(docs)}
    assert found == {("stale", "drift.md"), ("missing", "verdicts.md"),
                     ("extra", "counterexamples/V9-none-S1.md"),
                     ("extra", f"{TRACES}/V9-none-S1.json")}
    assert main(["docs", "--check", "--out", str(docs)]) == 1
    assert main(["docs", "--out", str(docs)]) == 0
    assert main(["docs", "--check", "--out", str(docs)]) == 0
    assert _tree(docs) == _tree(DOCS)


def test_counterexample_pages_carry_a_step_table_and_a_sequence_diagram() -> None:
    generated = pages(DOCS)
    index = "counterexamples/README.md"
    names = [n for n in generated if n.startswith("counterexamples/") and n != index]
    assert any("-" in n and n.split("/")[1][0] == "V" for n in names), "no checker pages"
    for name in names:
        assert "| # | action |" in generated[name] and "sequenceDiagram" in generated[name]
        assert f"({name.split('/')[1]})" in generated[index]


def test_every_snapshot_trace_replays_and_reproduces_its_property() -> None:
    snapshot = load(DOCS)
    with_trace = [r for r in snapshot.records if r.counterexample_path is not None]
    assert with_trace, "the snapshot has no counterexample traces"
    for record in with_trace:
        assert record.verdict is Verdict.COUNTEREXAMPLE
        replayed = replay_file(DOCS / TRACES / Path(record.counterexample_path).name)
        assert replayed.property_id == record.property
        assert replayed.step == replayed.recorded_step == record.counterexample_length
        config = replayed.trace.config
        assert config.variant.name == record.variant
        assert Environment.of_config(config).sources == tuple(record.environment)
    cells = [key(r) for r in with_trace]
    assert len(cells) == len(set(cells)), "one trace per cell"


def test_a_run_of_the_snapshot_itself_gives_the_same_snapshot(tmp_path: Path) -> None:
    docs = _copy(tmp_path)
    assert main(["docs", "--from-run", str(DOCS / RECORDS), "--out", str(docs)]) == 0
    assert read_run(docs / RECORDS) == read_run(DOCS / RECORDS)
    before, after = _tree(DOCS), _tree(docs)
    traces = [n for n in before if n.startswith(TRACES)]
    assert [n for n in after if n.startswith(TRACES)] == traces
    assert all(before[n] == after[n] for n in traces)


def _bad_run(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    if name == "not-json.json":
        path.write_text("{")
    elif name == "not-records.json":
        path.write_text('{"cells": []}')
    elif name == "missing-trace.json":
        data = result_files.read(DOCS / RECORDS)
        for record in data["records"]:
            if record["counterexample_path"]:
                record["counterexample_path"] = "build/nowhere/trace.json"
        path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "name", ["absent.json", "not-json.json", "not-records.json", "missing-trace.json"]
)
def test_a_bad_run_file_is_exit_2_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    docs = _copy(tmp_path)
    run = _bad_run(tmp_path, name)
    code = main(["docs", "--from-run", str(run), "--out", str(docs)])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert _tree(docs) == _tree(DOCS)


def test_a_missing_snapshot_is_exit_2_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["docs", "--check", "--out", str(tmp_path / "empty")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["docs", "--out", str(tmp_path / "empty")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "empty").exists()
    assert main(["docs", "--check", "--from-run", str(DOCS / RECORDS)]) == 2


@pytest.mark.parametrize("content", ["{", "{}", '{"#meta": {"format": "other"}}'])
def test_a_broken_snapshot_trace_is_exit_2_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str
) -> None:
    docs = _copy(tmp_path)
    next((docs / TRACES).glob("*.json")).write_text(content)
    assert main(["docs", "--check", "--out", str(docs)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
