"""The drift lattice's search against brute force, on a restriction of the drift sources.

Both decide every subset of `--sources` for `--variant` on the lattice's instance family
(`model_checks.explore.lattice_instance`): brute force explores every subset; the search
explores the top, then bottom-up only what monotonicity leaves undecided. Printed: the
explorations, states and wall time of each (medians of `--repeat` runs, one process each),
the ratio, the median states per exploration, and whether the two give the same minimal
breaking sets; never asserted. Figures for the full lattice are the command's own last line
(`python -m model_checks explore --lattice`).

    .venv/bin/python benchmarks/bench_lattice.py [--variant V1] [--sources D2+D7+D10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from model_checks.explore.exploration import antichain_minimal
from model_checks.explore.lattice import BREAKS, EnvTask, LatticeRequest, search
from model_checks.explore.lattice_instance import Rung, drift_order
from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.explore.lattice_report import summarise


def brute_force(variant: str, sources: tuple[str, ...]) -> tuple[dict[str, list[list[str]]],
                                                                  list[int]]:
    """Per property the minimal breaking sets, from every subset; and the states of each."""
    breaking: dict[str, list[frozenset[str]]] = {}
    states = []
    for size in range(len(sources) + 1):
        for env in itertools.combinations(sources, size):
            outcome = LRU_LATTICE.explore(EnvTask(variant, env, Rung(), 30_000))
            states.append(outcome.states)
            for prop, verdict in outcome.verdicts.items():
                breaking.setdefault(prop, [])
                if verdict == BREAKS:
                    breaking[prop].append(frozenset(env))
    minimal = {p: [list(drift_order(e)) for e in antichain_minimal(b)]
               for p, b in breaking.items()}
    return minimal, states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="V1")
    parser.add_argument("--sources", default="D2+D7+D10")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sources = drift_order(args.sources.split("+"))
    brute_times, search_times = [], []
    for _ in range(args.repeat):
        started = time.perf_counter()
        expected, brute_states = brute_force(args.variant, sources)
        brute_times.append(time.perf_counter() - started)
        request = LatticeRequest((args.variant,), sources, len(sources), (Rung(),),
                                 LRU_LATTICE, processes=1)
        started = time.perf_counter()
        known = search(request)
        search_times.append(time.perf_counter() - started)
    found = {e["property"]: e["minimal_breaking"] for e in summarise(request, known)}
    explored = known[args.variant].explored
    brute, pruned = statistics.median(brute_times), statistics.median(search_times)
    print(f"{args.variant} over {'+'.join(sources)} ({2 ** len(sources)} subsets), "
          f"median of {args.repeat}:")
    print(f"  brute force: {len(brute_states)} explorations, {sum(brute_states)} states, "
          f"{brute:.1f} s; median {statistics.median(brute_states):.0f} states/exploration")
    print(f"  search:      {len(explored)} explorations, {sum(o.states for o in explored)} "
          f"states, {pruned:.1f} s ({pruned / brute:.2f} of brute force)")
    print(f"  same minimal breaking sets: {found == expected}")


if __name__ == "__main__":
    main()
