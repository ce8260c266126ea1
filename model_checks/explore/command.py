"""The LRU design's matrix cells, as `python -m model_checks explore` searches them (its
default for the LRU design; the LRU design's `design_explorer.DesignExplorer.cells`, declared
in `lru_explore`).

Explores every reachable state of the small instance (`model_checks.explore.instance`) for
each cell of the expected matrix (or the cells `--variant`/`--environment` pick) and judges every
property and lemma completely: a shortest counterexample (written as a replayable trace and
replayed on the spec before it is reported), proved for the instance at all depths (with the
number of states and the diameter), vacuous (with the reason), or undecided (the state limit
cut the graph). Prints one line per cell and property verdicts; writes the verdict records.

With `--dask ADDRESS --distributed` each cell's search is spread over the cluster's workers
(`model_checks.explore.distributed`: one breadth-first search, its frontier partitioned by
state fingerprint, each partition of the visited set held by one worker) instead of whole
cells going to workers as tasks; the records are the local run's.

With `--cross-check RECORDS` (the main job passes its Hypothesis and Z3 records) it also
fails where another checker's verdict contradicts its own within one instance
(`model_checks.explore.agreement`).

Exit codes: 0 every verdict agrees with the expected matrix where the two can be compared (a
counterexample where the matrix expects the property to hold is a mismatch; a proof where it
expects a break is not, since the explorer's instance is smaller) and with the cross-checked
records; 1 a mismatch, a disagreement, nothing explored, or a distributed search the cluster could
not finish; 2 usage error (or a cluster that cannot be used). A cell the state
limit leaves undecided is listed (`UNDECIDED`) and its records say `unknown`, like Z3's.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from model_checks.answers import beside
from model_checks.executor import ClusterError, add_dask_argument
from model_checks.explore.agreement import disagreements
from model_checks.explore.cell_tasks import (
    CellOutcome,
    CellTask,
    run_tasks,
)
from model_checks.explore.instance import (
    CI_LARGE_SHAPES,
    CI_SHAPES,
    LRU_REPLAY,
    NIGHTLY_SHAPES,
    Shape,
    shapes_for,
)
from model_checks.explore.instance_command import add_instance_arguments
from model_checks.explore.lattice_command import (
    LatticeUsageError,
    add_lattice_arguments,
    add_rung_arguments,
    rung_bounds,
)
from model_checks.explore.named_instance import INSTANCE_HELP
from model_checks.kernel.cells import Agreement, agreement
from model_checks.kernel.environment_arg import (
    MATRIX_SOURCES,
    add_environment_argument,
    design_sources,
)
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, usage_exit
from model_checks.kernel.matrix import EXPECTED, PROPERTIES
from model_checks.kernel.options import (
    WORKERS_ARE_JOBS,
    add_jobs_argument,
    add_renamed_argument,
)
from model_checks.kernel.profiles import Profile, profile_table
from model_checks.kernel.verdict_records import (
    EXPLORE,
    MATRIX_INSTANCE,
    Verdict,
    VerdictRecord,
    read_records,
    write_records,
)
from spec import VARIANTS, variant_named
from spec.drift import Environment


@dataclass(frozen=True)
class ExploreProfile(Profile):
    """How far `explore` looks per cell: `max_states` bounds each graph (a resource limit:
    verdicts never depend on the clock); `shapes` are the instances to try, largest first,
    and `large_shapes` those for the largest environments (`instance.shapes_for`)."""

    max_states: int
    shapes: tuple[Shape, ...]
    large_shapes: tuple[Shape, ...]


PROFILES = profile_table(ExploreProfile("ci", 30_000, CI_SHAPES, CI_LARGE_SHAPES),
                         ExploreProfile("nightly", 2_000_000, NIGHTLY_SHAPES, NIGHTLY_SHAPES))
"""The explorer's profiles, by `--profile`."""

MARK = {Verdict.COUNTEREXAMPLE: "x", Verdict.PROVED: "P", Verdict.VACUOUS: "v",
        Verdict.UNKNOWN: "?", Verdict.HOLDS: "ok"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                        help="ci: 30k states per graph, 2 requests; nightly: 2M states, "
                             "3 requests (default: ci)")
    parser.add_argument("--variant", action="append", default=None,
                        help="only this variant (V0..V4; another --design: its own; repeatable; "
                        "default: the LRU design's matrix cells every variant, a search of "
                        "one design's instance (--rung) the design's last)")
    add_environment_argument(
        parser, allowed=(*MATRIX_SOURCES, *design_sources()), repeatable=True,
        default="every environment of the matrix; another --design: none", help="only this "
        "environment: drift ids joined by '+' (or D5-router), or 'none'")
    add_jobs_argument(parser, default=2)
    add_renamed_argument(parser, "--processes", WORKERS_ARE_JOBS)
    parser.add_argument("--json", type=Path, default=None,
                        help="where to write the verdict records (default "
                             "build/explore/records.json; with --lattice, the lattice's JSON, "
                             "default build/explore/lattice.json; another --design: its "
                             "searches' verdicts or its lattice, only where --json says)")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the counterexample traces (default "
                             "build/explore/counterexamples; with --lattice "
                             "build/explore/lattice; with --lattice and another --design, "
                             "its witnesses are written only where --out says)")
    add_dask_argument(parser)
    parser.add_argument("--distributed", action="store_true",
                        help="with --dask: spread each cell's search over the cluster's "
                             "workers (one breadth-first search, its frontier partitioned by "
                             "state fingerprint; the same records as a local run) instead of "
                             "sending whole cells as tasks")
    add_rung_arguments(parser)
    add_lattice_arguments(parser)
    parser.add_argument("--por", action="store_true",
                        help="partial-order reduction (stubborn sets, docs/explore.md): the "
                             "same verdicts and shortest counterexamples from fewer states; "
                             "the records say so (matrix cells only)")
    parser.add_argument("--cross-check", type=Path, default=None, metavar="RECORDS",
                        help="a records file (or a folder of them) of Hypothesis and Z3: fail "
                             "where a verdict contradicts the explorer's within one instance")
    add_instance_arguments(parser, INSTANCE_HELP)


class ExploreUsageError(ValueError):
    """Bad arguments: one line on stderr, exit 2."""


def _cells(args: argparse.Namespace) -> list[tuple[str, tuple[str, ...]]]:
    variants = args.variant or [v.name for v in VARIANTS]
    for name in variants:
        variant_named(name)
    if args.environment is None:
        envs = list(dict.fromkeys(cell.environment for cell in EXPECTED))
    else:
        envs = [env.sources for env in args.environment]
    return [(v, e) for e in envs for v in variants]


def run_cells(args: argparse.Namespace) -> int:
    """The matrix cells `args` pick, searched and judged (module docstring); the exit code.
    `explore_command` has refused the options of other searches and set `args.out`."""
    if args.distributed and args.dask is None:
        return usage_exit("--distributed needs --dask ADDRESS (the cluster to spread the "
                          "search over)")
    if args.json is None:
        args.json = Path("build/explore/records.json")
    try:
        if args.jobs < 1:
            raise ExploreUsageError(f"--jobs must be >= 1, got {args.jobs}")
        cells = _cells(args)
        others = _other_records(args.cross_check)
        rung_bounds(args)
    except (ValueError, LatticeUsageError) as error:
        return usage_exit(error)
    from model_checks.explore.distributed_common import DistributedSearchFailed

    try:
        return explore_matrix(cells, args, others)
    except ClusterError as error:
        return usage_exit(error)
    except DistributedSearchFailed as error:
        print(f"error: the distributed search failed: {error}", file=sys.stderr)
        return EXIT_MISMATCH


def _other_records(path: Path | None) -> list[VerdictRecord] | None:
    if path is None:
        return None
    # a folder of a run's parts: its records files, not the trace files written beside them
    files = ([f for f in sorted(path.glob("*.json")) if not f.name.endswith(".trace.json")]
             if path.is_dir() else [path])
    if not path.exists():
        raise ExploreUsageError(f"--cross-check {path}: no such file or folder")
    try:
        return [r for f in files for r in read_records(f)]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ExploreUsageError(f"--cross-check {path}: unreadable records ({error})") from None


def explore_matrix(
    cells: list[tuple[str, tuple[str, ...]]],
    args: argparse.Namespace,
    others: list[VerdictRecord] | None = None,
) -> int:
    profile = PROFILES[args.profile]
    limit = getattr(args, "max_states", None) or profile.max_states
    shapes, large = profile.shapes, profile.large_shapes
    bounds = {k: getattr(args, k, None) for k in ("max_requests", "unfinished", "retries",
                                                  "identities")}
    tasks = []
    for v, e in cells:
        tried, climb = cell_ladder(shapes_for(e, shapes, large), bounds["max_requests"])
        tasks.append(CellTask(variant_named(v), e, args.out, limit, tried, climb=climb,
                              unfinished=bounds["unfinished"], retries=bounds["retries"],
                              identities=bounds["identities"], por=args.por))
    started = time.perf_counter()
    if args.distributed:
        outcomes, where = _distributed(tasks, args.dask)
    else:
        outcomes = run_tasks(tasks, args.jobs, args.dask)
        where = f"with {args.jobs} process(es)"
    records = [r for o in outcomes for r in o.records]
    write_records(args.json, records)
    print(table(outcomes))
    wrong = mismatches(records)
    undecided = [o for o in outcomes if not o.complete]
    for line in wrong:
        print(f"MISMATCH {line}")
    for o in undecided:
        print(f"UNDECIDED {o.variant} {Environment.of(o.environment).text}: state limit reached")
    contradictions: list[str] = []
    if others is not None:
        instances = {(o.variant, o.environment, prop): config
                     for o in outcomes for prop, config in o.configs.items()}
        contradictions = disagreements(records, instances, others, LRU_REPLAY)
        for line in contradictions:
            print(f"DISAGREE {line}")
        checked = sum(r.checker in MATRIX_INSTANCE for r in others)
        print(f"cross-check with {checked} Hypothesis/Z3 records: "
              f"{len(contradictions)} disagreement(s)")
    states = sum(o.states for o in outcomes)
    seconds = time.perf_counter() - started
    print(f"{len(outcomes)} cells, {states} states in {seconds:.1f} s "
          f"({states / max(seconds, 1e-9):.0f} states/s {where}); "
          f"records in {args.json}, traces in {args.out}")
    if not outcomes or states == 0:
        print("no state explored: nothing was checked")
        return EXIT_MISMATCH
    return EXIT_MISMATCH if wrong or contradictions else EXIT_OK


def _distributed(tasks: list[CellTask], address: str) -> tuple[list[CellOutcome], str]:
    """Each cell explored here in turn, its graph built across the cluster at `address`."""
    from model_checks.executor.cluster import DaskCluster
    from model_checks.explore.cell_tasks import explore_cells

    cluster = DaskCluster(address)
    try:
        where = f"spread over {cluster.where}"
        return explore_cells(tasks, cluster), where
    finally:
        cluster.close()


def cell_ladder(shapes: tuple[Shape, ...], max_requests: int | None
                ) -> tuple[tuple[Shape, ...], tuple[Shape, ...]]:
    """(the instances to decide on, largest first; the rungs to climb above the first for
    what it proves) for `--max-requests N`: above the profile's requests, one rung per extra
    request; below, every instance capped at N."""
    if max_requests is None:
        return shapes, ()
    top = shapes[0].max_requests
    if max_requests > top:
        return shapes, tuple(Shape(n, shapes[0].max_items, shapes[0].max_identities)
                             for n in range(top + 1, max_requests + 1))
    capped = tuple(replace(s, max_requests=min(s.max_requests, max_requests)) for s in shapes)
    return tuple(dict.fromkeys(capped)), ()


def table(outcomes: list[CellOutcome]) -> str:
    """One row per cell: states, diameter, and per property x<steps>, P (proved for the
    instance), v (vacuous), ? (undecided); a mark followed by `beside.MARK` found no break
    where the project's answer is one, which a footnote under the table gives with its
    witness (`model_checks.answers.beside`)."""
    header = ["variant", "environment", "states", "diam", *PROPERTIES]
    rows = [header]
    notes: list[str] = []
    for o in outcomes:
        by_prop = {r.property: r for r in o.records}
        marks = []
        for prop in PROPERTIES:
            r = by_prop.get(prop)
            mark = "-" if r is None else MARK[r.verdict]
            if r is not None and r.verdict is Verdict.COUNTEREXAMPLE:
                mark += str(r.counterexample_length)
            elif r is not None:
                stronger = beside.stronger_break(o.variant, tuple(o.environment), prop)
                if stronger is not None:
                    mark += beside.MARK
                    notes.append(stronger.text())
            marks.append(mark)
        rows.append([o.variant, Environment.of(o.environment).text, str(o.states),
                     str(o.diameter), *marks])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if notes:
        lines.append(f"{beside.MARK} no break on this instance, but the project's answer (every "
                     "checker's evidence, model_checks.answers) is a break:")
        lines += [f"  {n}" for n in notes]
    return "\n".join(lines)


def mismatches(records: list[VerdictRecord]) -> list[str]:
    """Counterexamples where the expected matrix says the property holds. (Every trace of the
    explorer's instance is a trace of the matrix's, so such a counterexample is a real one
    there.) A proof where the matrix expects a break is no mismatch: the instance is smaller."""
    expected = {(c.variant, c.environment): c.expectations for c in EXPECTED}
    found = []
    for r in records:
        cell = expected.get((r.variant, r.environment))
        if cell is None:
            continue
        if agreement(EXPLORE, cell.get(r.property), r.verdict) is Agreement.MISMATCH:
            found.append(f"{r.variant} {Environment.of(r.environment).text} {r.property}: "
                         f"a {r.counterexample_length}-step counterexample where the matrix "
                         f"expects it to hold ({r.counterexample_path})")
    return found
