"""States per second of the exhaustive explorer, against a naive breadth-first search.

Both search the same cells of the explorer's instance (`model_checks.explore.instance`) with
`spec.enabled` and `spec.step`: the naive search keeps a set of states and nothing else; the
explorer also renames processing ids and interchangeable identities (its two reductions),
stores every edge, and then judges every property and lemma on the complete graph; the
`nosym` columns build the same graph without identity symmetry (same run, same machine).
Printed per cell: states, edges, diameter, and the medians of `--repeat` runs (states per
second, and seconds to build and judge the whole cell); never asserted.

    .venv/bin/python benchmarks/bench_explore.py [--cells V2_D3,V3_D7] [--repeat 3]

Measured (2026-11-30, issue-11P, 2 cores shared with three other engineers, load 6-9,
`--repeat 3`; the "before" row is this script at main 54d0969, same session):

    cell          before: states  s(build+judge)   after: states  s(build+judge)  nosym states
    V2_D3                    943    0.35                   472    0.15               943
    V3_D7                   1589    0.70                   796    0.30              1589
    V1_D6                   4703    1.7                   2352    0.75              4703
    V2_D7_D10               3765    1.3                   1883    0.6               3765
    V1_D8                  57286   20                     9598    2.9              57286

(filled in from the run quoted in docs/explore.md; see there for the command)
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import deque

from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.judge import judge_all
from spec import Config, State, enabled, initial, step, variant_named

DEFAULT_CELLS = ("V2_D3", "V3_D7", "V1_D6", "V2_D7_D10", "V1_D8")


def naive(config: Config) -> tuple[int, int]:
    """(states, edges) of a plain breadth-first search over the spec."""
    start = initial(config)
    seen: set[State] = {start}
    queue = deque([start])
    edges = 0
    while queue:
        state = queue.popleft()
        for action in enabled(config, state):
            successor = step(config, state, action)
            edges += 1
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return len(seen), edges


def _config(label: str) -> Config:
    variant, *env = label.split("_")
    return explore_config(variant_named(variant), tuple(e for e in env if e != "none"),
                          max_requests=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", default=",".join(DEFAULT_CELLS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'cell':12s} {'naive st':>8s} {'naive st/s':>10s} {'states':>7s} {'edges':>7s} "
          f"{'diam':>4s} {'build st/s':>10s} {'+judge st/s':>11s} {'s total':>7s} "
          f"{'nosym st':>8s} {'nosym s':>7s}")
    for label in args.cells.split(","):
        config = _config(label)
        naive_times, build_times, total_times, plain_times = [], [], [], []
        for _ in range(args.repeat):
            started = time.perf_counter()
            naive_states, _ = naive(config)
            naive_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            graph = build(config)
            build_times.append(time.perf_counter() - started)
            judge_all(graph)
            total_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            plain = build(config, symmetry=False)
            judge_all(plain)
            plain_times.append(time.perf_counter() - started)
        states = len(graph.states)
        naive_rate = naive_states / statistics.median(naive_times)
        print(f"{label:12s} {naive_states:8d} {naive_rate:10.0f} "
              f"{states:7d} {graph.steps_taken:7d} {graph.diameter:4d} "
              f"{states / statistics.median(build_times):10.0f} "
              f"{states / statistics.median(total_times):11.0f} "
              f"{statistics.median(total_times):7.2f} "
              f"{len(plain.states):8d} {statistics.median(plain_times):7.2f}")


if __name__ == "__main__":
    main()
