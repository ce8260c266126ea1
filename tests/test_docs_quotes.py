"""Hand-written pages quote verdicts the results snapshot holds: every `VARIANTS ENV PROP
holds|breaks` span of docs/*.md (not generated) and README.md is checked against
docs/results/records.json, and a wrong or malformed quote is caught."""

from __future__ import annotations

from pathlib import Path

from model_checks.docs.quotes import check_quotes, judge, quotes_in
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


def test_a_malformed_or_unknown_quote_is_a_problem_not_skipped() -> None:
    _, bad = quotes_in("page.md", "`V1-V3 D2 L9 breaks` `V2 D2 H1 brakes` `V9 D2 H1 breaks`\n")
    assert len(bad) == 2  # L9 and V9; `brakes` is not a verdict word, so not a quote at all
    found, _ = quotes_in("page.md", "`V2 D99 H1 breaks`\n")
    assert [p.why for q in found for p in judge(q, load(DOCS).records)] == [
        "the snapshot has no record of V2 there"]
