"""`python -m model_checks conform --adapter module:factory`: the conformance command.

Exit codes (documented in docs/conformance.md):

- 0 the implementation conforms: lockstep steps were run (never 0), every step agreed, and
  it broke none of the `--require`d properties;
- 1 a disagreement (the shrunk trace is printed), a `--require`d property the implementation
  broke (its trace is printed, and written beside --json for `--replay`), or nothing checked
  (0 steps: the adapter supports none of the variants asked for);
- 2 usage error (one line on stderr, no traceback), including a `--variant` the adapter does
  not support and an unknown property id in `--require`;
- 3 harness failure: the harness could not do its work (the engine process died, was stopped,
  never started); a record says where, and nothing is blamed on the implementation.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from model_checks.conform.adapter import Adapter, HarnessFailure, load_adapter
from model_checks.conform.lockstep import EngineFactory
from model_checks.conform.report import (
    PropertyShrinker,
    replay_trace,
    safety_lines,
    write_broken_traces,
)
from model_checks.conform.run import PROFILES, Outcome, PropertyBroken, conform
from model_checks.records import Verdict, VerdictRecord, write_records
from spec import registry

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_HARNESS = 0, 1, 2, 3
VARIANT_NAMES = ("V0", "V1", "V2", "V3")


class _Usage(Exception):
    """A usage error: one line on stderr, exit 2."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--adapter", required=True, metavar="MODULE:FACTORY",
                        help="a callable returning a model_checks.conform.adapter.Adapter, e.g. "
                        "model_checks.conform.reference_adapter:factory")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="write the verdict records here (and the failing traces beside it)")
    parser.add_argument("--processes", type=int, choices=(1, 2), default=1,
                        help="1: engine in this process; 2: engine in a child process over zmq")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                        help="budget: ci (small), dev, nightly (large)")
    parser.add_argument("--variant", action="append", choices=VARIANT_NAMES,
                        help="check only these variants (repeatable; default: every variant "
                        "the adapter supports; one it does not support is a usage error)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated runs")
    parser.add_argument("--require", default="", metavar="IDS",
                        help="comma-separated property ids (e.g. S1,S2,S3): exit 1 if the "
                        "implementation breaks one of them, even where the spec does too")
    parser.add_argument("--keep-going", action="store_true",
                        help="collect one shrunk disagreement per job instead of stopping at "
                        "the first")
    parser.add_argument("--replay", type=Path, metavar="TRACE",
                        help="run one trace file (as written beside --json, or by simulate) "
                        "in lockstep against the implementation instead of the profile")


def run(args: argparse.Namespace) -> int:
    try:
        adapter = _adapter(args.adapter)
        required = _required(args.require)
        variants = _variants(adapter, args.variant)
    except _Usage as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    remote = None
    if args.processes == 2:
        from model_checks.conform.remote import RemoteEngines  # pyzmq only when it is used

        remote = RemoteEngines(args.adapter)
    factory: EngineFactory | None = remote
    try:
        if args.replay is not None:
            return replay_trace(adapter, args.replay, factory, required, args.adapter)
        outcome = conform(adapter, PROFILES[args.profile], variants=variants,
                          engine_factory=factory, seed=args.seed, keep_going=args.keep_going)
        broken = outcome.broken_properties()
        for prop in sorted(required.intersection(broken)):
            shrinker = PropertyShrinker(adapter, factory)
            broken[prop] = shrinker.shrink(prop, broken[prop])
    except HarnessFailure as error:
        print(f"HARNESS FAILURE: {error} (not the implementation's; exit {EXIT_HARNESS})")
        return EXIT_HARNESS
    finally:
        if remote is not None:
            remote.close()
    mode = "two processes (zmq)" if remote else "one process"
    return _report(args, adapter, outcome, broken, required, mode)


def _adapter(path: str) -> Adapter:
    try:
        return load_adapter(path)
    except Exception as error:  # a usage error: one line, no traceback
        raise _Usage(f"--adapter: {error}") from None


def _required(text: str) -> frozenset[str]:
    ids = [part.strip() for part in text.split(",") if part.strip()]
    known = [p.id for p in registry()]
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise _Usage(f"--require: got {', '.join(unknown)}, expected ids among "
                     f"{', '.join(known)}")
    return frozenset(ids)


def _variants(adapter: Adapter, asked: list[str] | None) -> tuple[str, ...] | None:
    if not asked:
        return None
    missing = [v for v in asked if not adapter.supports(v)]
    if missing:
        has = [v for v in VARIANT_NAMES if adapter.supports(v)]
        raise _Usage(f"--variant: adapter {adapter.name} does not support "
                     f"{', '.join(missing)} (it supports {', '.join(has) or 'none'})")
    return tuple(asked)


def _report(
    args: argparse.Namespace,
    adapter: Adapter,
    outcome: Outcome,
    broken: dict[str, PropertyBroken],
    required: frozenset[str],
    mode: str,
) -> int:
    print(f"conformance of {adapter.name} ({mode}, profile {args.profile}): "
          f"{outcome.steps} lockstep steps in {outcome.seconds:.1f}s "
          f"({outcome.steps_per_second:.0f} steps/s)")
    print(f"variants checked: {' '.join(outcome.checked) or 'none'}; not checked (the adapter "
          f"does not support them): {' '.join(outcome.not_checked) or 'none'}")
    trace_paths: dict[str, str] = {}
    if args.json:
        trace_paths = write_broken_traces(args.json, broken)
    for finding in outcome.findings:
        print(f"DISAGREEMENT in {finding.where}")
        print(finding.disagreement.report())
    if outcome.harness is not None:
        print(f"HARNESS FAILURE in {outcome.harness} (not the implementation's; the run "
              f"stopped there)")
    elif outcome.steps == 0:
        print("NOTHING CHECKED: 0 lockstep steps (the adapter supports none of the variants "
              "asked for); this is not a pass")
    elif not outcome.findings:
        print("lockstep: conforms: every step agreed with the spec")
    print("\n".join(safety_lines(outcome, broken, required, trace_paths, args.adapter)))
    failed_required = sorted(required.intersection(broken))
    if args.json:
        _write(args.json, outcome, trace_paths)
    if outcome.harness is not None:
        return EXIT_HARNESS
    if failed_required:
        print(f"REQUIRED PROPERTIES BROKEN by the implementation: {', '.join(failed_required)}")
    if outcome.findings or failed_required or not outcome.conforms:
        return EXIT_FAIL
    return EXIT_OK


def _write(path: Path, outcome: Outcome, trace_paths: dict[str, str]) -> None:
    records = list(outcome.records)
    if outcome.findings:
        text = "\n\n".join(f"{f.where}\n{f.disagreement.report()}" for f in outcome.findings)
        trace_path = path.with_suffix(".trace.txt")
        trace_path.parent.mkdir(parents=True, exist_ok=True)
        trace_path.write_text(text + "\n")
        records = [replace(r, counterexample_path=str(trace_path))
                   if r.property == "lockstep" and r.counterexample_length else r
                   for r in records]
    safety = [replace(r, counterexample_path=trace_paths.get(r.property))
              if r.verdict is Verdict.COUNTEREXAMPLE else r
              for r in outcome.safety_records(outcome.seconds)]
    if outcome.steps == 0 and outcome.harness is None:
        records.append(VerdictRecord("conformance", "none", (), "lockstep", Verdict.UNKNOWN, 0,
                                     "steps", outcome.seconds,
                                     detail=f"{outcome.adapter}: nothing checked (0 steps)"))
    write_records(path, records + safety)

