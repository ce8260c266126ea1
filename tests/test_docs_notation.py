"""One trace notation: `replay` and the generated pages print the same step rows, and the
legend lives in one place (docs/notation.md), which every page showing a trace links to."""

from __future__ import annotations

from pathlib import Path

import pytest

from model_checks.cli import main
from model_checks.docs.generate import pages
from model_checks.docs.snapshot import TRACES, load, trace_name
from model_checks.kernel import lru_notation
from spec.lru import Entry, Ghost
from spec.state import ClientItem, Message, Reply, WireItem

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_replay_prints_the_rows_of_the_counterexample_page(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = next(r for r in load(DOCS).records if r.counterexample_path is not None)
    cell = (record.variant, tuple(record.environment), record.property)
    path = DOCS / TRACES / f"{trace_name(cell)}.json"
    assert main(["replay", str(path)]) == 0
    printed = capsys.readouterr().out
    page = pages(DOCS)[f"counterexamples/{trace_name(cell)}.md"]
    page_rows = [line for line in page.splitlines() if line.startswith("| ") and
                 line[2].isdigit()]
    assert page_rows, "the page has no step rows"
    for row in page_rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        text_row = next(line for line in printed.splitlines()
                        if line.split("  ", 1)[0] == cells[0])
        for cell_text in cells:
            assert cell_text.replace("\\|", "|") in text_row
    processings = next(line for line in page.splitlines() if line.startswith("processings:"))
    assert processings in printed
    assert "docs/notation.md" in printed


def test_the_legend_is_on_one_page_and_trace_pages_link_to_it() -> None:
    generated = pages(DOCS)
    with_legend = [name for name, text in generated.items() if lru_notation.LEGEND in text]
    assert with_legend == ["notation.md"]
    for name, text in generated.items():
        if "| # | action |" in text and name != "notation.md":
            assert "notation.md)" in text, name


def test_the_notation_of_each_value() -> None:
    assert lru_notation.entry(Entry("a", 2, 0, tag=3)) == "a/2:p0#3"
    assert lru_notation.entry(Ghost("a")) == "ghost(a)"
    assert lru_notation.cache((Entry("a", 1, 0), Entry("b", 2, 1))) == "[a/1:p0 b/2:p1]"
    assert lru_notation.wire_item(WireItem("a", 0, 0)) == "a=p0"
    assert lru_notation.wire_item(WireItem("a", None, 1, tag=1)) == "a->p1#1"
    assert lru_notation.wire_item(WireItem("a", 0, 1)) == "a=t0/p1"
    message = Message(2, 1, (WireItem("a", 0, 0), WireItem("b", None, 1)))
    assert lru_notation.message(message) == "fe1:r2(a=p0 b->p1)"
    assert lru_notation.reply(Reply(0, 0, ("a", "b"))) == "r0:miss a,b"
    assert lru_notation.reply(Reply(0, 0, ())) == "r0:ok"
    items = (ClientItem("a"), ClientItem("b", 1), ClientItem("c", has_data=False))
    assert " ".join(lru_notation.client_item(i) for i in items) == "a b@1 c?"
    # where only contents are observable (conformance), a content stands for the processing
    assert lru_notation.entry_text("a", 2, lru_notation.content("a", 1)) == "a/2:a@1"
    assert lru_notation.served_text("a", lru_notation.content("a", 1), "a") == "a:a@1/a"
    assert lru_notation.served_text("a", "p0", "p1") == "a:t0/p1"
