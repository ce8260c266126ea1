"""Generated docs are committed and fresh; the freshness check can fail."""

from __future__ import annotations

import shutil
from pathlib import Path

from model_checks.cli import main
from model_checks.docs.generate import pages, stale

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_committed_docs_are_fresh() -> None:
    assert stale(DOCS) == [], "run `python -m model_checks docs` and commit docs/"


def test_generation_is_deterministic() -> None:
    assert pages() == pages()


def test_a_stale_or_missing_page_is_reported(tmp_path: Path) -> None:
    for name in pages():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DOCS / name, tmp_path / name)
    (tmp_path / "drift.md").write_text("edited by hand\n")
    (tmp_path / "scenarios.md").unlink()
    assert sorted(stale(tmp_path)) == ["drift.md", "scenarios.md"]
    assert main(["docs", "--check", "--out", str(tmp_path)]) == 1
    assert main(["docs", "--out", str(tmp_path)]) == 0
    assert main(["docs", "--check", "--out", str(tmp_path)]) == 0


def test_counterexample_pages_carry_a_step_table_and_a_sequence_diagram() -> None:
    generated = pages()
    index = "counterexamples/README.md"
    names = [n for n in generated if n.startswith("counterexamples/") and n != index]
    assert names, "no counterexample pages"
    for name in names:
        assert "| # | action |" in generated[name] and "sequenceDiagram" in generated[name]
        assert name.split("/")[1] in generated[index]
