"""A named instance's verdict judged against the project's answer (`phases.expected`): the
expectation is the answer store's (`model_checks.answers`: what the project says of the
variant, environment and property), never a table of the job's own.

The rule (`judge`), for the one property the phase searches on its named instance:

- the answer is a break: the phase passes when the search finds a counterexample there, and
  fails when it does not (the instance cannot hold the break, or the state limit cut it);
- the answer is a hold (or vacuous): the phase passes when the search proves the property for
  the instance (or finds it vacuous), and fails on a counterexample (a hold that breaks) or
  an undecided search (it confirms nothing);
- the answer is undecided: there is nothing to expect, and the phase fails saying so.

A search that numbered no state or wrote no verdict fails too: no pass without work. Each
verdict says its instance, the depth the search reached, its states and CPU seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.answers import AnswerStore
from model_checks.answers import Verdict as Answer
from model_checks.explore.instance_command import SearchFigures
from model_checks.jobs.phases import NamedCheck
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, EXIT_USAGE
from model_checks.kernel.verdict_records import Verdict, VerdictRecord
from spec.drift import Environment

FOUND_WORDS = {Verdict.COUNTEREXAMPLE: "breaks", Verdict.PROVED: "holds",
               Verdict.VACUOUS: "holds vacuously", Verdict.UNKNOWN: "undecided",
               Verdict.HOLDS: "no violation sampled"}
"""A search's verdict in the words of a named instance's line."""


@dataclass(frozen=True)
class NamedVerdict:
    """One named instance's verdict against the project's answer: `passed`, else `why` not."""

    check: NamedCheck
    expected: Answer
    """The project's verdict for the variant, environment and property."""
    found: VerdictRecord | None
    """The search's record of the property (None: it wrote none)."""
    figures: SearchFigures | None
    passed: bool
    why: str = ""

    @property
    def code(self) -> int:
        """The phase's exit code: 0 passed, 1 not."""
        return EXIT_OK if self.passed else EXIT_MISMATCH

    def line(self) -> str:
        """The verdict in one line, naming its instance."""
        found = self.found
        if found is None:
            result = "no verdict"
        elif found.verdict is Verdict.COUNTEREXAMPLE:
            result = f"breaks, shortest counterexample {found.counterexample_length} steps"
        else:
            result = FOUND_WORDS[found.verdict]
        head = f"{self.check.label()}: {result}"
        if self.passed:
            head += f", as the project's answer says ({self.expected.value})"
        else:
            head += f": FAILS, {self.why}"
        return f"{head}; {figures_words(self.figures)}"


def figures_words(figures: SearchFigures | None) -> str:
    """The search's depth, states and CPU seconds in words."""
    if figures is None:
        return "no search figures written"
    if figures.stopped_at is not None:
        where = f"the search stopped at the end of depth {figures.stopped_at}"
    else:
        where = f"searched to depth {figures.depth}" + (
            "" if figures.complete else " (state limit reached)")
    return f"{where}, {figures.states:,} states, {figures.cpu_seconds:.1f} CPU-s"


def judge(check: NamedCheck, code: int, records: list[VerdictRecord],
          figures: SearchFigures | None, store: AnswerStore) -> NamedVerdict:
    """The verdict of `check`'s search (its exit `code`, the records and figures it wrote)
    against `store`'s answer (module docstring)."""
    answer = store.answer(check.variant, Environment.parse(check.environment).sources,
                          check.property_id)
    found = next((r for r in records if r.property == check.property_id), None)

    def failed(why: str) -> NamedVerdict:
        return NamedVerdict(check, answer.verdict, found, figures, False, why)

    if code == EXIT_USAGE:
        return failed("the search refused its arguments (exit 2: its details file says why)")
    if found is None or figures is None or figures.states == 0:
        return failed(f"the search wrote no verdict of {check.property_id} (exit {code})")
    if answer.verdict is Answer.UNDECIDED:
        return failed("the project has no answer to expect (undecided: "
                      f"{answer.why}); give it evidence or drop this instance")
    if answer.breaks:
        if found.verdict is Verdict.COUNTEREXAMPLE:
            return NamedVerdict(check, answer.verdict, found, figures, True)
        where = ("within the search's state limit" if found.verdict is Verdict.UNKNOWN
                 else "on this instance")
        return failed(f"expected to break ({answer.words()}), not found {where}")
    if found.verdict is Verdict.COUNTEREXAMPLE:
        return failed(f"a hold breaks (the project's answer: {answer.words()})")
    if found.verdict in (Verdict.PROVED, Verdict.VACUOUS):
        return NamedVerdict(check, answer.verdict, found, figures, True)
    return failed(f"expected to hold ({answer.words()}); the search confirms nothing")
