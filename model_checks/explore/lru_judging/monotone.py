"""Checking the lattice's monotonicity lemma on one run: lifting it to a larger environment.

`lift_failure(small, large, actions)` runs `actions` on both configurations and returns why
the run of `small` is not (an embedded image of) a run of `large` with the same verdicts, or
None when it is: every action is enabled in `large`, every state of the large run is
`embed` of the small run's state, and every property of the registry breaks at the same step
(or nowhere) on both. The lemma (`lattice_instance`) says this returns None for every run of
`lattice_config(E)` and `lattice_config(E | {d})`; the tests apply it to breadth-first and
random runs, and show that it fails for the per-cell instance family, which is not monotone.
"""

from __future__ import annotations

from collections.abc import Sequence

from model_checks.explore.lattice_instance import embed
from spec import Action, Config, InvalidAction, registry, run


def lift_failure(small: Config, large: Config, actions: Sequence[Action]) -> str | None:
    """Why the run of `actions` on `small` does not lift to `large`, or None if it does."""
    smaller = run(small, actions)
    try:
        larger = run(large, actions)
    except InvalidAction as error:
        return f"not a run of the larger instance: {error}"
    for number, (a, b) in enumerate(zip(smaller.states(), larger.states(), strict=True)):
        if embed(a, large) != b:
            return f"step {number}: the larger instance reaches another state"
    for prop in registry():
        before, after = prop.check_trace(smaller), prop.check_trace(larger)
        first = None if before is None else before.step
        second = None if after is None else after.step
        if first != second:
            return f"{prop.id} breaks at step {first} below and at step {second} above"
    return None
