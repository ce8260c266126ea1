"""Spec steps per second under the ci profile of the Hypothesis machines.

Runs the must-hold search of a few matrix cells with the ci settings (derandomized, so the
figure is repeatable up to machine noise) and divides the spec steps the machines took by
the wall time, Hypothesis's own overhead and the per-step property checks included. Also
reports the bare spec (`enabled` + `step` on a random walk) for comparison.

    .venv/bin/python benchmarks/bench_spec.py [--cells V2_none,V3_D1,...]

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import random
import time

from model_checks.matrix import EXPECTED, Expectation, config_for
from model_checks.simulate.machine import RuleStats
from model_checks.simulate.run import PROFILES, cell_label, search
from spec import enabled, initial, step, variant_named

DEFAULT_CELLS = ("V2_none", "V2_D1", "V3_D3", "V3_D5_D7", "V1_D6", "V3_D8")


def machine_throughput(labels: tuple[str, ...]) -> tuple[int, float]:
    profile = PROFILES["ci"]
    steps, seconds = 0, 0.0
    for cell in EXPECTED:
        label = cell_label(cell.variant, cell.environment)
        if label not in labels:
            continue
        holds = [p for p, e in cell.expectations.items() if e is Expectation.HOLDS]
        config = config_for(variant_named(cell.variant), cell.environment)
        s = search(f"bench_{label}", config, holds, profile, profile.holds_examples, RuleStats())
        steps += s.steps
        seconds += s.seconds
        print(f"  {label:12s} {s.steps:6d} steps {s.seconds:6.2f} s "
              f"{s.steps / s.seconds:8.0f} steps/s")
    return steps, seconds


def bare_throughput(seconds: float = 3.0) -> float:
    config = config_for(variant_named("V3"), ("D1", "D3"))
    rng = random.Random(0)
    taken, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = initial(config)
        for _ in range(30):
            actions = enabled(config, state)
            if not actions:
                break
            state = step(config, state, rng.choice(actions))
            taken += 1
    return taken / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", default=",".join(DEFAULT_CELLS))
    args = parser.parse_args()
    print("Hypothesis machines, ci profile (must-hold searches):")
    steps, seconds = machine_throughput(tuple(args.cells.split(",")))
    print(f"ci profile: {steps} spec steps in {seconds:.2f} s = {steps / seconds:.0f} steps/s")
    print(f"bare spec random walk (enabled + step): {bare_throughput():.0f} steps/s")


if __name__ == "__main__":
    main()
