"""docs/glossary.md defines every mark the main job's summary can print and lists each term
once: a mark of `model_checks.answers.summary.LEGEND` or of `summary.code` missing from the glossary
fails, and so does a term defined twice."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from model_checks.answers.summary import LEGEND, code
from model_checks.kernel.verdict_records import CHECKERS, Verdict, VerdictRecord

GLOSSARY = Path(__file__).resolve().parent.parent / "docs" / "glossary.md"
ROW = re.compile(r"^\| ([^|]+?) \|", re.M)


def terms(text: str) -> list[str]:
    """The first cell of every table row of the glossary, marks unquoted."""
    rows = [t.strip().strip("`") for t in ROW.findall(text)]
    return [t for t in rows if t not in ("term", "mark") and not (len(t) > 2 and set(t) == {"-"})]


def legend_marks() -> set[str]:
    """The marks the summary's legend explains (the word before each explanation)."""
    found: set[str] = set()
    for line in LEGEND[1:]:
        columns = re.split(r"\s{2,}", line.strip())
        if len(columns) > 1:  # "MARK  explanation  MARK  explanation ..."
            found.update(columns[0::2])
        found.update(re.findall(r"\bxN[A-Z]\b", line))
    return found


def code_marks() -> set[str]:
    """Every code `summary.code` gives, generalised (`x5Z` -> `xNZ`, `P3` -> `Pk`)."""
    marks = set()
    for checker in (c for c in CHECKERS if c.letter):
        for verdict in Verdict:
            for bound in (None, 3):
                record = VerdictRecord(checker.record, "V0", (), "S1", verdict, bound,
                                       "steps", 0.0, counterexample_length=5)
                text = code(record)[1]
                marks.add(re.sub(r"^x\d+", "xN", re.sub(r"^P\d+$", "Pk", text)))
    return marks


def test_every_summary_mark_is_defined() -> None:
    defined = set(terms(GLOSSARY.read_text()))
    wanted = legend_marks() | code_marks()
    missing = sorted(wanted - defined)
    assert not missing, f"docs/glossary.md does not define: {missing}"


def test_no_term_is_defined_twice() -> None:
    twice = [t for t, n in Counter(terms(GLOSSARY.read_text())).items() if n > 1]
    assert not twice, f"docs/glossary.md defines twice: {twice}"


def test_a_missing_mark_is_caught() -> None:
    text = "| mark | meaning |\n|---|---|\n| `P*` | proved |\n"
    assert "Pi" not in terms(text)
    assert terms(text) == ["P*"]
