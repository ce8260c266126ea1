"""A checker's own result on its instance, beside the project's answer.

A command that decides a cell on one instance (`explore`'s P on its small instance, a bounded
`prove`) can find no break where the project's answer, from every checker's evidence, is a
break (a deeper or wider instance reached it). Such a result is weaker than the answer: the
command marks it and prints the answer with its witness beside it (`Beside.text`), so that a
user never reads "holds on this instance" as the project's answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.answers.model import Answer
from model_checks.answers.store import load
from model_checks.kernel.shipped import located
from spec.drift import Environment

MARK = "*"
"""Beside a checker's mark: its result is weaker than the project's answer (a footnote says
which and names the witness)."""


@dataclass(frozen=True)
class Beside:
    """The project's answer for a cell where a checker found no break."""

    variant: str
    environment: tuple[str, ...]
    property_id: str
    answer: Answer

    def text(self) -> str:
        w = self.answer.witness
        witness = f"; witness {located(w.trace)}" if w is not None and w.trace else ""
        return (f"{self.variant} {Environment.of(self.environment).text} {self.property_id}: "
                f"the project's answer: {self.answer.words()}{witness}")


def stronger_break(variant: str, environment: tuple[str, ...], prop: str) -> Beside | None:
    """The project's answer when it is a break of `prop` for `variant` under `environment`
    (to show beside a checker that found none there), else None."""
    answer = load().answer(variant, environment, prop)
    return Beside(variant, environment, prop, answer) if answer.breaks else None
