"""Verdicts quoted by hand-written pages, checked against the results snapshot.

A hand-written page (any `docs/*.md` without the generated header, and README.md) quotes a
verdict as an inline code span: `` `V1-V3 D2 L1 breaks` `` (variants: `V2`, `V0-V2`, `V1,V3`
or `all`; environment: `none` or drift ids joined by `+`; a property id; `holds` or
`breaks`). A quote holds when, for every variant named, the snapshot has a counterexample in
that cell or the drift lattice a minimal breaking set inside its environment (`breaks`), or
the snapshot has records there, none a counterexample, and the lattice no break below it
(`holds`): a bounded "holds" that a larger instance breaks is wrong. A span that
starts like a quote (a variant, then an environment) but does not parse is a problem too, so
a typo cannot hide a quote from the check. `docs --check` reports every failing quote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from model_checks.docs.markdown import GENERATED
from model_checks.records import Verdict, VerdictRecord
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


Breaking = dict[tuple[str, str], list[frozenset[str]]]
"""Per (variant, property), the drift lattice's minimal breaking sets: each has a replayed
counterexample, possibly in an instance larger than the snapshot's."""

LATTICE = Path("results/lattice.json")


def lattice_breaking(root: Path) -> Breaking:
    """The committed lattice's minimal breaking sets (`root / LATTICE`; none if absent)."""
    path = root / LATTICE
    if not path.exists():
        return {}
    return {(e["variant"], e["property"]): [frozenset(m) for m in e["minimal_breaking"]]
            for e in json.loads(path.read_text())}


def judge(quote: Quote, records: Iterable[VerdictRecord],
          breaking: Breaking | None = None) -> list[BadQuote]:
    """Why the snapshot, or the drift lattice (`breaking`), does not hold the quote (empty:
    they do). A "holds" is wrong where a lattice break lies below its environment, at any
    instance; a "breaks" is right with such a break even where the snapshot has none."""
    by_variant: dict[str, list[VerdictRecord]] = {}
    for r in records:
        if tuple(r.environment) == quote.environment and r.property == quote.property:
            by_variant.setdefault(r.variant, []).append(r)
    problems = []
    for variant in quote.variants:
        found = by_variant.get(variant, [])
        broke = any(r.verdict is Verdict.COUNTEREXAMPLE for r in found)
        below = _lattice_break(breaking or {}, variant, quote)
        if not found:
            why = f"the snapshot has no record of {variant} there"
        elif quote.breaks and not broke and below is None:
            why = f"the snapshot has no counterexample for {variant}"
        elif not quote.breaks and broke:
            why = f"the snapshot has a counterexample for {variant}"
        elif not quote.breaks and below is not None:
            why = (f"the drift lattice breaks it for {variant} under {below} (a replayed "
                   "counterexample, in a larger instance than the snapshot's)")
        else:
            continue
        problems.append(BadQuote(quote.page, quote.line, quote.text, why))
    return problems


def _lattice_break(breaking: Breaking, variant: str, quote: Quote) -> str | None:
    """A minimal breaking set of the lattice inside the quote's environment, if any."""
    env = set(quote.environment)
    for minimal in breaking.get((variant, quote.property), []):
        if minimal <= env:
            return "+".join(sorted(minimal, key=lambda d: int(d[1:]))) or "no drift"
    return None


def check_quotes(root: Path, records: Iterable[VerdictRecord],
                 breaking: Breaking | None = None) -> tuple[int, list[BadQuote]]:
    """(quotes checked, problems) over every hand-written page under `root`, judged by the
    snapshot and the drift lattice (`breaking`, by default the committed one)."""
    kept = list(records)
    lattice = lattice_breaking(root) if breaking is None else breaking
    count, problems = 0, []
    for path in hand_written(root):
        name = path.name if path.parent == root else f"../{path.name}"
        found, bad = quotes_in(name, path.read_text())
        count += len(found)
        problems += bad
        for quote in found:
            problems += judge(quote, kept, lattice)
    return count, problems
