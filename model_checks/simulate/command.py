"""`python -m model_checks simulate`: run the Hypothesis machines over a design's expected
matrix and its mutants, print the verdict matrix (the properties found broken per cell; `!`
marks a cell that differs from its expectation), the mutants with their counterexample lengths, and
per-rule statistics; write the verdict records (`--json`) and one JSON trace per
counterexample (`--out`). Exit code 0 when every verdict is as expected and every enabled
rule fired, 1 otherwise.

`--design NAME` (default lru): a design that declares an expected matrix
(`simulate.lru_matrix.matrix_for`: the LRU design) is searched over it; another design is
searched by the same machine with its own rules (`simulate.designs`, `--variant`), the
matrix's options (`MATRIX_ONLY`) refused there in one line.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.executor import Backend, ClusterError, add_dask_argument, backend_from
from model_checks.kernel.cells import Cell, Expectation, cell_label, cell_matches, older_cell
from model_checks.kernel.environment_arg import add_environment_argument, design_sources
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, EXIT_USAGE, UsageError, usage_exit
from model_checks.kernel.options import add_jobs_argument
from model_checks.kernel.text_table import grid
from model_checks.kernel.verdict_records import Verdict, write_records
from model_checks.simulate.lru_matrix import matrix_for
from model_checks.simulate.matrix_design import MatrixDesign
from model_checks.simulate.profiles import PROFILES, SimulateProfile
from spec.designs.base import DEFAULT_DESIGN
from spec.drift import BadEnvironment, Environment

if TYPE_CHECKING:  # Hypothesis is imported when a search runs, not to parse arguments
    from model_checks.simulate.run import CellResult


def _default_matrix() -> MatrixDesign:
    found = matrix_for(DEFAULT_DESIGN)
    assert found is not None, "the default design declares its matrix"
    return found


def add_simulate_arguments(parser: argparse.ArgumentParser) -> None:
    """Every option of `simulate`: the default design's matrix's with no default for those of
    `MATRIX_ONLY` (None: `run_simulate` refuses one given with a design without a matrix, and
    sets its declared default for a design with one)."""
    _add_matrix_arguments(parser, _default_matrix())
    parser.add_argument("--design", default=None,
                        help="the design (lru, shm, encoder, ...; default lru)")
    parser.add_argument("--variant", action="append", default=None,
                        help="a design other than lru: only this variant (default: its last; "
                        "repeatable)")
    parser.set_defaults(**{dest: None for _, dest in MATRIX_ONLY})


def _add_matrix_arguments(parser: argparse.ArgumentParser, matrix: MatrixDesign) -> None:
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                        help="search budget (default: ci, derandomized)")
    parser.add_argument("--json", type=Path, default=None,
                        help="where to write the verdict records (default: "
                        "build/simulate/records.json; another design: not written)")
    parser.add_argument("--out", type=Path, default=Path("build/simulate/counterexamples"),
                        help="folder for the counterexample traces")
    parser.add_argument("--only", default="",
                        help="run only cells whose label contains this text (e.g. V2_D1, "
                             "V2_D1+D7)")
    add_environment_argument(
        parser, allowed=design_sources(), repeatable=True, default="the environments of the "
        "cells --cells picks; another design: none", help="only this environment: drift ids "
        "joined by '+' (or D5-router), or 'none'")
    matrix.add_cells_argument(parser)
    parser.add_argument("--no-mutants", action="store_true", help="skip the mutants")
    parser.add_argument("--tables", action="store_true",
                        help="print the step table of every counterexample")
    add_jobs_argument(parser, default=None, default_text="the profile's, 2")
    add_dask_argument(parser)


MATRIX_ONLY: tuple[tuple[str, str], ...] = (
    ("--out", "out"), ("--only", "only"), ("--cells", "cells"),
    ("--no-mutants", "no_mutants"), ("--tables", "tables"), ("--jobs", "jobs"),
    ("--dask", "dask"))
"""The options of a design with an expected matrix (flag, destination) the other designs'
search does not read: its matrix of cells, mutants, trace files and workers."""
DESIGN_ONLY: tuple[tuple[str, str], ...] = (("--variant", "variant"),)
"""The other designs' options a matrix's search does not read."""


def _matrix_defaults(args: argparse.Namespace, matrix: MatrixDesign) -> None:
    """Each of `MATRIX_ONLY` not given: its default as the matrix's options declare it."""
    declared = argparse.ArgumentParser(add_help=False)
    _add_matrix_arguments(declared, matrix)
    for _, dest in MATRIX_ONLY:
        if getattr(args, dest) is None:
            setattr(args, dest, declared.get_default(dest))
    if args.json is None:
        args.json = Path("build/simulate/records.json")


def _refuse(design: str, options: tuple[tuple[str, str], ...],
            args: argparse.Namespace, matrix: bool) -> None:
    given = [flag for flag, dest in options if getattr(args, dest) not in (None, False)]
    if given:
        whose = "another design's options" if matrix else "the LRU design's options"
        raise UsageError(f"--design {design}: {whose} only: {', '.join(given)}")


def matrix_table(results: Sequence[CellResult], properties: Sequence[str]) -> str:
    """Rows: environments; columns: variants; a cell lists the properties found broken (in
    the order of `properties`), with `!` and the expectation where they differ from it."""
    variants = sorted({r.variant for r in results})
    rows: dict[tuple[str, ...], dict[str, str]] = {}
    for r in results:
        found = {rec.property for rec in r.records if rec.verdict is Verdict.COUNTEREXAMPLE}
        expected = {p for p, e in r.expectations.items() if e is Expectation.BREAKS}
        text = " ".join(p for p in properties if p in found) or "ok"
        if found != expected or r.mismatches:
            want = " ".join(p for p in properties if p in expected) or "ok"
            text += f" (expected {want})!"
        rows.setdefault(r.environment, {})[r.variant] = text
    header = ["environment", *variants]
    body = [[Environment.of(env).text, *(cells.get(v, "") for v in variants)]
            for env, cells in rows.items()]
    return grid(header, body)


def lengths_table(results: Sequence[CellResult]) -> str:
    body = []
    for r in results:
        for prop, finding in sorted(r.findings.items()):
            expected = r.expectations.get(prop) is Expectation.BREAKS
            body.append([r.label, prop, str(finding.length), "yes" if expected else "NO",
                         str(finding.path or "")])
    return grid(["cell", "property", "length", "expected", "trace"], body)


def stats_table(results: Sequence[CellResult]) -> str:
    names = sorted({name for r in results for name in r.rules})
    body = []
    for r in results:
        row = [r.label]
        for name in names:
            if name not in r.rules:
                row.append("")
                continue
            fired, enabled = r.stats.fired[name], r.stats.enabled[name]
            mark = "!" if enabled >= 10 and not fired else "?" if enabled and not fired else ""
            row.append(f"{fired}/{enabled}{mark}")
        body.append(row)
    return grid(["cell (fired/enabled)", *names], body)


def run_simulate(args: argparse.Namespace) -> int:
    """`simulate`: the chosen cells (and the mutants) through Hypothesis; the report, the
    records and the traces written; EXIT_MISMATCH on any mismatch or unfired rule, EXIT_USAGE
    (one line on stderr, nothing run) for bad arguments."""
    design = args.design or DEFAULT_DESIGN
    matrix = matrix_for(design)
    if matrix is None:
        _refuse(design, MATRIX_ONLY, args, matrix=False)
        from model_checks.simulate.designs import run_design

        return run_design(args)
    _refuse(design, DESIGN_ONLY, args, matrix=True)
    _matrix_defaults(args, matrix)
    for environment in args.environment or []:
        try:
            environment.within(matrix.sources)
        except BadEnvironment as error:
            raise UsageError(f"{error} (design {design})") from None
    profile = PROFILES[args.profile]
    start = time.perf_counter()
    cells = _chosen_cells(args, matrix)
    if cells is None:
        return EXIT_USAGE
    if args.jobs is not None and args.jobs < 1:
        return usage_exit(f"--jobs {args.jobs}: expected at least 1")
    try:
        backend = backend_from(args, args.jobs or profile.jobs)
    except ClusterError as error:
        return usage_exit(error)
    results, wider, mutants = _simulate(args, profile, cells, backend, design)
    seconds = time.perf_counter() - start
    print(f"Hypothesis simulation, profile {profile.name}: {len(results)} cells, "
          f"{len(mutants)} mutants, {seconds:.0f} s")
    everything = [*results, *wider, *mutants]
    _print_report(results, wider, mutants, matrix)
    if args.tables:
        _print_step_tables(everything, matrix)
    write_records(args.json, [rec for r in everything for rec in r.records])
    print(f"\nrecords: {args.json}; traces: {args.out}/")
    return _problems(everything)


def _chosen_cells(args: argparse.Namespace, matrix: MatrixDesign) -> list[Cell] | None:
    """The cells `--cells`, `--only` and `--environment` choose; None (said on stderr) for
    an environment that cannot be parsed or an `--only` that matches no cell (the labels
    listed)."""
    envs = None if args.environment is None else {env.sources for env in args.environment}
    every = matrix.cell_sets[args.cells]
    cells = [c for c in every if cell_matches(args.only, c.variant, c.environment)
             and (envs is None or c.environment in envs)]
    current = older_cell(args.only, matrix.variants, matrix.properties)
    if not cells and current is not None:
        print(f"error: --only {args.only!r}: an older spelling, write {current}", file=sys.stderr)
        return None
    if not cells and not args.only.startswith("mutant"):
        labels = sorted({cell_label(c.variant, c.environment) for c in every})
        print(f"error: no cell matches {args.only!r}"
              + ("" if envs is None else f" with --environment {' '.join(args.environment)}")
              + "; the labels:", file=sys.stderr)
        print(textwrap.fill(" ".join(labels), 100, initial_indent="  ",
                            subsequent_indent="  ", break_on_hyphens=False), file=sys.stderr)
        return None
    return cells


def _simulate(
    args: argparse.Namespace, profile: SimulateProfile, cells: Sequence[Cell], backend: Backend,
    design: str,
) -> tuple[list[CellResult], list[CellResult], list[CellResult]]:
    """The matrix's cells, their wider instance and the mutants `--only` and `--no-mutants`
    leave, through `backend` (closed after)."""
    from model_checks.simulate.run import run_matrix, run_mutants, run_wider

    try:
        results = run_matrix(profile, args.out, cells, True, backend, design)
        wider = run_wider(profile, args.out, cells, True, backend, design)
        mutants = [] if args.no_mutants else [
            m for m in run_mutants(profile, args.out, True, backend, design)
            if args.only in f"mutant_{m.label}"
        ] if not args.only or args.only.startswith("mutant") else []
    finally:
        backend.close()
    return results, wider, mutants


def _print_report(results: Sequence[CellResult], wider: Sequence[CellResult],
                  mutants: Sequence[CellResult], matrix: MatrixDesign) -> None:
    """The verdict matrix, the counterexample lengths, the wider instance's L3 and L4, and
    the rule statistics."""
    print("\nVerdict matrix: properties found broken (ok: none; ! differs from EXPECTED)")
    print(matrix_table(results, matrix.properties))
    if mutants:
        print("\nMutants: minimal (shrunk) counterexample length per property")
        print(lengths_table(mutants))
    print("\nCounterexamples in the matrix (length = steps to the violation)")
    print(lengths_table(results))
    print(f"\nL3 and L4 at {matrix.wider_in_flight} unfinished requests (the matrix's "
          "instance allows 2)")
    print(matrix_table(wider, matrix.properties))
    print("\nRule statistics: fired/enabled steps per rule (! enabled in 10+ steps but never "
          "fired: a failure; ? enabled in fewer steps, never fired)")
    print(stats_table([*results, *wider, *mutants]))


def _print_step_tables(everything: Sequence[CellResult], matrix: MatrixDesign) -> None:
    """`--tables`: the step table of every counterexample."""
    for r in everything:
        for finding in r.findings.values():
            print(f"\n{r.label}: {finding.property_id}")
            print(matrix.table(finding.trace, finding.property_id, finding.step, finding.reason,
                        finding.fair_from))


def _problems(everything: Sequence[CellResult]) -> int:
    """Print every mismatch and every rule enabled but never fired; the exit code."""
    problems = [m for r in everything for m in r.mismatches]
    problems += [f"{r.label}: rule {name} was enabled but never fired"
                 for r in everything for name in r.coverage_failures()]
    for problem in problems:
        print(f"MISMATCH {problem}")
    print(f"{len(problems)} problem(s)")
    return EXIT_MISMATCH if problems else EXIT_OK
