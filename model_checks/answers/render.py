"""An answer as a page shows it: the one wording of a table cell and the page-wide legend of
the instances cells name (the tests read every generated page back and compare it with the
store).

Cell words: `breaks: [counterexample, N steps](link)`; `holds, every instance`;
`holds, all depths (instance K)`; `holds, bounded (instance K)`;
`no violation sampled (instance K)`; `vacuous, every instance`; `undecided`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from model_checks.answers.model import Answer, Reach, Verdict, Witness

HOLD_WORDS = {Reach.EVERY_INSTANCE: "holds, every instance",
               Reach.INSTANCE: "holds, all depths", Reach.BOUNDED: "holds, bounded",
               Reach.SAMPLED: "no violation sampled"}
"""The words of a hold, per reach, as a cell shows it."""


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
    words = HOLD_WORDS[answer.reach]
    if answer.reach is Reach.EVERY_INSTANCE:
        return words
    return f"{words} ({legend.name(answer.instance)})"
