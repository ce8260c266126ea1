"""`python -m model_checks server --replay WITNESS [--replay ...] [--json OUT]`: witnesses of the
LRU and shm designs replayed over HTTP on a real `vllm serve` (set up by
`scripts/setup-vllm-server`).

Exit codes: 4 a run showed a break (a 5xx, an engine death or a wrong answer); 0 every run
showed none; 5 a witness has a step HTTP cannot drive (named on stderr; its run is skipped);
2 bad input (one line on stderr, nothing started); 3 a server did not start.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from model_checks.kernel.exits import EXIT_OK, EXIT_USAGE, UsageError
from model_checks.kernel.itf import BadTraceFile, read_trace

EXIT_HARNESS = 3
EXIT_BREAK = 4
EXIT_NOT_DRIVABLE = 5


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--replay", action="append", required=True, type=Path, metavar="WITNESS",
                        help="an ITF witness (repeatable) of the LRU or shm design")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the runs as JSON")
    parser.add_argument("--no-processor-cache", action="store_true",
                        help="serve with --mm-processor-cache-gb 0 instead of the witness's "
                             "budget")
    parser.add_argument("--cache-type", choices=("lru", "shm"),
                        help="serve this --mm-processor-cache-type instead of the witness "
                             "design's (the same schedule on the other cache)")
    parser.add_argument("--keep-encoder-cache", action="store_true",
                        help="do not reset the engine's encoder cache before each request")
    parser.add_argument("--patched", action="store_true",
                        help="serve from .vllm-server-patched-venv (the tag patch: "
                             "scripts/setup-vllm-server --patched); a missed request is "
                             "resent once with its data, and an answer for the content "
                             "first sent under a reused uuid is stale-content, not a break")
    parser.add_argument("--logs", type=Path, default=Path("build/server-logs"),
                        help="folder for the servers' logs (default build/server-logs)")


def run(args: argparse.Namespace) -> int:
    from model_checks.server.plan import NotAWitness, NotDrivable, Plan
    from model_checks.server.plans import plan

    plans: list[Plan] = []
    undriven: list[dict[str, Any]] = []
    for path in args.replay:
        try:
            plans.append(plan(read_trace(path), str(path)))
        except (BadTraceFile, NotAWitness) as error:
            raise UsageError(str(error)) from None
        except NotDrivable as why:
            print(f"server: {path}: cannot be driven over HTTP at {why}", file=sys.stderr)
            undriven.append({"witness": str(path), "driven": False, "step": why.step,
                             "action": why.label, "why": why.why})
    runs: list[dict[str, Any]] = []
    if plans:
        from model_checks.server.launch import ServerFailed
        try:
            runs = _run_all(plans, args)
        except ServerFailed as error:
            print(f"server: {error}", file=sys.stderr)
            return EXIT_HARNESS
    if args.json:
        from model_checks.server.drive import write
        write(args.json, [*runs, *undriven])
    if any(r["broke"] for r in runs):
        return EXIT_BREAK
    return EXIT_NOT_DRIVABLE if undriven else EXIT_OK


def _run_all(plans: list[Any], args: argparse.Namespace) -> list[dict[str, Any]]:
    from model_checks.server.drive import drive, references
    from model_checks.server.launch import PATCH, PATCHED_SERVER_PYTHON, SERVER_PYTHON, Server
    from model_checks.server.plan import MAX_MODEL_LEN

    python = PATCHED_SERVER_PYTHON if args.patched else SERVER_PYTHON

    reference = Server(["--mm-processor-cache-gb", "0", "--max-model-len", str(MAX_MODEL_LEN),
                        "--max-num-batched-tokens",
                        str(max(p.encoder_cache_tokens for p in plans)),
                        "--limit-mm-per-prompt",
                        json.dumps({"image": max(p.max_items for p in plans)})],
                       args.logs / "reference.log", python)
    try:
        reference.start()
        print(f"server: reference server (no processor cache) up in {reference.started_in:.0f} s")
        version = reference.version()
        expected = references(reference, plans, stale_content=args.patched)
    finally:
        reference.stop()
    runs = []
    for plan in plans:
        flags = plan.flags(processor_cache=not args.no_processor_cache,
                           cache_type=args.cache_type)
        server = Server(flags, args.logs / (Path(plan.witness).stem + ".log"), python)
        try:
            server.start()
            begun = time.monotonic()
            steps = drive(plan, server, expected, not args.keep_encoder_cache,
                          resend_on_miss=args.patched, stale_content=args.patched)
            took = time.monotonic() - begun
        finally:
            server.stop()
        from model_checks.server.drive import Run
        result = Run(plan, flags, server.started_in, steps, not args.keep_encoder_cache)
        print(f"server: {plan.witness}: started in {server.started_in:.0f} s, "
              f"{len(steps)} steps in {took:.1f} s: "
              f"{'BREAK' if result.broke else 'no break'}")
        for step in steps:
            print(f"  step {step.step} {step.action}: {step.outcome.value} ({step.status})"
                  + (f": {step.message}" if step.message else ""))
            for line in step.log[:3]:
                print(f"      log: {line}")
        runs.append({**result.as_json(), "driven": True, "vllm": version,
                     **({"patch": PATCH} if args.patched else {})})
    return runs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m model_checks server")
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except UsageError as error:
        print(f"server: {error}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
