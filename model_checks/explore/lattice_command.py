"""`python -m model_checks explore --lattice --json PATH`: the drift lattice, written out.

Runs `lattice.search` for the variants (`--variant`) over the subsets of the drift sources
(`--sources`, default D1-D11), writes one JSON object per variant and property (`--json`)
and, per minimal breaking environment, its shortest counterexample in the replayable trace
format (`--out`). Before a trace is written it is lifted to the top environment
(`monotone.lift_failure`): the lemma the search stands on, checked on every witness.

Exit codes: 0 the lattice was searched (undecided environments are listed, not failures);
1 no environment was explored, or a witness does not lift (a defect); 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from model_checks.executor import ClusterError
from model_checks.explore.lattice import (
    Knowledge,
    LatticeRequest,
    search,
    summarise,
    trace_data,
)
from model_checks.explore.lattice_instance import LatticeShape, drift_order, lattice_config
from model_checks.explore.monotone import lift_failure
from model_checks.simulate.counterexample import replay_data, write_trace
from spec import ALL_DRIFT, VARIANTS, environment, variant_named

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

LATTICE_PROFILES = {"ci": (2, 60_000), "nightly": (3, 60_000)}
"""Per profile: the largest environment searched bottom-up, and the state limit per
exploration (a resource limit; the verdicts never depend on the clock)."""

DEFAULT_JSON = Path("build/explore/lattice.json")
DEFAULT_OUT = Path("build/explore/lattice")
ALL_SOURCES = drift_order(d.value for d in ALL_DRIFT)


def add_lattice_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lattice", action="store_true",
                        help="search the drift lattice: per variant and property, the minimal "
                             "sets of drift sources that break it (writes --json, traces in "
                             "--out)")
    parser.add_argument("--sources", default=None,
                        help="with --lattice: the drift sources whose subsets are searched, "
                             "joined by + (default: D1+...+D11)")
    parser.add_argument("--max-size", type=int, default=None,
                        help="with --lattice: the largest environment searched bottom-up "
                             "(default: the profile's, ci 2, nightly 3)")


class LatticeUsageError(ValueError):
    """Bad arguments: one line on stderr, exit 2."""


def lattice_request(args: argparse.Namespace) -> LatticeRequest:
    """The request the arguments describe; `LatticeUsageError` (or ValueError) if bad."""
    size, limit = LATTICE_PROFILES[args.profile]
    if args.env is not None:
        raise LatticeUsageError("--env picks matrix cells; with --lattice use --sources")
    if args.cross_check is not None:
        raise LatticeUsageError("--cross-check judges matrix cells; it does not apply to "
                                "--lattice")
    if args.processes < 1:
        raise LatticeUsageError(f"--processes must be >= 1, got {args.processes}")
    variants = tuple(args.variant or [v.name for v in VARIANTS])
    for name in variants:
        variant_named(name)
    sources = ALL_SOURCES
    if args.sources is not None:
        sources = drift_order(d.value for d in environment(*args.sources.split("+")))
    if args.max_size is not None:
        if args.max_size < 0:
            raise LatticeUsageError(f"--max-size must be >= 0, got {args.max_size}")
        size = args.max_size
    return LatticeRequest(tuple(dict.fromkeys(variants)), sources, size, LatticeShape(),
                          limit, args.processes, args.dask)


def run_lattice(args: argparse.Namespace) -> int:
    try:
        request = lattice_request(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    started = time.perf_counter()
    try:
        known = search(request)
    except ClusterError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    seconds = time.perf_counter() - started
    entries = summarise(request, known)
    out = args.out if args.out != Path("build/explore/counterexamples") else DEFAULT_OUT
    target = args.json if args.json is not None else DEFAULT_JSON
    try:
        write_witnesses(request, known, entries, out)
    except WitnessDefect as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_FAILED
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(entries, indent=1) + "\n")
    print(lattice_table(entries))
    sizes = sorted(o.states for k in known.values() for o in k.explored)
    explored, states = len(sizes), sum(sizes)
    cut = sum(not o.complete for k in known.values() for o in k.explored)
    median = sizes[len(sizes) // 2] if sizes else 0
    print(f"lattice over {'+'.join(request.sources)} (bottom-up to {request.max_size} "
          f"sources, {request.max_states} states per exploration): {explored} environments "
          f"explored ({cut} cut by the state limit), {states} states (median {median} per "
          f"exploration), {seconds:.1f} s with {request.processes} process(es); "
          f"JSON in {target}, traces in {out}")
    if explored == 0 or states == 0:
        print("no environment explored: nothing was checked")
        return EXIT_FAILED
    return EXIT_OK


class WitnessDefect(AssertionError):
    """A minimal set's trace does not replay, or does not lift to the top environment."""


def write_witnesses(
    request: LatticeRequest, known: dict[str, Knowledge], entries: list[dict[str, Any]],
    out: Path,
) -> None:
    """Write each entry's traces under `out` and fill in their paths (old files there are
    removed first: the folder holds exactly this run's witnesses)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.json"):
        old.unlink()
    for entry in entries:
        variant, prop = entry["variant"], entry["property"]
        for witness in entry["traces"]:
            data = trace_data(known, variant, prop, witness["drift"])
            _check_witness(request, variant, prop, witness["drift"], data)
            path = out / f"{variant}_{'+'.join(witness['drift']) or 'none'}_{prop}.json"
            write_trace(path, data)
            witness["trace"] = path.as_posix()


def _check_witness(request: LatticeRequest, variant: str, prop: str, drift: list[str],
                   data: dict[str, Any]) -> None:
    replayed = replay_data(data)
    lasso = "cycle_from" in data["#meta"]
    if not lasso and replayed.step != replayed.recorded_step:
        raise WitnessDefect(f"{variant} {'+'.join(drift)} {prop}: the trace does not break "
                            "it on replay")
    top = lattice_config(variant_named(variant), request.sources, request.shape)
    failure = lift_failure(replayed.trace.config, top, [s.action for s in replayed.trace.steps])
    if failure is not None:
        raise WitnessDefect(f"{variant} {'+'.join(drift)} {prop}: the trace does not lift to "
                            f"the top environment ({failure}): the monotonicity lemma fails")


def lattice_table(entries: list[dict[str, Any]]) -> str:
    """One line per variant and property: the minimal breaking sets, and what is undecided."""
    lines = []
    for e in entries:
        sets = " ".join("+".join(s) or "none" for s in e["minimal_breaking"]) or "-"
        verdict = "holds everywhere" if e["holds_everywhere"] else f"minimal breaking: {sets}"
        if e["unsettled_breaking"]:
            verdict += "; breaks, minimality unsettled: " + " ".join(
                "+".join(s) for s in e["unsettled_breaking"])
        if not e["complete"]:
            verdict += f"; {e['undecided_count']} environment(s) undecided"
        lines.append(f"{e['variant']} {e['property']}: {verdict}")
    return "\n".join(lines)
