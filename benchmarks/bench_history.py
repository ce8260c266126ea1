"""The history checker's cost: histories checked per second and search nodes expanded,
against the history's length and the number of concurrent clients.

For each thread count and requests per client, `--histories` seeded schedules of the
reference V3 (`conform --threads`'s workload, environment D3: one-sided clears, so misses,
invalidations and resends happen) are recorded, then each is checked against the spec
(`model_checks.history.explain`). Reported per row: calls per history (median), search
nodes expanded per history (median and maximum: a count, the same on every machine),
histories checked per second (the checking alone: its median CPU time per history, over the
schedules; a rate that depends on the machine) and every verdict (all should be
explained). A second table does the same for the asyncio clients (`conform --async-clients`).
Then the same checks with no hints (the order of a search that knows only the calls'
intervals, as for a log a server wrote): the nodes that costs.

    python benchmarks/bench_history.py [--histories 10] [--threads 2 4 8] [--requests 2 4 8]

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from model_checks.conform.async_adapter import factory as async_factory
from model_checks.conform.reference_adapter import factory
from model_checks.history.concurrent import ThreadRun, checked_environment, run_tasks, run_threads
from model_checks.history.explain import Limit, explain
from model_checks.history.log import History
from model_checks.kernel.text_table import grid
from spec import environment

ENV = environment("D3")
LIMIT = Limit(200_000)


def unhinted(history: History) -> History:
    return History(history.header, tuple(replace(c, hints=(None, None, None))
                                         for c in history.calls))


def row(record: Callable[[int], History], histories: int, label: str,
        strip: bool = False) -> tuple[str, ...]:
    """Record `histories` seeded histories, check each; the table row."""
    calls, nodes, seconds = [], [], []
    verdicts: Counter[str] = Counter()
    for seed in range(histories):
        history = record(seed)
        if strip:
            history = unhinted(history)
        start = time.process_time()
        verdict = explain(history, checked_environment(ENV), LIMIT)
        seconds.append(time.process_time() - start)
        calls.append(len(history.calls))
        nodes.append(verdict.explored)
        verdicts[type(verdict).__name__.lower()] += 1
    per_second = 1 / max(statistics.median(seconds), 1e-9)
    return (label, f"{statistics.median(calls):.0f}", f"{statistics.median(nodes):.0f}",
            str(max(nodes)), f"{per_second:.0f}",
            ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))


HEADER = ("clients x requests", "calls", "nodes (median)", "nodes (max)", "histories/s",
          "verdicts")


def table(title: str, rows: Sequence[tuple[str, ...]]) -> str:
    return f"{title}\n{grid(HEADER, rows)}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--histories", type=int, default=10)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--requests", type=int, nargs="+", default=[2, 4, 8])
    parser.add_argument("--async-clients", type=int, nargs="+", default=[10, 50])
    args = parser.parse_args(argv)
    threads = [row(lambda s, t=t, r=r: run_threads(factory(), "V3", ENV,
                                                    ThreadRun(t, s, r)).history,
                   args.histories, f"{t} threads x {r}")
               for t in args.threads for r in args.requests]
    print(table("threads (reference V3, environment D3; hints from the yield hook)", threads))
    tasks = [row(lambda s, n=n: run_tasks(async_factory(), "V3", ENV, n, s).history,
                 args.histories, f"{n} tasks x 2") for n in args.async_clients]
    print(table("asyncio tasks (reference V3, environment D3; no hook: no hints)", tasks))
    small = [row(lambda s, t=t: run_threads(factory(), "V3", ENV, ThreadRun(t, s, 2)).history,
                 args.histories, f"{t} threads x 2", strip=True) for t in args.threads]
    print(table("threads, hints removed (the order a server's log without hints gets)",
                small))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
