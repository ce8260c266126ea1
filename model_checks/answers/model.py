"""The typed answer to one question: does variant V keep property P under environment E?

An answer is a fact with a scope. Its verdict is one of `Verdict`; a hold or a vacuous answer
says how far it is known (`Reach`, strongest last: sampled runs, a bounded search, every depth
of one named instance, every instance), a break names its shortest replayed witness. Every
page, command and exit code that shows a verdict renders an `Answer` (`AnswerStore.answer`),
never a verdict of its own.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from spec.drift import Environment


class Verdict(enum.Enum):
    BREAKS = "breaks"
    """A replayed counterexample under an environment inside the asked one."""
    HOLDS = "holds"
    """No known break inside the environment, and a proof or search that covers it."""
    VACUOUS = "vacuous"
    """The variant cannot break the property at all (its premise is unreachable)."""
    UNDECIDED = "undecided"
    """No known break, and nothing proved or searched covers the environment."""


class Reach(enum.IntEnum):
    """How far a hold is known; a larger value covers more behaviours."""

    SAMPLED = 1
    """Random runs found no violation (Hypothesis, conformance)."""
    BOUNDED = 2
    """Every behaviour up to a bound: a depth, or the rung of an instance ladder."""
    INSTANCE = 3
    """Every depth of one named, finite instance."""
    EVERY_INSTANCE = 4
    """Every depth and every instance: any identities, requests, items, front ends, budget
    and sizes (the all-instance proofs, or an argument from the variant's knobs)."""


REACH_WORDS = {
    Reach.SAMPLED: "sampled",
    Reach.BOUNDED: "bounded",
    Reach.INSTANCE: "all depths, one instance",
    Reach.EVERY_INSTANCE: "every instance",
}
"""Each reach in the words every page uses."""


@dataclass(frozen=True, order=True)
class Witness:
    """A replayed counterexample: it breaks the property under `environment` (and so under
    every environment containing it)."""

    steps: int
    environment: tuple[str, ...]
    checker: str
    instance: str
    trace: str
    """The replayable trace file, relative to the repository root ("" if none is kept)."""


@dataclass(frozen=True)
class Hold:
    """A proof or search that found no violation under `environment`. `downward`: it covers
    every environment inside `environment` too (an all-instance proof, or a search over an
    instance family that grows with its environment); otherwise it covers that one only."""

    environment: tuple[str, ...]
    reach: Reach
    checker: str
    instance: str
    downward: bool
    extent: int = 0
    """Within one reach, how much it covers (a rung's requests, a bounded search's depth):
    the larger is shown."""

    def covers(self, env: frozenset[str]) -> bool:
        mine = frozenset(self.environment)
        return env <= mine if self.downward else env == mine


@dataclass(frozen=True)
class Answer:
    """The project's answer for (variant, environment, property)."""

    variant: str
    environment: tuple[str, ...]
    property_id: str
    verdict: Verdict
    reach: Reach | None
    """How far a hold or a vacuous answer is known; None for a break or undecided."""
    instance: str
    """The instance a hold is about ("" for every instance), or the witness's instance."""
    checker: str
    witness: Witness | None
    why: str = ""
    """Why a vacuous answer cannot fail, or why an undecided one is open."""

    @property
    def breaks(self) -> bool:
        return self.verdict is Verdict.BREAKS

    @property
    def kept(self) -> bool:
        """Held or vacuous: no known break."""
        return self.verdict in (Verdict.HOLDS, Verdict.VACUOUS)

    def scope(self) -> str:
        """The scope in words: "every instance", "all depths, one instance: ...", a break's
        witness, or why it is open."""
        if self.witness is not None:
            w = self.witness
            return (f"a counterexample of {w.steps} steps under "
                    f"{Environment.of(w.environment).text} ({w.checker}; {w.instance})")
        if self.reach is None:
            return self.why or "nothing covers it"
        if self.reach is Reach.EVERY_INSTANCE:
            return "every instance" + (f" ({self.why})" if self.why else "")
        return f"{REACH_WORDS[self.reach]}: {self.instance}"

    def words(self) -> str:
        """The answer in one line: verdict, then scope."""
        return f"{self.verdict.value}, {self.scope()}"

    def mark(self) -> str:
        """The answer in a few characters (the main job's summary): `xN` a break with an
        N-step witness; `Pe` proved for every instance (`vac` vacuous: cannot fail at all);
        `Pi` every depth of one named instance; `Pb` bounded; `ok` sampled; `?` undecided."""
        if self.witness is not None:
            return f"x{self.witness.steps}"
        if self.verdict is Verdict.VACUOUS:
            return "vac"
        return {None: "?", Reach.EVERY_INSTANCE: "Pe", Reach.INSTANCE: "Pi",
                Reach.BOUNDED: "Pb", Reach.SAMPLED: "ok"}[self.reach]
