"""Every verdict a generated page or the main job's summary shows is the answer store's for
its cell: the per-property tables of docs/invariants.md, the answer column of
docs/verdicts.md and the summary it prints. Planted pages (a hold over a known break, a hold
shown narrower than proved) fail the same walk. And, read from the committed lattice alone:
no cell of invariants.md whose environment contains a minimal breaking set shows a hold, and
every cell an all-instance proof covers says "every instance"."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from model_checks.answers import AnswerStore, Verdict, load
from model_checks.answers.model import Answer, Reach
from model_checks.answers.render import HOLD_WORDS
from model_checks.answers.summary import WITNESS_LETTER

_CELL = re.compile(r"^(?:breaks: (?:\[)?counterexample, (?P<steps>\d+) steps|"
                   r"(?P<hold>holds, every instance|holds, all depths|holds, bounded|"
                   r"no violation sampled|vacuous, every instance|undecided))")


def answer_in_cell(text: str) -> tuple[Verdict, Reach | None, int | None] | None:
    """(verdict, reach, witness steps) a cell shows, or None for a cell that shows no
    answer."""
    found = _CELL.match(text.strip())
    if found is None:
        return None
    if found["steps"] is not None:
        return Verdict.BREAKS, None, int(found["steps"])
    hold = found["hold"]
    if hold == "undecided":
        return Verdict.UNDECIDED, None, None
    if hold.startswith("vacuous"):
        return Verdict.VACUOUS, Reach.EVERY_INSTANCE, None
    reach = next(r for r, w in HOLD_WORDS.items() if w == hold)
    return Verdict.HOLDS, reach, None


def shown(answer: Answer) -> tuple[Verdict, Reach | None, int | None]:
    """What `answer_in_cell` reads back from `render.cell(answer)`."""
    steps = answer.witness.steps if answer.witness is not None else None
    return answer.verdict, answer.reach, steps


DOCS = Path(__file__).resolve().parents[2] / "docs"
LETTERS = "".join(WITNESS_LETTER.values())
Cell = tuple[str, tuple[str, ...], str, str]  # variant, environment, property, shown text


def _env(text: str) -> tuple[str, ...]:
    return () if text == "none" else tuple(text.split("+"))


def invariants_cells(page: str) -> Iterator[Cell]:
    """(variant, environment, property, cell) of every answer table of invariants.md."""
    prop, header = "", []
    for line in page.splitlines():
        heading = re.match(r"^## ([A-Z]\d+): ", line)
        if heading:
            prop, header = heading.group(1), []
        elif line.startswith("| environment |"):
            header = [c.strip() for c in line.strip("|").split("|")]
        elif header and line.startswith("| ") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            for variant, text in zip(header[1:], cells[1:], strict=True):
                yield variant, _env(cells[0]), prop, text
        elif not line.startswith("|"):
            header = [] if line.strip() else header


def verdicts_cells(page: str) -> Iterator[Cell]:
    """The answer column of every environment's table of a per-variant verdicts page."""
    env: tuple[str, ...] | None = None
    for line in page.splitlines():
        heading = re.match(r"^## (none|D[\w+-]*)( \(|$)", line)
        if heading:
            env = _env(heading.group(1))
        elif line.startswith("## "):
            env = None
        elif env is not None and re.match(r"^\| V\d \| [A-Z]\d \|", line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            yield cells[0], env, cells[1], cells[-1].removesuffix(" **!**")


def summary_cells(page: str) -> Iterator[Cell]:
    """The marks of the summary verdicts.md prints (as the main job prints it)."""
    block = page.split("```text", 1)[1].split("```", 1)[0]
    header: list[str] = []
    for line in block.splitlines():
        if line.startswith("environment"):
            header = line.split()
        elif header and line and not line.startswith("-"):
            env_text, variant, *marks = line.split()
            for prop, mark in zip(header[2:], marks, strict=True):
                yield variant, _short(env_text), prop, mark.removesuffix("!")


def _short(text: str) -> tuple[str, ...]:
    """`D3-5,7` -> D3 D4 D5 D7 (the summary's short form), `D5-router` as it is."""
    if text == "none" or text == "D5-router":
        return () if text == "none" else (text,)
    found: list[str] = []
    for part in text[1:].split(","):
        low, _, high = part.partition("-")
        found += [f"D{n}" for n in range(int(low), int(high or low) + 1)]
    return tuple(found)


def mismatches(cells: Iterator[Cell], store: AnswerStore) -> list[str]:
    wrong = []
    for variant, env, prop, text in cells:
        answer = store.answer(variant, env, prop)
        if answer_in_cell(text) != shown(answer):
            wrong.append(f"{variant} {'+'.join(env) or 'none'} {prop}: page {text!r}, "
                         f"answer {answer.words()!r}")
    return wrong


def test_every_answer_table_cell_of_invariants_md_is_the_stores() -> None:
    cells = list(invariants_cells((DOCS / "invariants.md").read_text()))
    assert len(cells) >= 9 * 4 * 15  # every property, variant and matrix environment
    assert mismatches(iter(cells), load()) == []


def test_the_answer_column_of_verdicts_md_is_the_stores() -> None:
    cells = [c for page in sorted((DOCS / "verdicts").glob("V*.md"))
             for c in verdicts_cells(page.read_text())]
    assert len(cells) >= 9 * 4 * 15
    assert mismatches(iter(cells), load()) == []


def test_the_summary_shows_the_stores_marks() -> None:
    store = load()
    cells = list(summary_cells((DOCS / "verdicts.md").read_text()))
    assert len(cells) >= 9 * 4 * 15
    wrong = []
    for variant, env, prop, mark in cells:
        answer = store.answer(variant, env, prop)
        fits = (answer.verdict is Verdict.UNDECIDED if mark == "-"
                else mark.rstrip(LETTERS) == answer.mark())
        if not fits:
            wrong.append((variant, env, prop, mark, answer.words()))
    assert wrong == []


def test_planted_pages_fail_the_walk() -> None:
    page = (DOCS / "invariants.md").read_text()
    store = load()
    hold_over_break = page.replace("| D7 | breaks: [counterexample, 8 steps]",
                                   "| D7 | holds, all depths (instance 1)", 1)
    assert hold_over_break != page
    assert mismatches(invariants_cells(hold_over_break), store)
    narrower = page.replace("| D5 | holds, every instance |", "| D5 | holds, all depths "
                            "(instance 1) |", 1)
    assert narrower != page
    assert mismatches(invariants_cells(narrower), store)


def test_invariants_md_against_the_committed_lattice_alone() -> None:
    entries = json.loads((DOCS / "results" / "lattice.json").read_text())
    cells = list(invariants_cells((DOCS / "invariants.md").read_text()))
    checked_breaks = checked_proofs = 0
    for entry in entries:
        key = (entry["variant"], entry["property"])
        minimal = [frozenset(m) for m in entry["minimal_breaking"]]
        proofs = [frozenset(p["environment"])
                  for p in (entry.get("every_instance") or {}).get("proofs", ())]
        for variant, env, prop, text in cells:
            if (variant, prop) != key:
                continue
            verdict = answer_in_cell(text)
            assert verdict is not None, text
            if any(m <= set(env) for m in minimal):
                checked_breaks += 1
                assert verdict[0] is Verdict.BREAKS, (key, env, text)
            elif any(set(env) <= p for p in proofs):
                checked_proofs += 1
                assert text.endswith(", every instance"), (key, env, text)
    assert checked_breaks > 100 and checked_proofs > 100


def test_drift_combinations_md_lists_the_stores_minimal_breaking_sets() -> None:
    """The lattice page's per-variant rows name exactly the answer store's minimal breaking
    environments (over the drift sources; the router is a configuration, not on the page)."""
    from drift_page import page_minimal

    from spec import DRIFT_IDS, VARIANT_NAMES, property_ids

    store = load()
    for variant in VARIANT_NAMES:
        for prop in property_ids():
            stored = {frozenset(e) for e in store.minimal_breaking(variant, prop)
                      if set(e) <= set(DRIFT_IDS)}
            assert set(page_minimal(variant, prop)) == stored, (variant, prop)
