"""Hand-written pages quote verdicts the answer store holds: every `VARIANTS ENV PROP
holds|breaks` span of docs/*.md (not generated) and README.md is checked against the
project's answers (`model_checks.answers`), and a wrong or malformed quote is caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from model_checks import cli
from model_checks.answers import load
from model_checks.docs import generate
from model_checks.docs.quotes import check_quotes, judge, quotes_in
from spec import VARIANTS

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_quoted_verdict_is_in_the_snapshot() -> None:
    count, problems = check_quotes(DOCS, load())
    assert [str(p) for p in problems] == []
    assert count >= 20, "the hand-written pages quote too few verdicts for the check to mean much"


def test_a_quote_the_snapshot_does_not_hold_is_caught() -> None:
    records = load()
    page = ("H1 under D1: `all D1 H1 holds`; L1 under D2: `V1-V3 D2 L1 holds`; "
            "`V3 D1 S3 holds`; not a quote: `python -m model_checks`\n")
    found, bad = quotes_in("page.md", page)
    assert bad == [] and len(found) == 3
    wrong = [p for q in found for p in judge(q, records)]
    assert {p.text for p in wrong} == {"all D1 H1 holds", "V1-V3 D2 L1 holds"}
    assert all("the project's answer for" in p.why and "breaks" in p.why for p in wrong)
    assert len(wrong) == len(VARIANTS) + 3  # every variant that contradicts is named


def test_a_malformed_or_unknown_quote_is_a_problem_not_skipped() -> None:
    _, bad = quotes_in("page.md", "`V1-V3 D2 L9 breaks` `V2 D2 H1 brakes` `V9 D2 H1 breaks`\n")
    assert len(bad) == 2  # L9 and V9; `brakes` is not a verdict word, so not a quote at all
    found, _ = quotes_in("page.md", "`V2 D99 H1 breaks`\n")
    assert [p.why.split(": ", 1)[0] for q in found for p in judge(q, load())] == [
        "the project's answer for V2 is"]
    assert "undecided" in judge(found[0], load())[0].why


def _docs_copy(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    shutil.copy(DOCS.parent / "README.md", tmp_path / "README.md")
    return docs


@pytest.fixture
def pages_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page-freshness half of `docs --check` reports nothing (it is tested in
    test_docs_fresh.py; here only the quote half is under test, without regenerating)."""
    monkeypatch.setattr(generate, "check", lambda root, bundle=None: [])


def test_docs_check_passes_with_the_committed_quotes(
    tmp_path: Path, pages_fresh: None, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = _docs_copy(tmp_path)
    assert cli.main(["docs", "--check", "--out", str(docs)]) == 0
    assert "verdict quotes of hand-written pages hold" in capsys.readouterr().out


@pytest.mark.parametrize("page", ["docs/protocol.md", "README.md"])
def test_a_bad_quote_makes_docs_check_fail(
    tmp_path: Path, pages_fresh: None, capsys: pytest.CaptureFixture[str], page: str
) -> None:
    docs = _docs_copy(tmp_path)
    path = tmp_path / page
    path.write_text(path.read_text() + "\nNothing breaks H1 under D1: `all D1 H1 holds`.\n")
    assert cli.main(["docs", "--check", "--out", str(docs)]) == 1
    out = capsys.readouterr().out
    assert f"quote: {path.name if page == 'README.md' else 'protocol.md'}" in out.replace(
        "../README.md", "README.md")
    assert "`all D1 H1 holds`: the project's answer for V0 is: breaks" in out


def test_readme_and_protocol_quote_verdicts() -> None:
    for page in (DOCS / "protocol.md", DOCS.parent / "README.md"):
        found, bad = quotes_in(page.name, page.read_text())
        assert bad == [] and len(found) >= 3, page.name


def test_a_bounded_hold_that_a_larger_instance_breaks_is_caught() -> None:
    """The main job's instance holds L3 under D2 (its records say so), but a replayed witness
    five requests deep breaks it: the answer is a break, so "holds" is wrong."""
    page = "`V2 D2 L3 holds` and `V2 D2 L3 breaks` and `V2 D3 L1 holds`\n"
    found, _ = quotes_in("page.md", page)
    wrong = [p for q in found for p in judge(q, load())]
    assert [p.text for p in wrong] == ["V2 D2 L3 holds"]
    assert "the project's answer for V2 is: breaks" in wrong[0].why
