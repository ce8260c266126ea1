"""`python -m model_checks conform --adapter module:factory`: the conformance command.

Exit codes: 0 the implementation conforms (every lockstep step agreed and no property broke
on it that the spec keeps); 1 a disagreement or a property failure (the shrunk trace is
printed, and written next to --json); 2 usage error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from model_checks.conform.adapter import load_adapter
from model_checks.conform.lockstep import EngineFactory
from model_checks.conform.run import PROFILES, conform
from model_checks.records import write_records

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--adapter", required=True, metavar="MODULE:FACTORY",
                        help="a callable returning a model_checks.conform.adapter.Adapter, e.g. "
                        "model_checks.conform.reference_adapter:factory")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="write the verdict records here (and the failing trace beside it)")
    parser.add_argument("--processes", type=int, choices=(1, 2), default=1,
                        help="1: engine in this process; 2: engine in a child process over zmq")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                        help="budget: ci (small), dev, nightly (large)")
    parser.add_argument("--variant", action="append", choices=("V0", "V1", "V2", "V3"),
                        help="check only these variants (repeatable; default: all supported)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random walks")


def run(args: argparse.Namespace) -> int:
    try:
        adapter = load_adapter(args.adapter)
    except Exception as error:  # a usage error: one line, no traceback
        print(f"error: --adapter: {error}", file=sys.stderr)
        return EXIT_USAGE
    remote = None
    if args.processes == 2:
        from model_checks.conform.remote import RemoteEngines  # pyzmq only when it is used

        remote = RemoteEngines(args.adapter)
    factory: EngineFactory | None = remote
    try:
        outcome = conform(
            adapter, PROFILES[args.profile],
            variants=tuple(args.variant) if args.variant else None,
            engine_factory=factory, seed=args.seed,
        )
    finally:
        if remote is not None:
            remote.close()
    mode = "two processes (zmq)" if remote else "one process"
    print(f"conformance of {adapter.name} ({mode}, profile {args.profile}): "
          f"{outcome.steps} lockstep steps in {outcome.seconds:.1f}s "
          f"({outcome.steps_per_second:.0f} steps/s)")
    trace_path = None
    if outcome.failure is not None:
        print(f"DISAGREEMENT in {outcome.where}")
        print(outcome.failure.report())
        if args.json:
            trace_path = args.json.with_suffix(".trace.txt")
            trace_path.parent.mkdir(parents=True, exist_ok=True)
            trace_path.write_text(f"{outcome.where}\n{outcome.failure.report()}\n")
    else:
        print("conforms: every step agreed; no property broke on the implementation that the "
              "spec keeps")
    if args.json:
        records = outcome.records
        if trace_path is not None:
            from dataclasses import replace

            records = [replace(r, counterexample_path=str(trace_path))
                       if r.property == "lockstep" and r.counterexample_length else r
                       for r in records]
        write_records(args.json, records)
    return EXIT_OK if outcome.conforms else EXIT_FAIL
