"""docs/vllm.md renders from its committed snapshot without vLLM; a missing snapshot is said
on the page, not a crash; the page names what backs each section."""

from __future__ import annotations

import shutil
from pathlib import Path

from model_checks.adapters.vllm_run import SNAPSHOT
from model_checks.docs import server_section
from model_checks.docs.vllm_page import hand_written, load, vllm_page

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_docs_vllm_page_renders_from_the_committed_snapshot() -> None:
    page = vllm_page(load(DOCS), hand_written(DOCS), server_section.load(DOCS))
    assert page == (DOCS / "vllm.md").read_text()
    assert "a real run on **vllm 0.33.0**" in page
    for backing in ("tests/vllm/test_vllm_conform.py", "tests/vllm/test_vllm_stale_pairing.py",
                    "tests/vllm/test_vllm_settings.py"):
        assert backing in page and (DOCS.parent / backing).is_file()


def test_docs_vllm_page_without_a_snapshot_says_how_to_make_one(tmp_path: Path) -> None:
    assert not (tmp_path / SNAPSHOT).exists()
    page = vllm_page(load(tmp_path))
    assert "No snapshot" in page and "python -m model_checks.vllm_snapshot" in page
    (tmp_path / "results").mkdir()
    shutil.copy(DOCS / SNAPSHOT, tmp_path / SNAPSHOT)
    assert vllm_page(load(tmp_path)) == vllm_page(load(DOCS))
