"""What a lockstep run of the LRU design reports, beyond the one driver's `Outcome`: its
`Disagreement` (the first difference, which ends the run: the observation or property that
caught it, both sides in the trace notation, the step table) and the properties the
implementation `Broken` on its own observations (when, why, and whether the spec breaks
them too). A step the run cannot drive is the one driver's `NotDriven`
(`runs.not_followed`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from model_checks.conform.design_lockstep import Differs
from model_checks.conform.lru_lockstep.notation import observation_text
from model_checks.conform.notation import wrap
from model_checks.kernel import lru_notation
from spec.transitions import Action


class Disagreement(Differs):
    """The spec and the implementation disagree, or the implementation broke a property the
    spec keeps. `caught_by` is the property id (S1-S3, L1-L4) or the observation's name;
    `sentence`, where set, says in one line what the difference means (e.g. a tagless
    implementation checked against a tagged variant)."""

    def __init__(
        self, step: int, action: Action, caught_by: str, spec_side: object, impl_side: object,
        sentence: str = "",
    ) -> None:
        self.step = step
        self.action = action
        self.caught_by = caught_by
        self.spec_side = spec_side
        self.impl_side = impl_side
        self.sentence = sentence
        self.actions: tuple[Action, ...] = ()
        self.broken: dict[str, Broken] = {}
        self.served = False  # found by a run whose round trips went through `serve`
        super().__init__(
            sentence or f"step {step} ({lru_notation.action(action)}): {caught_by}: "
            f"spec {self.spec_text} / impl {self.impl_text}"
        )

    @property
    def spec_text(self) -> str:
        """The spec's side of the compared observation, in the trace notation."""
        return observation_text(self.caught_by, self.spec_side)

    @property
    def impl_text(self) -> str:
        return observation_text(self.caught_by, self.impl_side)

    def report(self) -> str:
        """The step table and both sides, in the notation, within 100 columns."""
        lines = [f"disagreement at step {self.step}, caught by {self.caught_by}"]
        if self.sentence:
            lines.append(f"  {self.sentence}")
        lines += steps_text(self.actions, self.step)
        if not self.sentence:
            lines.append(f"  spec: {self.spec_text}")
            lines.append(f"  impl: {self.impl_text}")
        return "\n".join(wrap(lines))


def steps_text(actions: Sequence[Action], at: int) -> list[str]:
    """The actions as numbered lines in the replay notation
    (`model_checks.kernel.lru_notation`), the step `at` marked."""
    return [
        f"  {number:3d}. {lru_notation.action(action)}{'  <-- here' if number == at else ''}"
        for number, action in enumerate(actions, start=1)
    ]


@dataclass(frozen=True)
class Broken:
    """A property the implementation broke, judged on its own observations: at lockstep step
    `step` (the first `step` actions replay it), why, and whether the spec breaks it at that
    step too (then it is the variant's weakness, not a disagreement)."""

    property_id: str
    step: int
    reason: str
    spec_too: bool
    actions: tuple[Action, ...]
    served: bool = False  # by a run whose round trips went through the end-to-end call
