"""Ended requests forgotten (`model_checks.explore.lru_reductions.forgetting`) against the search
without it, on every matrix cell of the explorer's CI profile and on every spec mutant.

Per matrix cell: the first instance the CI profile tries for its environment (`CI_SHAPES`,
`CI_LARGE_SHAPES` for the largest environments) at the profile's state limit; per spec
mutant: its witness's configuration (`Mutant.witness_config`). Each is searched both ways,
every property and lemma judged on both and compared (`forgetting_agreement.compare`: equal
statuses and shortest counterexample lengths). Prints one line per instance (states both
ways, their ratio, the verdicts compared, any disagreement) and a total; exit 1 on a
disagreement or an instance where nothing was compared.

    python benchmarks/forgetting_soundness.py [--cells V2_D3,V3_none] [--no-mutants]
        [--max-states N] [--slots]

With `--slots` the search compared is the one whose key also renumbers the live requests'
slots (`model_checks.explore.lru_reductions.slots`), with the media flags chosen where P0
reads them (`model_checks.explore.lru_reductions.lazy_media`), against the same search without
any forgetting.
"""

from __future__ import annotations

import argparse
import sys
import time

from model_checks.explore.command import PROFILES
from model_checks.explore.forgetting_agreement import Comparison, compare, matrix_instances
from model_checks.mutation.spec_mutants import spec_mutants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--cells", default=None, help="comma-separated cells, e.g. V2_D3")
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument("--max-states", type=int, default=PROFILES["ci"].max_states)
    parser.add_argument("--slots", action="store_true",
                        help="compare the search that renumbers request slots too")
    args = parser.parse_args(argv)
    wanted = None if args.cells is None else set(args.cells.split(","))
    instances = matrix_instances(wanted)
    if not args.no_mutants and wanted is None:
        instances += [(f"mutant {m.name}", m.witness_config()) for m in spec_mutants()]
    failed, plain_total, forgetting_total = 0, 0, 0
    started = time.process_time()
    for label, config in instances:
        result = compare(config, args.max_states, label, args.slots)
        failed += not result.agrees
        plain_total += result.plain_states
        forgetting_total += result.forgetting_states
        print(_line(result), flush=True)
    keyed = "forgetting and slots" if args.slots else "forgetting"
    print(f"{len(instances)} instances, {failed} disagreeing; states {plain_total} without "
          f"{keyed}, {forgetting_total} with ({plain_total / max(forgetting_total, 1):.2f}x); "
          f"{time.process_time() - started:.0f} CPU-s")
    return 1 if failed or not instances else 0


def _line(result: Comparison) -> str:
    cut = "" if result.plain_complete else " (cut)"
    cut_f = "" if result.forgetting_complete else " (cut)"
    ratio = result.plain_states / max(result.forgetting_states, 1)
    verdict = "agree" if result.agrees else "DISAGREE: " + "; ".join(
        result.disagreements or ("nothing compared",))
    return (f"{result.label:28s} {result.plain_states:7d}{cut:6s} {result.forgetting_states:7d}"
            f"{cut_f:6s} {ratio:5.2f}x {result.compared:3d} compared  {verdict}")


if __name__ == "__main__":
    sys.exit(main())

