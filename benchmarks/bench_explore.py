"""States per second of the exhaustive explorer, against a naive breadth-first search.

Both search the same cells of the explorer's instance (`model_checks.explore.instance`) with
`spec.enabled` and `spec.step`: the naive search keeps a set of states and nothing else; the
explorer also renames processing ids and interchangeable identities (its two reductions),
stores every edge, and then judges every property and lemma on the complete graph; the
`nosym` columns build the same graph without identity symmetry (same run, same machine).
Printed per cell: states, edges, diameter, and the medians of `--repeat` runs (states per
second, and seconds to build and judge the whole cell); never asserted.

    .venv/bin/python benchmarks/bench_explore.py [--cells V2_D3,V3_D7] [--repeat 3]
        [--por-cells V2_D1_D7@3,V3_D1_D7@3]

The POR table decides whole cells (`--por-cells`, `@N` requests) with and without
partial-order reduction in the same run: states, and the median CPU seconds
(`time.process_time`) to build and judge every property and lemma; the reduced column adds
the bounded unreduced search that keeps counterexamples shortest (`reduction/judging.py`).

Measured 2026-11-30 (issue-11P), one session, 2 cores shared with three other engineers
(load average 8-9), `--repeat 3`, medians. "before": this script at main 54d0969 (processing
renaming only); "after": identity symmetry and the inner-loop changes; "nosym": the same
code with `symmetry=False`, in the same run as "after". Seconds = build + judge every
property and lemma.

    cell        before states  s     after states  s     nosym states  s
    V2_D3             943     0.20          472   0.15          943   0.23
    V3_D7            1381     0.26          691   0.16         1381   0.27
    V1_D6            4723     1.51         2362   0.71         4723   1.07
    V2_D7_D10        3765     1.28         1883   0.64         3765   0.85
    V1_D8           57286    15.8          9598   3.23        57286  19.4

Identity symmetry halves the states with two interchangeable identities and divides them by
six with three (D8's a, b, c), and the time by 1.3-2.1 and 4.9; the inner-loop changes alone
(nosym against before: 0.8-1.5x) are within the noise of this load.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import deque

from model_checks.explore.graph import build
from model_checks.explore.instance import explore_config
from model_checks.explore.judge import judge_all
from model_checks.explore.reduction.judging import judge_reduced
from spec import Config, State, enabled, initial, step, variant_named

DEFAULT_CELLS = ("V2_D3", "V3_D7", "V1_D6", "V2_D7_D10", "V1_D8")
DEFAULT_POR_CELLS = ("V2_D1_D7@3", "V3_D1_D7@3", "V2_D7@3", "V1_none@3")


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


def _config(label: str, requests: int = 2) -> Config:
    variant, *env = label.split("_")
    return explore_config(variant_named(variant), tuple(e for e in env if e != "none"),
                          max_requests=requests)


def por_table(cells: list[str], repeat: int) -> None:
    """Deciding whole cells with and without partial-order reduction, CPU seconds."""
    print(f"{'cell':16s} {'states':>7s} {'cpu s':>7s} {'por st':>7s} {'+minim':>7s} "
          f"{'por cpu s':>9s} {'ratio':>6s}")
    for label in cells:
        name, _, requests = label.partition("@")
        config = _config(name, int(requests or 2))
        plain_times, por_times = [], []
        for _ in range(repeat):
            started = time.process_time()
            graph = build(config)
            judge_all(graph)
            plain_times.append(time.process_time() - started)
            started = time.process_time()
            reduced = judge_reduced(config)
            por_times.append(time.process_time() - started)
        plain, por = statistics.median(plain_times), statistics.median(por_times)
        print(f"{label:16s} {len(graph.states):7d} {plain:7.2f} "
              f"{len(reduced.graph.states):7d} {reduced.minimising_states:7d} "
              f"{por:9.2f} {plain / por:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", default=",".join(DEFAULT_CELLS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--por-cells", default=",".join(DEFAULT_POR_CELLS),
                        help="cells (@N: N requests) decided with and without partial-order "
                             "reduction; empty: none")
    args = parser.parse_args()
    if args.cells:
        main_table(args.cells.split(","), args.repeat)
    if args.por_cells:
        por_table(args.por_cells.split(","), args.repeat)


def main_table(cells: list[str], repeat: int) -> None:
    print(f"{'cell':12s} {'naive st':>8s} {'naive st/s':>10s} {'states':>7s} {'edges':>7s} "
          f"{'diam':>4s} {'build st/s':>10s} {'+judge st/s':>11s} {'s total':>7s} "
          f"{'nosym st':>8s} {'nosym s':>7s}")
    for label in cells:
        config = _config(label)
        naive_times, build_times, total_times, plain_times = [], [], [], []
        for _ in range(repeat):
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
