"""The product carries no history: no issue numbers of this project, no machine loads, no
one run's timings or dates, no names of who did what, no "first reasoned ... corrected"
notes. Code, docs (hand-written and generated), tests, benchmarks and the README state
contracts, results and how to reproduce figures; the history of how they came about belongs
in commit messages and reports.

Public references stay allowed (`vllm#57833`), and so do the trace notation's tags
(`a/2:p0#0`, `#3`), which the patterns below do not match. A figure a page needs is stated
with the command that reproduces it, as a median or a ratio (benchmarks/README.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("spec", "reference", "model_checks", "tests", "benchmarks", "docs")
SUFFIXES = (".py", ".md")

PATTERNS: dict[str, re.Pattern[str]] = {
    "an issue number": re.compile(r"\bissues? #?\d+", re.I),
    "a bare issue reference": re.compile(r"(?<![\w`#./\-\[])#\d{1,4}\b(?![`\w#])"),
    "a machine load": re.compile(
        r"\bload(ed)? average\b|\bat (a )?load\b|\bload (of )?[~<>]?\d|\bloaded \d+-fold"
        r"|\bload under \d|\bunder load\b", re.I),
    "who did what": re.compile(
        r"\bhelpers? \d+[a-z]?\b|\bother (engineers|helpers|sessions)\b"
        r"|\b(a|this|another|same) session\b|\bthe lead\b", re.I),
    "a first-reasoned note": re.compile(r"\bfirst reasoned\b|\bcorrected by the checker", re.I),
    "a run's date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "one run's time": re.compile(
        r"\d[\d,]*(\.\d+)? s wall\b|\b\d+:\d\d wall\b|\d+(\.\d+)? s of (process )?CPU\b"
        r"|\blast (two|three|\d+) (main )?(jobs|runs)\b", re.I),
}
"""What history looks like in text. Each has a planted example below that it catches."""


def history_in(text: str) -> list[tuple[int, str, str]]:
    """(line, kind, matched text) for every history pattern found in `text`."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for kind, pattern in PATTERNS.items():
            found.extend((number, kind, m.group(0)) for m in pattern.finditer(line))
    return found


def scanned_files(root: Path) -> list[Path]:
    """README.md and every .py/.md file under the scanned folders (not the results snapshot's
    data, not this file, whose planted examples are history by design)."""
    files = [root / "README.md"] if (root / "README.md").exists() else []
    for folder in SCANNED:
        files.extend(p for p in sorted((root / folder).rglob("*"))
                     if p.suffix in SUFFIXES and p.is_file()
                     and "results" not in p.relative_to(root).parts
                     and p.resolve() != Path(__file__).resolve())
    return files


def history_under(root: Path) -> list[str]:
    return [f"{path.relative_to(root)}:{line}: {kind}: {text!r}"
            for path in scanned_files(root)
            for line, kind, text in history_in(path.read_text())]


def test_the_product_carries_no_history() -> None:
    assert len(scanned_files(ROOT)) > 100
    assert history_under(ROOT) == []


def _spliced(*parts: str) -> str:
    """A known-bad example, assembled at run time so that no history stands written in this
    file either (a line of it read alone states none)."""
    return "".join(parts)


PLANTED = {
    "an issue number": _spliced("Calibrated in iss", "ue 12's report."),
    "a bare issue reference": _spliced("Fixed the retry loop (", "#21)."),
    "a machine load": _spliced("measured at lo", "ad 9 on 2 cores"),
    "who did what": _spliced("hel", "per 12D measured this"),
    "a first-reasoned note": _spliced("L3 breaks (first rea", "soned to hold)"),
    "a run's date": _spliced("Measured on 2026", "-11-30."),
    "one run's time": _spliced("the explorer took 369 s w", "all"),
}


@pytest.mark.parametrize("kind", sorted(PATTERNS))
def test_a_planted_history_string_is_caught(kind: str) -> None:
    assert kind in {k for _, k, _ in history_in(PLANTED[kind])}


def test_public_references_and_trace_tags_are_not_history() -> None:
    clean = ("V2 (vllm#57833), the receiver's pre-#57833 path; entry `a/2:p0#0`, tag `#3`, "
             "r1(a->p0#0), [a/1:p0#0 b/1:p1#1]; depth 6; `--cpu 60`; 2 processes")
    assert history_in(clean) == []


def test_a_planted_file_fails_the_scan(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\nAll green.\n")
    (tmp_path / "README.md").write_text("# paired caches\n")
    assert history_under(tmp_path) == []
    (tmp_path / "docs" / "page.md").write_text(_spliced("# A page\n\nAll green at lo", "ad 9.\n"))
    assert history_under(tmp_path) == ["docs/page.md:3: a machine load: 'at load'"]
