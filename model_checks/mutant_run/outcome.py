"""What one checker found for one mutant, and how it reads in the table.

A checker *applies* to a mutant when it has something to check it with (Z3 only decides the
state properties S1, S2, S3 and H1; conformance only runs implementation mutants). When it
applies it *must* catch the mutant: every property of `required` must be found broken, or,
for conformance (`required` empty), any disagreement counts, in every mode it ran in
(`unmet` lists the modes that caught nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from model_checks.kernel.verdict_records import (
    CONFORMANCE,
    HYPOTHESIS,
    SCENARIOS,
    Z3_BMC,
    Checker,
    VerdictRecord,
)

COLUMNS: tuple[Checker, ...] = (SCENARIOS, HYPOTHESIS, Z3_BMC, CONFORMANCE)
"""The checkers a mutant is run through, in the table's column order (Z3 stands for both of
its record names: its records are `z3-bmc` or `z3-induction`)."""
CHECKERS: tuple[str, ...] = tuple(c.name for c in COLUMNS)
"""Their names, as `--checkers` takes them and the table's header shows them."""


def column(name: str) -> Checker:
    """The checker of `COLUMNS` named `name` (a `KeyError` names the known ones)."""
    for checker in COLUMNS:
        if checker.name == name:
            return checker
    raise KeyError(f"unknown checker {name!r}, expected one of {', '.join(CHECKERS)}")


@dataclass(frozen=True)
class Catch:
    """One property the checker found broken, `steps` into its counterexample; `via` says how
    when it is not the checker's plain search (an explicit witness, narrowed bounds, ...)."""

    property: str
    steps: int | None
    via: str = ""

    def text(self) -> str:
        steps = "?" if self.steps is None else str(self.steps)
        via = f", {self.via}" if self.via else ""
        return f"{self.property} ({steps} steps{via})"


@dataclass(frozen=True)
class Outcome:
    """One (mutant, checker) cell: what had to be found, what was found, and its records."""

    mutant: str
    checker: Checker
    required: frozenset[str]
    caught: tuple[Catch, ...]
    records: tuple[VerdictRecord, ...] = field(default=())
    seconds: float = 0.0
    unmet: tuple[str, ...] = ()
    note: str = ""  # why it survived, when the checker can say (e.g. "S2: proved to 8 steps")

    @property
    def missed(self) -> frozenset[str]:
        """Required properties not found broken."""
        return self.required - {c.property for c in self.caught}

    @property
    def survived(self) -> bool:
        """The mutant got past this checker: nothing caught, or a required property missed."""
        return not self.caught or bool(self.missed) or bool(self.unmet)

    def text(self) -> str:
        """`caught: PROP (N steps), ...`, `SURVIVED`, or the catches with what was missed."""
        if not self.caught:
            return f"SURVIVED ({self.note})" if self.note else "SURVIVED"
        text = "caught: " + ", ".join(c.text() for c in self.caught)
        if self.missed:
            text += "; SURVIVED " + " ".join(sorted(self.missed))
            text += f" ({self.note})" if self.note else ""
        if self.unmet:
            text += "; SURVIVED in " + ", ".join(self.unmet)
            text += f" ({self.note})" if self.note else ""
        return text


NOT_APPLICABLE = "-"
