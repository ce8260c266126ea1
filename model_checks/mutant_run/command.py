"""The command line of `python -m model_checks mutants`.

Runs the selected mutants (`--mutant`, default all) through the selected checkers
(`--checkers`, default all), printing a progress line per (mutant, checker) as it finishes,
then one table, mutant x checker: `caught: PROP (N steps)` per required property, `SURVIVED`,
or `-` where the checker does not apply. Exit codes: 0 every applicable checker caught every
mutant it must catch; 1 some mutant survived one; 2 usage error (one line on stderr).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from model_checks.executor import ClusterError, add_dask_argument, backend_from
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, usage_exit
from model_checks.kernel.options import add_jobs_argument, add_processes_argument
from model_checks.kernel.text_table import grid
from model_checks.kernel.verdict_records import write_records
from model_checks.mutant_run.options import Options
from model_checks.mutant_run.outcome import CHECKERS, NOT_APPLICABLE, Outcome
from model_checks.mutation.registry import command_names

EXIT_SURVIVED = EXIT_MISMATCH

HELP = "run every mutant through every checker that must catch it: a mutant x checker table"
DESCRIPTION = (
    "Every spec mutant (model_checks/mutation/registry.py) through its witness scenario "
    "(scenario), its Hypothesis cell at the ci profile (hypothesis) and, if it breaks "
    "S1/S2/S3/H1, its Z3 cells (z3); every history mutant of the reference (the same "
    "registry) through the conformance run (conformance). A checker that applies must "
    "catch the mutant: every property the mutant must break (z3: its safety properties; "
    "conformance: any disagreement). Not part of the main job, which already covers the "
    "mutants: its simulate part runs the spec mutants' Hypothesis cells, and its test "
    "command runs the reference mutants' kill matrix (tests/conform/test_conform_mutants.py) "
    "and Z3's shallow mutant cells (tests/smt/test_smt_mutants.py)."
)
EPILOG = ("exit codes: 0 every mutant caught by every checker that must catch it, "
          "1 a mutant survived such a checker, 2 usage error")


class MutantsUsageError(ValueError):
    """A bad argument of `mutants`; printed as one line, exit code 2."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.epilog = EPILOG
    parser.add_argument("--checkers", default=",".join(CHECKERS),
                        help=f"comma-separated subset of {','.join(CHECKERS)} (default: all)")
    parser.add_argument("--mutant", action="append", default=None, metavar="NAME",
                        help="only this mutant (repeatable; default: all)")
    parser.add_argument("--json", type=Path, default=None,
                        help="write one verdict record per mutant, checker and property here "
                             "(and Hypothesis's traces next to it)")
    add_processes_argument(parser, detail="the conformance checker's, 1 in process, 2 also "
                           "across two processes", choices=False)
    add_jobs_argument(parser, default=2, default_text="2, for Hypothesis and Z3")
    parser.add_argument("--z3-depth", type=int, default=Options.z3_depth,
                        help="Z3: steps searched over the whole budget and size range "
                             f"(default {Options.z3_depth})")
    deep = Options.z3_deep_depth
    parser.add_argument("--z3-deep-depth", type=int, default=deep,
                        help="Z3: steps searched with the witness's budget and sizes when the "
                             f"first search found nothing (default {deep})")
    parser.add_argument("--z3-rlimit", type=int, default=Options.z3_rlimit,
                        help="Z3: resource units per solver query, the same on every machine "
                             f"(default {Options.z3_rlimit})")
    add_dask_argument(parser)


def _checkers(text: str) -> tuple[str, ...]:
    wanted = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in CHECKERS]
    if unknown or not wanted:
        raise MutantsUsageError(f"unknown checker {', '.join(unknown) or repr(text)}; "
                                f"expected a comma-separated subset of {','.join(CHECKERS)}")
    return tuple(c for c in CHECKERS if c in wanted)


def _mutants(names: Sequence[str] | None) -> tuple[str, ...]:
    # the registry's names alone, without the checkers behind them (torch, z3): a usage
    # error is fast
    known = command_names()
    if names is None:
        return known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise MutantsUsageError(f"unknown mutant {', '.join(unknown)}; expected one of "
                                f"{', '.join(known)}")
    return tuple(n for n in known if n in names)


def _options(args: argparse.Namespace) -> Options:
    """The budgets, checked (before the mutant names, which load the checkers)."""
    if args.processes not in (1, 2):
        raise MutantsUsageError("--processes must be 1 or 2")
    if min(args.jobs, args.z3_depth, args.z3_deep_depth, args.z3_rlimit) < 1:
        raise MutantsUsageError("--jobs, --z3-depth, --z3-deep-depth and --z3-rlimit must "
                                "be >= 1")
    traces = args.json.with_suffix("") / "hypothesis" if args.json is not None else None
    return Options(args.z3_depth, args.z3_deep_depth, args.z3_rlimit,
                   args.jobs, args.processes, traces)


def _with_backend(options: Options, args: argparse.Namespace) -> Options:
    try:
        return replace(options, backend=backend_from(args, options.jobs))
    except ClusterError as error:
        raise MutantsUsageError(str(error)) from None


def table(names: Sequence[str], columns: Sequence[str],
          outcomes: dict[tuple[str, str], Outcome]) -> str:
    """Rows: mutants; columns: checkers; a cell is the outcome's text, `-` where the checker
    does not apply, `SURVIVED` where it applies and reported nothing."""
    from model_checks.mutant_run import checkers

    body = []
    for name in names:
        row = [name]
        for checker in columns:
            outcome = outcomes.get((name, checker))
            if outcome is not None:
                row.append(outcome.text())
            else:
                row.append("SURVIVED" if checkers.applies(checker, name) else NOT_APPLICABLE)
        body.append(row)
    return grid(["mutant", *columns], body)


def survivors(names: Sequence[str], columns: Sequence[str],
              outcomes: dict[tuple[str, str], Outcome]) -> list[tuple[str, str]]:
    """The (mutant, checker) cells where a checker that must catch the mutant did not."""
    from model_checks.mutant_run import checkers

    return [
        (name, checker) for name in names for checker in columns
        if checkers.applies(checker, name)
        and ((name, checker) not in outcomes or outcomes[(name, checker)].survived)
    ]


def run(args: argparse.Namespace) -> int:
    """Run the selection, print the table and the verdict; 0 all caught, 1 a survivor."""
    columns = _checkers(args.checkers)
    options = _with_backend(_options(args), args)  # before the checkers load: fail fast
    try:
        return _run(args, columns, _mutants(args.mutant), options)
    finally:
        if options.backend is not None:
            options.backend.close()


def _run(args: argparse.Namespace, columns: tuple[str, ...], names: tuple[str, ...],
         options: Options) -> int:
    from model_checks.mutant_run import checkers

    selection = checkers.select(names)
    print(f"Mutants: {len(selection.spec)} spec, {len(selection.impl)} implementation; "
          f"checkers: {', '.join(columns)}", flush=True)
    start = time.perf_counter()
    outcomes: dict[tuple[str, str], Outcome] = {}

    def progress(line: str) -> None:
        print(line, flush=True)

    for checker in columns:
        progress(f"== {checker}")
        for outcome in checkers.RUNNERS[checker](selection, options, progress):
            outcomes[(outcome.mutant, outcome.checker.name)] = outcome
    print("\nMutant x checker: what caught it (steps to the violation; witness: the search "
          "found nothing, the witness script did), SURVIVED, or - (does not apply)")
    print(table(names, columns, outcomes))
    if args.json is not None:
        records = [r for o in outcomes.values() for r in o.records]
        write_records(args.json, records)
        print(f"\n{len(records)} verdict records written to {args.json}")
    lost = survivors(names, columns, outcomes)
    applicable = sum(checkers.applies(c, n) for n in names for c in columns)
    seconds = time.perf_counter() - start
    if lost:
        which = ", ".join(f"{n} ({c})" for n, c in lost)
        print(f"\nverdict: {len(lost)} of {applicable} mutant x checker cells SURVIVED: "
              f"{which} ({seconds:.0f} s)")
        return EXIT_SURVIVED
    print(f"\nverdict: every mutant caught by every checker that must catch it, "
          f"{applicable} cells ({seconds:.0f} s)")
    return EXIT_OK


def run_checked(args: argparse.Namespace) -> int:
    """`run`, with a usage error printed as one line on stderr and exit code 2."""
    try:
        return run(args)
    except MutantsUsageError as error:
        return usage_exit(error)
