"""`python -m model_checks prove`: the matrix's safety cells through Z3.

Prints one line per (variant, environment) group as it finishes, then the cells that differ
from their expectation, and writes verdict records (--json). Every solver query is bounded by
z3's resource limit (`--rlimit`, units per query), so the verdicts are the same on any machine
under any load. Exit codes: 0 every decided cell matches its expectation and every expected
counterexample was found; 1 some cell differs, or a cell expected to break is undecided (its
counterexample was not found within the depth and rlimit); 2 usage error. A cell expected to
hold that is left undecided is listed, not failed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.answers import beside
from model_checks.executor import ClusterError, add_dask_argument, backend_from
from model_checks.kernel.cell_sets import add_cells_argument
from model_checks.kernel.cells import cell_label
from model_checks.kernel.environment_arg import MATRIX_SOURCES, add_environment_argument
from model_checks.kernel.exits import usage_exit
from model_checks.kernel.matrix import Expectation
from model_checks.kernel.options import add_jobs_argument
from model_checks.kernel.trace_file import trace_to_json, write_trace
from model_checks.kernel.verdict_records import write_records
from model_checks.smt.decided_cells import SAFETY, SmtCell, matrix_cells
from model_checks.smt.limits import BMC_RLIMIT, CERTIFICATE_RLIMIT, CHC_RLIMIT
from spec import ROUTER, VARIANTS, by_id
from spec.drift import Environment

if TYPE_CHECKING:  # z3 is imported when the cells run, not to parse arguments
    from model_checks.smt.runner import CellOutcome

DEFAULT_DEPTH = 6
DEFAULT_SEARCH_DEPTH = 10
DEFAULT_RLIMIT = BMC_RLIMIT
DEFAULT_CHC = ("S3",)
CHC_CHOICES = ("S1", "S3", "H1")
MIRROR_MODES = ("none", "one-item", "all")
"""`--mirror`'s choices (`smt.prove.relational.MODES`, which imports z3; a test keeps them
equal)."""


class ProveUsageError(ValueError):
    """A bad argument of `prove`; the CLI prints it and exits with 2."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"bound to which holding properties are proved "
                             f"(default {DEFAULT_DEPTH})")
    parser.add_argument("--search-depth", type=int, default=DEFAULT_SEARCH_DEPTH,
                        help="bound to which a counterexample is searched for properties "
                             f"expected to break (default {DEFAULT_SEARCH_DEPTH})")
    parser.add_argument("--json", type=Path, default=None, help="write verdict records here")
    add_jobs_argument(parser, default=2)
    parser.add_argument("--rlimit", type=int, default=DEFAULT_RLIMIT,
                        help="z3 resource units per BMC query, the same on every machine "
                             f"(default {DEFAULT_RLIMIT})")
    parser.add_argument("--rlimit-certificate", type=int, default=CERTIFICATE_RLIMIT,
                        help="z3 resource units per query of a certificate's check "
                             f"(default {CERTIFICATE_RLIMIT})")
    parser.add_argument("--rlimit-chc", type=int, default=CHC_RLIMIT,
                        help="z3 resource units per Spacer (CHC) query lifting a bounded proof "
                             f"to all depths (default {CHC_RLIMIT})")
    parser.add_argument("--chc", default=",".join(DEFAULT_CHC),
                        help="properties whose bounded proofs Spacer tries to lift to all "
                             "depths, comma separated from S1,S3,H1, or 'none' (default "
                             f"{','.join(DEFAULT_CHC)})")
    parser.add_argument("--mirror", default="one-item", choices=MIRROR_MODES,
                        help="where the hand-written mirror certificate lifts bounded proofs "
                             "of H1, S1, S3 to all depths (`smt.prove.relational`): 'one-item' "
                             "encodings (default), 'all' (adds V3 under D8: "
                             "514 million units on one query), 'none'")
    parser.add_argument("--variant", action="append", default=None,
                        help="only this variant (repeatable)")
    add_environment_argument(
        parser, allowed=MATRIX_SOURCES, repeatable=True, default="the environments of the "
        "cells --cells picks", help=f"only this environment: drift ids joined by '+', "
        f"{ROUTER} for D5's router configuration, or 'none'")
    parser.add_argument("--property", action="append", default=None, choices=SAFETY,
                        help="only this property (repeatable)")
    add_cells_argument(parser)
    parser.add_argument("--parametric", action="store_true",
                        help="instead of the matrix: prove S1-S3 for every instance size, "
                             "per variant under each goal's environment (any number of "
                             "identities, requests, items, front ends, any budget and sizes; "
                             "`smt.prove.parametric_goals`)")
    add_dask_argument(parser)


def _check_numbers(args: argparse.Namespace) -> None:
    if args.depth < 0 or args.search_depth < 0 or min(args.jobs, args.rlimit,
                                                      args.rlimit_certificate,
                                                      args.rlimit_chc) < 1:
        raise ProveUsageError("--depth and --search-depth must be >= 0, --jobs, --rlimit, "
                              "--rlimit-certificate and --rlimit-chc >= 1")
    _chc_properties(args)


def _chc_properties(args: argparse.Namespace) -> tuple[str, ...]:
    """The properties of `--chc`, checked."""
    if args.chc == "none":
        return ()
    wanted = tuple(args.chc.split(","))
    for prop in wanted:
        if prop not in CHC_CHOICES:
            raise ProveUsageError(f"--chc: got {prop!r}, expected properties from "
                                  f"{','.join(CHC_CHOICES)} or 'none'")
    return wanted


def _selected(args: argparse.Namespace) -> list[SmtCell]:
    names = [v.name for v in VARIANTS]
    for name in args.variant or ():
        if name not in names:
            raise ProveUsageError(f"unknown variant {name!r}; expected one of {', '.join(names)}")
    envs = None
    if args.environment is not None:
        envs = {env.sources for env in args.environment}
    cells = [
        c for c in matrix_cells(args.cells)
        if (args.variant is None or c.variant.name in args.variant)
        and (envs is None or c.environment in envs)
        and (args.property is None or c.property in args.property)
    ]
    if envs is not None:
        cells += store_cells(args.variant or names, sorted(envs), args.property or SAFETY,
                             {(c.variant.name, c.environment, c.property) for c in cells})
    if not cells:
        raise ProveUsageError(f"no cell matches the selection; {selectable(args, envs)}")
    return cells


def store_cells(variants: list[str], envs: list[tuple[str, ...]], props: Sequence[str],
                taken: set[tuple[str, tuple[str, ...], str]]) -> list[SmtCell]:
    """The cells of an explicit selection that the matrix does not judge but the answer
    store decides (`model_checks.answers`): expected to break where it has a witness, to hold
    where it holds or is vacuous; an undecided answer gives no cell."""
    from model_checks.answers import load

    store = load()
    found = []
    for name in variants:
        variant = next(v for v in VARIANTS if v.name == name)
        for env in envs:
            if "D5-router" in env:
                continue  # the router configuration is the matrix's own cell
            for prop in props:
                if (name, env, prop) in taken:
                    continue
                answer = store.answer(name, env, prop)
                if answer.breaks or answer.kept:
                    expected = Expectation.BREAKS if answer.breaks else Expectation.HOLDS
                    found.append(SmtCell(variant, env, prop, expected, "store"))
    return found


def selectable(args: argparse.Namespace, envs: set[tuple[str, ...]] | None) -> str:
    """What the selection could name instead: the matrix's environments and properties for
    the variants asked, and that an explicit --environment reaches the answer store's."""
    cells = [c for c in matrix_cells(args.cells)
             if args.variant is None or c.variant.name in args.variant]
    shown = sorted({Environment.of(c.environment).text for c in cells},
                   key=lambda e: (len(e), e))
    props = sorted({c.property for c in cells}, key=SAFETY.index)
    return (f"--cells {args.cells} has environments {', '.join(shown[:12])}"
            f"{' ...' if len(shown) > 12 else ''} and properties {','.join(props)}; an "
            f"--environment the matrix does not judge selects the answer store's decided "
            f"cells ({','.join(SAFETY)})" + ("" if envs is None else ", and the store "
                                            "decides none of those asked"))


def _counterexample_file(directory: Path, outcome: CellOutcome) -> str | None:
    """Write a Violated cell's trace as a replayable ITF trace file (the format
    of `simulate`, read by `python -m model_checks replay`); return its path, else None."""
    from model_checks.smt.results import Violated

    result = outcome.result
    if not isinstance(result, Violated):
        return None
    cell = outcome.cell
    path = directory / f"{cell_label(cell.variant.name, cell.environment, cell.property)}.json"
    violation = by_id(result.property).check_trace(result.trace)
    step, reason = (len(result.trace.steps), "not reproduced") if violation is None else (
        violation.step, violation.reason)
    data = trace_to_json(result.trace, property_id=result.property, step=step, reason=reason,
                         checker=outcome.record.checker)
    write_trace(path, data)
    return str(path)


def run_parametric(args: argparse.Namespace) -> int:
    """S1-S3, H1 and L1-L3 for every instance, per variant under each goal's environment
    (`parametric_goals.goals`, `parametric_liveness.goals`): 0 every goal proved, 1 a
    certificate was rejected (a finding: the record is unknown and says which query
    failed)."""
    from model_checks.smt.prove import parametric_goals, parametric_liveness
    from spec.drift import Environment

    if args.variant or args.environment or args.property:
        raise ProveUsageError("--parametric proves its own goals for every instance: drop "
                              "--variant, --environment and --property")
    print("Z3: S1-S3, H1 and L1-L3 for every instance size (quantified invariants, MBQI)")
    records = [*parametric_goals.records(args.rlimit_certificate),
               *parametric_liveness.records(args.rlimit_certificate)]
    for record in records:
        print(f"  {record.variant} {record.property} under "
              f"{Environment.of(record.environment).text}: {record.verdict.value} for instance "
              f"{record.instance!r} ({record.detail}; {record.seconds:.1f} s)")
    if args.json is not None:
        write_records(args.json, records)
    theorem = _retry_theorem(args.rlimit_certificate)
    proved = all(r.bound is None and r.verdict.value == "proved" for r in records)
    return 0 if proved and theorem else 1


def _retry_theorem(rlimit: int) -> bool:
    """Prints the undisturbed-attempt theorem's proof per variant (`retry_window.GOALS`);
    True if every goal is proved."""
    from model_checks.smt.prove import retry_window
    from model_checks.smt.prove.parametric import ParametricRejected

    print("Z3: the undisturbed-attempt theorem about retries for every instance "
          "(model_checks/kernel/retries.py)")
    proved = True
    for goal in retry_window.GOALS:
        where = f"  {goal.variant.name} under {retry_window.describe(goal.environment)}"
        try:
            proof = retry_window.prove(goal, rlimit)
        except ParametricRejected as error:
            print(f"{where}: unknown ({error})")
            proved = False
            continue
        print(f"{where}: proved for instance 'any' ({proof.method}; assumes "
              f"{proof.certificate}; {proof.seconds:.1f} s)")
    return proved


def run(args: argparse.Namespace) -> int:
    """Run the selected cells; 0 all decided cells as expected, 1 otherwise."""
    _check_numbers(args)
    if args.parametric:
        return run_parametric(args)
    cells = _selected(args)
    try:
        backend = backend_from(args, args.jobs)
    except ClusterError as error:
        raise ProveUsageError(str(error)) from None
    from model_checks.smt.prove.proved_first import ProveOptions
    from model_checks.smt.runner import SmtRun, run_cells

    print(f"Z3: {len(cells)} cells; holding properties to depth {args.depth}, "
          f"counterexamples searched to depth {max(args.depth, args.search_depth)}")
    start = time.perf_counter()
    try:
        proving = ProveOptions(args.rlimit_certificate, args.rlimit_chc,
                               _chc_properties(args), args.mirror)
        smt_run = SmtRun(args.depth, args.rlimit, args.search_depth, proving)
        outcomes = run_cells(cells, smt_run, _print, args.jobs, backend)
    finally:
        backend.close()
    records = []
    directory = args.json.with_suffix("") if args.json is not None else None
    for outcome in outcomes:
        path = _counterexample_file(directory, outcome) if directory is not None else None
        record = outcome.record
        if path is not None:
            from dataclasses import replace

            record = replace(record, counterexample_path=path)
        records.append(record)
    if args.json is not None:
        write_records(args.json, records)
    weaker = [o for o in outcomes if _weaker(o)]
    wrong = [o for o in outcomes if o.status in ("mismatch", "failed") and o not in weaker]
    undecided = [o for o in outcomes if o.status == "undecided" and o not in weaker]
    missing = [o for o in undecided if o.cell.expected is Expectation.BREAKS]
    for o in weaker:
        stronger = beside.stronger_break(o.cell.variant.name, o.cell.environment,
                                         o.cell.property)
        print(f"WEAKER THAN THE ANSWER: {o.cell.variant.name} "
              f"{Environment.of(o.cell.environment).text} {o.cell.property}: no counterexample "
              f"here ({o.record.verdict.value}{_depth(o.record.bound)}, {o.record.detail}); "
              f"{stronger.text() if stronger else ''}")
    for label, group in (("MISMATCH", wrong), ("MISSING COUNTEREXAMPLE", missing),
                         ("undecided", [o for o in undecided if o not in missing])):
        for o in group:
            print(f"{label}: {o.cell.variant.name} {Environment.of(o.cell.environment).text} "
                  f"{o.cell.property}: expected {o.cell.expected.value}, got "
                  f"{o.record.verdict.value} ({o.record.detail})")
    print(f"\n{len(outcomes) - len(wrong) - len(undecided) - len(weaker)} of {len(outcomes)} "
          f"cells as expected, {len(undecided)} undecided ({len(missing)} expected "
          f"counterexamples not found), {len(wrong)} differ"
          + (f", {len(weaker)} weaker than the project's answer" if weaker else "")
          + f" ({time.perf_counter() - start:.1f} s)")
    return 1 if wrong or missing else 0


def _depth(bound: int | None) -> str:
    return "" if bound is None else f" to depth {bound}"


def _weaker(outcome: CellOutcome) -> bool:
    """A cell taken from the answer store as a break (`store_cells`) that this run found no
    counterexample for within its bounds: weaker than the answer (a deeper or wider instance
    reached the break), not a contradiction; a proof for all depths would be one."""
    record = outcome.record
    return (outcome.cell.source == "store" and outcome.cell.expected is Expectation.BREAKS
            and outcome.status in ("mismatch", "undecided")
            and not (record.verdict.value == "proved" and record.bound is None))


def run_checked(args: argparse.Namespace) -> int:
    """`run`, with a usage error printed as one line and exit code 2."""

    try:
        return run(args)
    except ProveUsageError as error:
        return usage_exit(error)


def _print(line: str) -> None:
    """A progress line, flushed (the main job sends it to a details file)."""
    print(line, flush=True)
