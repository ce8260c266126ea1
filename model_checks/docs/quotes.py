"""Verdicts quoted by hand-written pages, checked against the answer store.

A hand-written page (any `docs/*.md` without the generated header, and README.md) quotes a
verdict as an inline code span: `` `V1-V3 D2 L1 breaks` `` (variants: `V2`, `V0-V2`, `V1,V3`
or `all`; environment: `none` or drift ids joined by `+`; a property id; `holds` or
`breaks`). A quote holds when, for every variant named, the project's answer for that cell
(`model_checks.answers`) is a break (`breaks`), or is held or vacuous (`holds`): a quote
that the store leaves undecided fails, as does one it contradicts. A span that
starts like a quote (a variant, then an environment) but does not parse is a problem too, so
a typo cannot hide a quote from the check. `docs --check` reports every failing quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from model_checks.answers.store import AnswerStore
from model_checks.docs.markdown import GENERATED
from spec import VARIANT_NAMES, property_ids

_SPAN = re.compile(r"`([^`\n]+)`")
_ENV_ID = r"D\d+(-router)?"
_LOOKS_LIKE = re.compile(rf"^(all|V\d[-,V\d]*) (none|{_ENV_ID}(\+{_ENV_ID})*)\b")
_QUOTE = re.compile(
    rf"^(?P<variants>all|V\d+(-V\d+|(,V\d+)+)?) (?P<env>none|{_ENV_ID}(\+{_ENV_ID})*) "
    r"(?P<prop>[A-Z]\d+) (?P<verdict>holds|breaks)$"
)


@dataclass(frozen=True)
class Quote:
    page: str
    line: int
    text: str
    variants: tuple[str, ...]
    environment: tuple[str, ...]
    property: str
    breaks: bool


@dataclass(frozen=True)
class BadQuote:
    page: str
    line: int
    text: str
    why: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: `{self.text}`: {self.why}"


def _variants(text: str) -> tuple[str, ...]:
    if text == "all":
        return VARIANT_NAMES
    if "-" in text:
        first, last = text.split("-")
        if first not in VARIANT_NAMES or last not in VARIANT_NAMES:
            return (first, last)  # an unknown variant: reported by the caller
        return VARIANT_NAMES[VARIANT_NAMES.index(first):VARIANT_NAMES.index(last) + 1]
    return tuple(text.split(","))


def hand_written(root: Path) -> list[Path]:
    """The hand-written pages: docs/*.md without the generated header, and README.md."""
    pages = [p for p in sorted(root.glob("*.md")) if not p.read_text().startswith(GENERATED)]
    readme = root.parent / "README.md"
    return pages + ([readme] if readme.exists() else [])


def quotes_in(page: str, text: str) -> tuple[list[Quote], list[BadQuote]]:
    found: list[Quote] = []
    bad: list[BadQuote] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for span in _SPAN.findall(line):
            match = _QUOTE.match(span)
            if match is None:
                if _LOOKS_LIKE.match(span) and re.search(r"\b(holds|breaks)$", span):
                    bad.append(BadQuote(page, number, span, "not a verdict quote: write "
                                        "`VARIANTS ENV PROPERTY holds|breaks`"))
                continue
            variants = _variants(match["variants"])
            if not variants or any(v not in VARIANT_NAMES for v in variants):
                bad.append(BadQuote(page, number, span, "unknown variant"))
                continue
            if match["prop"] not in property_ids():
                bad.append(BadQuote(page, number, span, "unknown property"))
                continue
            env = () if match["env"] == "none" else tuple(match["env"].split("+"))
            found.append(Quote(page, number, span, variants, env, match["prop"],
                               match["verdict"] == "breaks"))
    return found, bad


def judge(quote: Quote, answers: AnswerStore) -> list[BadQuote]:
    """Why the answer store does not hold the quote (empty: it does)."""
    problems = []
    for variant in quote.variants:
        answer = answers.answer(variant, quote.environment, quote.property)
        if (answer.breaks if quote.breaks else answer.kept):
            continue
        problems.append(BadQuote(quote.page, quote.line, quote.text,
                                 f"the project's answer for {variant} is: {answer.words()}"))
    return problems


def check_quotes(root: Path, answers: AnswerStore) -> tuple[int, list[BadQuote]]:
    """(quotes checked, problems) over every hand-written page under `root`."""
    count, problems = 0, []
    for path in hand_written(root):
        name = path.name if path.parent == root else f"../{path.name}"
        found, bad = quotes_in(name, path.read_text())
        count += len(found)
        problems += bad
        for quote in found:
            problems += judge(quote, answers)
    return count, problems
