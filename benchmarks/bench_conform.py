"""Lockstep conformance throughput: spec steps per second, in one process and across two.

    .venv/bin/python benchmarks/bench_conform.py [--walks N] [--length L]

Runs the same random walks (every configuration of `model_checks.conform.run.configurations`,
variants V0-V3, reference adapter) in each mode and prints steps, seconds and steps per
second. A step is one spec action applied to both sides and compared (everything observable,
plus the implementation-side property monitors). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, as a script

from model_checks.conform.reference_adapter import factory
from model_checks.conform.remote import Command, RemoteEngines, SetupMsg
from model_checks.conform.run import Profile, conform


def measure(walks: int, length: int, processes: int) -> tuple[int, float]:
    profile = Profile("bench", walks=walks, length=length, corpus=False)
    remote = RemoteEngines("model_checks.conform.reference_adapter:factory") if processes == 2 \
        else None
    try:
        if remote is not None:  # start the child before timing: its start-up is not a step
            remote.request(remote_start_probe())
        start = time.perf_counter()
        outcome = conform(factory(), profile, engine_factory=remote)
        seconds = time.perf_counter() - start
    finally:
        if remote is not None:
            remote.close()
    if outcome.failure is not None:
        raise SystemExit(f"disagreement while benchmarking:\n{outcome.failure.report()}")
    return outcome.steps, seconds


def remote_start_probe() -> Command:
    return Command("start", SetupMsg(2, "V3", 1),
                   adapter="model_checks.conform.reference_adapter:factory")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walks", type=int, default=3)
    parser.add_argument("--length", type=int, default=30)
    args = parser.parse_args()
    print(f"{'mode':<16}{'steps':>8}{'seconds':>10}{'steps/s':>10}")
    for processes in (1, 2):
        steps, seconds = measure(args.walks, args.length, processes)
        mode = "one process" if processes == 1 else "two processes"
        print(f"{mode:<16}{steps:>8}{seconds:>10.2f}{steps / seconds:>10.0f}")


if __name__ == "__main__":
    main()
