"""Hand-written pages quote verdicts the results snapshot holds: every `VARIANTS ENV PROP
holds|breaks` span of docs/*.md (not generated) and README.md is checked against
docs/results/records.json and the drift lattice's replayed breaks
(docs/results/lattice.json), and a wrong or malformed quote is caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from model_checks import cli
from model_checks.docs import generate
from model_checks.docs.quotes import check_quotes, judge, lattice_breaking, quotes_in
from model_checks.docs.snapshot import load

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_every_quoted_verdict_is_in_the_snapshot() -> None:
    count, problems = check_quotes(DOCS, load(DOCS).records)
    assert [str(p) for p in problems] == []
    assert count >= 20, "the hand-written pages quote too few verdicts for the check to mean much"


def test_a_quote_the_snapshot_does_not_hold_is_caught() -> None:
    records = load(DOCS).records
    page = ("H1 under D1: `all D1 H1 holds`; L1 under D2: `V1-V3 D2 L1 holds`; "
            "`V3 D1 S3 holds`; not a quote: `python -m model_checks`\n")
    found, bad = quotes_in("page.md", page)
    assert bad == [] and len(found) == 3
    wrong = [p for q in found for p in judge(q, records)]
    assert {p.text for p in wrong} == {"all D1 H1 holds", "V1-V3 D2 L1 holds"}
    assert all("counterexample for" in p.why for p in wrong)
    assert len(wrong) == 4 + 3  # every variant that contradicts is named


def test_a_bounded_hold_that_a_larger_instance_breaks_is_caught() -> None:
    """The snapshot's instance holds L3 under D2 (its records say so), but the drift lattice
    has a replayed break five requests deep: "holds" is wrong, "breaks" is right."""
    records, breaking = load(DOCS).records, lattice_breaking(DOCS)
    page = "`V2 D2 L3 holds` and `V2 D2 L3 breaks` and `V2 D3 L1 holds`\n"
    found, _ = quotes_in("page.md", page)
    snapshot_only = [p for q in found for p in judge(q, records)]
    assert [p.text for p in snapshot_only] == ["V2 D2 L3 breaks"]
    wrong = [p for q in found for p in judge(q, records, breaking)]
    assert [p.text for p in wrong] == ["V2 D2 L3 holds"]
    assert "drift lattice breaks it for V2 under D2" in wrong[0].why


def test_a_malformed_or_unknown_quote_is_a_problem_not_skipped() -> None:
    _, bad = quotes_in("page.md", "`V1-V3 D2 L9 breaks` `V2 D2 H1 brakes` `V9 D2 H1 breaks`\n")
    assert len(bad) == 2  # L9 and V9; `brakes` is not a verdict word, so not a quote at all
    found, _ = quotes_in("page.md", "`V2 D99 H1 breaks`\n")
    assert [p.why for q in found for p in judge(q, load(DOCS).records)] == [
        "the snapshot has no record of V2 there"]


def _docs_copy(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    shutil.copy(DOCS.parent / "README.md", tmp_path / "README.md")
    return docs


@pytest.fixture
def pages_fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page-freshness half of `docs --check` reports nothing (it is tested in
    test_docs_fresh.py; here only the quote half is under test, without regenerating)."""
    monkeypatch.setattr(generate, "check", lambda root: [])


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
    assert "`all D1 H1 holds`: the snapshot has a counterexample for V0" in out


def test_readme_and_protocol_quote_verdicts() -> None:
    for page in (DOCS / "protocol.md", DOCS.parent / "README.md"):
        found, bad = quotes_in(page.name, page.read_text())
        assert bad == [] and len(found) >= 3, page.name
