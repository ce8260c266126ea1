"""Random walks over the spec, shared by the tests that compare a checker with the spec's own
trace checks (`tests/spec`, `tests/explore`). Importable from any test folder because
`tests/conftest.py` puts this folder on the path."""

from __future__ import annotations

import random

from spec import Config, Trace, enabled, initial, step
from spec.fairness import drive_to_quiescence
from spec.trace import Step


def random_walk(config: Config, rng: random.Random, length: int, *,
                quiesce: bool = False) -> Trace:
    """A trace of at most `length` steps from the initial state, each action drawn by `rng`
    among the enabled ones (it stops early where none is); with `quiesce`, followed by the
    spec's fair steps to quiescence (`drive_to_quiescence`)."""
    state = initial(config)
    steps = []
    for _ in range(length):
        actions = enabled(config, state)
        if not actions:
            break
        action = rng.choice(actions)
        state = step(config, state, action)
        steps.append(Step(action, state))
    if quiesce:
        steps.extend(Step(a, s) for a, s in drive_to_quiescence(config, state))
    return Trace(config, initial(config), tuple(steps))
