"""Lockstep conformance throughput: lockstep steps per second, in one process and across two.

    .venv/bin/python benchmarks/bench_conform.py [--walks N] [--length L] [--rounds R]

Two workloads, each in both modes, variants V0-V3, reference adapter:

- `generated`: what `conform` runs after its corpus: the spec's Hypothesis machines driving
  spec and implementation (`walks` examples of at most `length` steps per configuration, each
  settled), Hypothesis's own cost included;
- `scripted`: the scenario corpus replayed in lockstep (no Hypothesis): the lockstep alone.

A step is one spec action applied to both sides and compared (everything observable, plus
the implementation-side property monitors). Each cell is the median of `rounds` runs, and
the last column is its ratio to one process, `scripted` (the baseline, measured in the same
run). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, as a script

from model_checks.conform.lru_lockstep.run import ConformRun, conform
from model_checks.conform.profiles import ConformProfile
from model_checks.conform.reference_adapter import factory
from model_checks.conform.remote import Command, RemoteEngines, SetupMsg

REFERENCE = "model_checks.conform.reference_adapter:factory"


def measure(profile: ConformProfile, processes: int) -> tuple[int, float]:
    remote = RemoteEngines(REFERENCE) if processes == 2 else None
    try:
        if remote is not None:  # start the child before timing: its start-up is not a step
            remote.request(Command("start", SetupMsg(2, "V3", 1), adapter=REFERENCE))
        start = time.perf_counter()
        outcome = conform(factory(), profile, ConformRun(engine_factory=remote))
        seconds = time.perf_counter() - start
    finally:
        if remote is not None:
            remote.close()
    if not outcome.conforms:
        raise SystemExit(f"no conformance while benchmarking: {outcome.where} "
                         f"{outcome.harness or ''}")
    return outcome.steps, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--walks", type=int, default=3)
    parser.add_argument("--length", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    workloads = {
        "scripted": ConformProfile("scripted", walks=0, length=0, corpus=True),
        "generated": ConformProfile("generated", walks=args.walks, length=args.length,
                                    corpus=False),
    }
    print(f"{'workload':<11}{'mode':<15}{'steps':>7}{'seconds':>9}{'steps/s':>9}{'ratio':>7}")
    baseline = None
    for name, profile in workloads.items():
        for processes in (1, 2):
            runs = [measure(profile, processes) for _ in range(args.rounds)]
            steps = runs[0][0]
            seconds = statistics.median(s for _, s in runs)
            rate = steps / seconds
            baseline = baseline or rate
            mode = "one process" if processes == 1 else "two processes"
            print(f"{name:<11}{mode:<15}{steps:>7}{seconds:>9.2f}{rate:>9.0f}"
                  f"{rate / baseline:>7.2f}", flush=True)


if __name__ == "__main__":
    main()
