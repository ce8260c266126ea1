"""States per second of one exploration: the local `build` against the same search spread over
a Dask cluster (`model_checks.explore.distributed.build_distributed`), in the same run.

Starts a `dask.distributed.LocalCluster` of `--workers` single-threaded worker processes on
127.0.0.1 (or uses `--scheduler ADDRESS`), then per cell builds the graph `--repeat` times
each way and prints the medians: wall-clock states per second, the client's CPU seconds
(with a LocalCluster the scheduler runs in the client's process and counts there) against
the local build's, and the workers' CPU seconds summed. Every distributed graph is checked
equal to the local one before its time counts. Never asserted: a measurement, not a test.

    .venv/bin/python benchmarks/bench_distributed.py [--cells V1_D6,V2_D7@3] [--repeat 3]
        [--workers 2] [--stateless [--chunk 500]]

The search is the owned-partition one (each partition of the visited set on one worker),
or with `--stateless` the stateless workers' (the client merges every successor). A cell is
`VARIANT_ENV[_ENV...][@REQUESTS]` (2 requests by default). The 3-request cells are there
because the 2-request ones are small (a tenth to half a second locally): a search of a
dozen levels pays Dask's latency per level, which only a larger level amortises.

What to expect on one machine: the workers do the expansion, the deduplication and the
exchange, the client the ranking, reading each new state once and writing the edges; with
two workers on two cores shared with the client and the scheduler (and here with other
work), the spread search does more work in all than the local one (docs/explore.md, "One
exploration over a cluster").
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from functools import partial

from model_checks.executor.cluster import DaskCluster
from model_checks.explore.distributed import build_distributed
from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config
from spec import Config, variant_named

DEFAULT_CELLS = ("V1_D6", "V2_D7_D10", "V1_D8", "V2_D7@3", "V1_D6@3")


def _config(label: str) -> Config:
    """`V2_D7_D10`: V2 under D7 and D10 with 2 requests; `V2_D7@3`: with 3."""
    name, _, requests = label.partition("@")
    variant, *env = name.split("_")
    return explore_config(variant_named(variant), tuple(e for e in env if e != "none"),
                          max_requests=int(requests or 2))


def _timed(make: Callable[[], Graph]) -> tuple[Graph, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    graph = make()
    return graph, time.perf_counter() - wall, time.process_time() - cpu


def _workers_cpu(cluster: DaskCluster) -> float:
    """The CPU seconds the cluster's worker processes have used so far, summed."""
    return sum(cluster.client.run(time.process_time).values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", default=",".join(DEFAULT_CELLS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=500,
                        help="states per task (--stateless only)")
    parser.add_argument("--stateless", action="store_true",
                        help="the stateless workers' search (the client merges every edge)")
    parser.add_argument("--scheduler", default=None,
                        help="a running scheduler's address (default: a LocalCluster here)")
    args = parser.parse_args()
    local_cluster = None
    address = args.scheduler
    if address is None:
        from distributed import LocalCluster

        local_cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                     processes=True, host="127.0.0.1", dashboard_address=None)
        address = local_cluster.scheduler_address
    cluster = DaskCluster(address)
    try:
        mode = f"stateless, chunk {args.chunk} states" if args.stateless else "owned partitions"
        print(f"{cluster.where}; {mode}; medians of {args.repeat}")
        print(f"{'cell':12s} {'states':>7s} {'edges':>7s} {'levels':>6s} {'local st/s':>10s} "
              f"{'spread st/s':>11s} {'ratio':>6s} {'local cpu s':>11s} {'client cpu s':>12s} "
              f"{'workers cpu s':>13s}")
        for label in args.cells.split(","):
            config = _config(label)
            local, spread, workers = [], [], []
            for _ in range(args.repeat):
                graph, wall, cpu = _timed(partial(build, config))
                local.append((wall, cpu))
                before = _workers_cpu(cluster)
                other, wall, cpu = _timed(
                    partial(build_distributed, config, cluster,
                            GraphOptions(chunk_states=args.chunk, owned=not args.stateless)))
                workers.append(_workers_cpu(cluster) - before)
                assert other == graph, f"{label}: the distributed graph differs from build's"
                spread.append((wall, cpu))
            states = len(graph.states)
            local_wall = statistics.median(w for w, _ in local)
            spread_wall = statistics.median(w for w, _ in spread)
            print(f"{label:12s} {states:7d} {graph.steps_taken:7d} {graph.diameter + 1:6d} "
                  f"{states / local_wall:10.0f} {states / spread_wall:11.0f} "
                  f"{local_wall / spread_wall:6.2f} "
                  f"{statistics.median(c for _, c in local):11.2f} "
                  f"{statistics.median(c for _, c in spread):12.2f} "
                  f"{statistics.median(workers):13.2f}")
    finally:
        cluster.close()
        if local_cluster is not None:
            local_cluster.close()


if __name__ == "__main__":
    main()
