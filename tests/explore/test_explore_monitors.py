"""The monitors of L1-L3 agree with the spec's own trace checks: on random walks of every
variant under several environments (and the mutants' variants), a monitor run along the walk
first flags the same step the property's `check_trace` reports."""

from __future__ import annotations

import random

from walks import random_walk

from model_checks.explore.instance import explore_config
from model_checks.explore.lru_judging.monitors import MONITORS
from model_checks.mutation.spec_mutants import spec_mutants
from spec import VARIANTS, Config, Trace, Variant, by_id

ENVIRONMENTS = [("D1",), ("D2",), ("D3",), ("D5",), ("D6",), ("D9",), ("D1", "D3", "D6", "D7")]


def _first_flag(config: Config, trace: Trace, prop_id: str) -> int | None:
    monitor = MONITORS[prop_id]
    memory = monitor.start
    for number, before, action, after in trace.transitions():
        memory, reason = monitor.advance(config, before, action, after, memory)
        if reason is not None:
            return number
    return None


def _variants() -> list[Variant]:
    return [*VARIANTS, *(m.variant for m in spec_mutants())]


def test_monitors_flag_what_the_spec_flags() -> None:
    rng = random.Random(11)
    flagged = dict.fromkeys(MONITORS, 0)
    for env in ENVIRONMENTS:
        for variant in _variants():
            config = explore_config(variant, env, max_requests=4, max_in_flight=3)
            for _ in range(12):
                trace = random_walk(config, rng, 30)
                for prop_id in MONITORS:
                    violation = by_id(prop_id).check_trace(trace)
                    expected = None if violation is None else violation.step
                    found = _first_flag(config, trace, prop_id)
                    assert found == expected, (variant.name, env, prop_id)
                    flagged[prop_id] += expected is not None
    # The walks saw violations, not only silence (L1, met by the retry's own message, rarely
    # breaks on a random walk; the mutant witnesses below break it).
    assert sum(flagged.values()) > 0, flagged


def test_monitors_flag_the_mutant_witnesses() -> None:
    """The witnesses of the mutants that break L1-L3 are flagged where the spec flags them."""
    flagged = dict.fromkeys(MONITORS, 0)
    for mutant in spec_mutants():
        trace = mutant.witness.run(mutant.variant)
        for prop_id in MONITORS:
            violation = by_id(prop_id).check_trace(trace)
            expected = None if violation is None else violation.step
            assert _first_flag(trace.config, trace, prop_id) == expected, (mutant.name, prop_id)
            flagged[prop_id] += expected is not None
    assert flagged["L1"] > 0 and flagged["L2"] > 0 and flagged["L3"] > 0, flagged
