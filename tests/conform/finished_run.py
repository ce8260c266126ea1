"""A script's lockstep run, finished: the run itself (its spec state, its choices), for tests
that look into it; its disagreement raised."""

from __future__ import annotations

from collections.abc import Sequence

from model_checks.conform import adapter as api
from model_checks.conform.lru_lockstep import Driving, Lockstep, raised, replay
from spec import Action, Config


def finished(config: Config, adapter: api.Adapter, script: Sequence[Action],
             driving: Driving | None = None) -> Lockstep:
    """The run of `script` (`lru_lockstep.replay`) once it agreed; raises its
    `Disagreement`."""
    runs: list[Lockstep] = []
    raised(replay(config, adapter, script, driving or Driving(), runs.append))
    return runs[0]
