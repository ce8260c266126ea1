"""Spec steps per second under the ci profile of the Hypothesis machines.

Runs the must-hold search of a few matrix cells with the ci settings (derandomized, so the
figure is repeatable up to machine noise) and divides the spec steps the machines took by
the wall time, Hypothesis's own overhead and the per-step property checks included. Also
reports the bare spec (`enabled` + `step` on a random walk) for comparison.

    .venv/bin/python benchmarks/bench_spec.py [--cells V2_none,V3_D1,...] [--baseline DIR]

Each figure is given per wall second (as Hypothesis reports) and per CPU-second (process
time, which other processes on a shared machine disturb far less). `--baseline DIR` first
runs this script on the tree at DIR (a checkout of another commit) in a subprocess, same
run, and prints the ratios. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from model_checks.kernel.cells import cell_identifier
from model_checks.kernel.instance import config_for
from model_checks.kernel.matrix import EXPECTED, Expectation
from model_checks.simulate.machine import RuleStats
from model_checks.simulate.run import PROFILES, search
from spec import enabled, initial, step, variant_named

DEFAULT_CELLS = ("V2_none", "V2_D1", "V3_D3", "V3_D5_D7", "V1_D6", "V3_D8")


def machine_throughput(labels: tuple[str, ...]) -> tuple[int, float, float]:
    """(spec steps, wall seconds, CPU seconds) of the ci profile's must-hold searches."""
    profile = PROFILES["ci"]
    steps, seconds, cpu = 0, 0.0, 0.0
    for cell in EXPECTED:
        label = cell_identifier(cell.variant, cell.environment)
        if label not in labels:
            continue
        holds = [p for p, e in cell.expectations.items() if e is Expectation.HOLDS]
        config = config_for(variant_named(cell.variant), cell.environment)
        started = time.process_time()
        s = search(f"bench_{label}", config, holds, profile, profile.holds_examples, RuleStats())
        cpu += time.process_time() - started
        steps += s.steps
        seconds += s.seconds
        print(f"  {label:12s} {s.steps:6d} steps {s.seconds:6.2f} s "
              f"{s.steps / s.seconds:8.0f} steps/s", file=sys.stderr)
    return steps, seconds, cpu


def bare_throughput(steps: int = 30_000) -> float:
    """Spec steps per CPU-second of seeded random walks (`enabled` + `step`), V3 under D1+D3."""
    config = config_for(variant_named("V3"), ("D1", "D3"))
    rng = random.Random(0)
    taken, start = 0, time.process_time()
    while taken < steps:
        state = initial(config)
        for _ in range(30):
            actions = enabled(config, state)
            if not actions:
                break
            state = step(config, state, rng.choice(actions))
            taken += 1
    return taken / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--cells", default=",".join(DEFAULT_CELLS))
    parser.add_argument("--baseline", type=Path,
                        help="a checkout of another commit to measure in the same run")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.baseline is not None and not (args.baseline / "spec" / "__init__.py").exists():
        parser.error(f"--baseline {args.baseline}: no spec/ package there; give a checkout")
    base = _baseline(args.baseline, args.cells) if args.baseline is not None else None
    steps, seconds, cpu = machine_throughput(tuple(args.cells.split(",")))
    now = {"ci wall": steps / seconds, "ci cpu": steps / cpu, "bare cpu": bare_throughput()}
    if args.json:
        print(json.dumps(now))
        return
    print(f"Hypothesis machines, ci profile (must-hold searches of {args.cells}): {steps} spec "
          f"steps, {now['ci wall']:.0f} per wall second, {now['ci cpu']:.0f} per CPU-second")
    print(f"bare spec random walk (enabled + step): {now['bare cpu']:.0f} steps per CPU-second")
    if base is not None:
        print("baseline " + ", ".join(f"{k} {v:.0f}" for k, v in base.items()))
        print("ratio now/baseline " + ", ".join(f"{k} {now[k] / base[k]:.2f}x" for k in now))


def _baseline(tree: Path, cells: str) -> dict[str, float]:
    command = [sys.executable, str(Path(__file__).resolve()), "--json", "--cells", cells]
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


if __name__ == "__main__":
    main()
