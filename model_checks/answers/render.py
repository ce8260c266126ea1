"""An answer as a page shows it, and back: the one wording of a table cell, the page-wide
legend of the instances cells name, and `answer_in_cell`, with which the tests read every
generated page back and compare it with the store.

Cell words: `breaks: [counterexample, N steps](link)`; `holds, every instance`;
`holds, all depths (instance K)`; `holds, bounded (instance K)`;
`no violation sampled (instance K)`; `vacuous, every instance`; `undecided`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from model_checks.answers.model import Answer, Reach, Verdict, Witness

_HOLD_WORDS = {Reach.EVERY_INSTANCE: "holds, every instance",
               Reach.INSTANCE: "holds, all depths", Reach.BOUNDED: "holds, bounded",
               Reach.SAMPLED: "no violation sampled"}


@dataclass
class Legend:
    """The instances one page names, numbered in the order the page first names them."""

    numbers: dict[str, int] = field(default_factory=dict)

    def name(self, instance: str) -> str:
        return f"instance {self.numbers.setdefault(instance, len(self.numbers) + 1)}"

    def lines(self) -> list[str]:
        """The legend as Markdown lines (empty if the page named no instance)."""
        if not self.numbers:
            return []
        return ["", "## The instances this page names", "",
                "A hold \"for every instance\" is about any identities, requests, items, front "
                "ends, budget and sizes; every other hold is about the instance its cell "
                "names, here:", "",
                *(f"- instance {n}: {text}" for text, n in self.numbers.items())]


def link_of(witness: Witness) -> str:
    """Where a page in docs/ links a witness: its counterexample page where the snapshot
    has one, else its trace file ("" if no file is kept)."""
    trace = witness.trace.removeprefix("docs/")
    if trace.startswith("results/traces/") and trace.endswith(".json"):
        return "counterexamples/" + trace.removeprefix("results/traces/")[:-5] + ".md"
    return trace


def cell(answer: Answer, legend: Legend, prefix: str = "") -> str:
    """The answer as a table cell; `prefix` makes a witness link relative to the page."""
    if answer.witness is not None:
        text = f"counterexample, {answer.witness.steps} steps"
        link = link_of(answer.witness)
        return f"breaks: [{text}]({prefix}{link})" if link else f"breaks: {text}"
    if answer.verdict is Verdict.VACUOUS:
        return "vacuous, every instance"
    if answer.reach is None:
        return "undecided"
    words = _HOLD_WORDS[answer.reach]
    if answer.reach is Reach.EVERY_INSTANCE:
        return words
    return f"{words} ({legend.name(answer.instance)})"


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
    reach = next(r for r, w in _HOLD_WORDS.items() if w == hold)
    return Verdict.HOLDS, reach, None


def shown(answer: Answer) -> tuple[Verdict, Reach | None, int | None]:
    """What `answer_in_cell` reads back from `cell(answer)`."""
    steps = answer.witness.steps if answer.witness is not None else None
    return answer.verdict, answer.reach, steps
