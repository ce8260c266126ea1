"""The one run loop of conformance, for every design, and the one final line of a run.

A run takes its design's cases, per variant, in turn, into one `Outcome` (`run_cases`): a
variant the implementation does not support is listed as not checked; a case that stops the
run (a harness failure, a step the implementation could not take) or a disagreement (unless
the run keeps going, each case then stopping only itself) ends it. What a case is and how it
runs are its design's (the LRU design's: its corpus, witnesses and generated walks per
configuration, `lru_lockstep.cases`, recorded by `lru_lockstep.run`; the one driver's: a
seeded walk per environment, then the committed witnesses, `designs.conform`). The run ends
on one line (`final`): HARNESS FAILURE, DISAGREEMENT, NOTHING CHECKED (0 steps is never a
pass) or CONFORMS, with the exit code it says.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from model_checks.conform.exits import EXIT_FAIL, EXIT_HARNESS, EXIT_OK
from model_checks.kernel.verdict_records import VerdictRecord


class Found(Protocol):
    @property
    def where(self) -> str:
        """The case a disagreement was found in."""


F = TypeVar("F", bound=Found)
C = TypeVar("C")
R = TypeVar("R", bound="Outcome[Any]")


@dataclass
class Outcome(Generic[F]):
    """What a run found: steps taken, seconds, the variants checked and not checked (the
    implementation does not support them), the disagreements (one per case when the run
    keeps going, else the first), a harness failure if one stopped the run ("where: what"),
    and the verdict records."""

    adapter: str
    steps: int = 0
    seconds: float = 0.0
    checked: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    findings: list[F] = field(default_factory=list)
    harness: str | None = None
    records: list[VerdictRecord] = field(default_factory=list)

    @property
    def where(self) -> str:
        return self.findings[0].where if self.findings else ""

    @property
    def conforms(self) -> bool:
        """Only a run that did work and found nothing conforms (0 steps never does)."""
        return self.steps > 0 and not self.findings and self.harness is None

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def run_cases(outcome: R, variants: Iterable[str], supports: Callable[[str], bool],
              cases: Callable[[str], Iterable[C]], run_case: Callable[[R, C], bool],
              keep_going: bool = False) -> bool:
    """Each variant's `cases` (listed once the variant is checked), each by `run_case` into
    `outcome`, in turn; whether every case ran: a case whose `run_case` is False, or a
    disagreement without `keep_going`, stops the run. Its seconds go to `outcome`."""
    start = time.perf_counter()
    try:
        for variant in variants:
            if not supports(variant):
                outcome.not_checked.append(variant)
                continue
            outcome.checked.append(variant)
            for case in cases(variant):
                if not run_case(outcome, case) or (outcome.findings and not keep_going):
                    return False
        return True
    finally:
        outcome.seconds += time.perf_counter() - start


def first(items: Sequence[str]) -> str:
    """One item, or the first and how many more (the RESULT line stays one short line; every
    item is listed above it)."""
    return items[0] if len(items) == 1 else f"{items[0]} and {len(items) - 1} more"


def final(outcome: Outcome[Any], spec: str = "the spec", kept: str = "") -> tuple[int, str]:
    """The exit code of a run its design finds nothing more to say on (no regression, no
    inherited weakness), and the one final line that says it; `spec`, the spec the
    implementation is compared with, as the line names it; `kept`, what the line adds to a
    run that conforms."""
    if outcome.harness is not None:
        return EXIT_HARNESS, f"RESULT: HARNESS FAILURE (exit {EXIT_HARNESS})"
    if outcome.findings:
        wheres = [f.where for f in outcome.findings]
        where = wheres[0] if len(wheres) == 1 else f"{len(wheres)} cases, first {wheres[0]}"
        return EXIT_FAIL, f"RESULT: DISAGREEMENT with {spec} in {where} (exit {EXIT_FAIL})"
    if outcome.steps == 0:
        return EXIT_FAIL, f"RESULT: NOTHING CHECKED (exit {EXIT_FAIL})"
    return EXIT_OK, f"RESULT: CONFORMS: every step agreed{kept} (exit {EXIT_OK})"
