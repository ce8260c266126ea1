"""Command line of the model checks.

Each subcommand lives in its own module and registers itself through a `Command`: a name, a
function adding its arguments, and a function running it. Adding a checker is one entry in
`COMMANDS`. Start-up is cheap: a checker's module (and torch, z3 or Hypothesis behind it) is
imported only when its command is the one chosen (`lazy`), and only the chosen command's
arguments are built, so a usage error answers before any of them is imported.

Exit codes: 0 every verdict matched its expectation; 1 some verdict differed (a finding or a
regression: the output marks it); 2 usage or input error (one line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import resource
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO, cast

from model_checks.executor import DASK_HELP, ClusterError, backend_for
from model_checks.matrix import ENVIRONMENTS, PAIR_ENVIRONMENTS, ROUTER_ENVIRONMENTS
from model_checks.mutant_run.command import HELP as MUTANTS_HELP
from model_checks.records import VerdictRecord, read_records, write_records
from model_checks.scenario_run import ScenarioVerdict, replay_all, table
from model_checks.scenario_run import records as scenario_records
from model_checks.summary import LEGEND, contradiction_count, matrix_summary, summary

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or unreadable input: printed as one line, exit code 2."""


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def lazy(module: str, name: str) -> Callable[[Any], Any]:
    """`module.name`, imported when first called (the command line imports a checker only when
    its command runs)."""

    def call(argument: Any) -> Any:
        return getattr(importlib.import_module(module), name)(argument)

    call.__qualname__ = call.__name__ = f"{module}.{name}"
    return call


def _no_arguments(parser: argparse.ArgumentParser) -> None:
    del parser


def run_scenarios(args: argparse.Namespace) -> int:
    return report_scenarios(replay_all())


def report_scenarios(verdicts: list[ScenarioVerdict]) -> int:
    print("Scenario suite: properties violated per scenario and variant (ok: none)")
    print(table(verdicts))
    wrong = [v for v in verdicts if not v.as_expected]
    print(f"\n{len(verdicts) - len(wrong)} of {len(verdicts)} verdicts as expected")
    return EXIT_MISMATCH if wrong else EXIT_OK


def _nightly_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, default=Path("build/nightly/records.json"),
                        help="where to write every checker's verdict records (each phase's "
                             "output goes to the same folder)")
    parser.add_argument("--verbose", action="store_true",
                        help="print each phase's full output too, not only the summary")
    parser.add_argument("--dask", metavar="ADDRESS", default=None, help=DASK_HELP)
    parser.add_argument("--part", action="append", default=None, metavar="NAME",
                        choices=sorted(NIGHTLY_PARTS),
                        help="run only this part of the nightly job (repeatable; default: "
                             "every part): " + ", ".join(NIGHTLY_PARTS))


def _docs_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true",
                        help="fail (exit 1) if a generated page is stale, missing or extra")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="output folder")
    parser.add_argument("--from-run", type=Path, default=None, metavar="RECORDS",
                        help="first refresh the results snapshot (OUT/results/) from a run's "
                             "records file, e.g. build/main-job/records.json")


def run_docs(args: argparse.Namespace) -> int:
    """Render docs/ from the committed results snapshot; --from-run refreshes the snapshot
    first; --check compares instead of writing. A snapshot or run file that cannot be read is
    a usage error (exit 2), and nothing is written."""
    from model_checks.docs import generate, snapshot

    try:
        if args.check:
            if args.from_run is not None:
                raise UsageError("--check renders from the committed snapshot: drop --from-run")
            return _check_docs(args.out)
        if args.from_run is not None:
            command = f"python -m model_checks docs --from-run {args.from_run}"
            committed = args.out / snapshot.RECORDS
            previous = snapshot.read_run(committed) if committed.is_file() else []
            before = snapshot.read_command(committed) if committed.is_file() else ""
            fresh = snapshot.from_run(args.from_run, args.out, command, previous, before)
            snapshot.write(fresh, args.out)
            print(f"snapshot: {len(fresh.records)} records, {len(fresh.traces)} traces "
                  f"in {args.out / snapshot.RESULTS}")
        for path in generate.write(args.out):
            print(f"wrote {path}")
    except snapshot.SnapshotError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK


def _check_docs(root: Path) -> int:
    """Generated pages fresh, and every verdict a hand-written page quotes held by the
    results snapshot (`docs.quotes`): either failing is exit 1, each problem on its line."""
    from model_checks.docs.generate import check

    problems = check(root)
    for problem in problems:
        print(f"{problem.kind}: {root / problem.name} (run `python -m model_checks docs`)")
    if not problems:
        print(f"{root}: generated pages are fresh")
    wrong = _check_quotes(root)
    return EXIT_MISMATCH if problems or wrong else EXIT_OK


def _check_quotes(root: Path) -> int:
    """Print every verdict quote the snapshot does not hold; return how many."""
    from model_checks.docs import snapshot
    from model_checks.docs.quotes import check_quotes

    count, wrong = check_quotes(root, snapshot.load(root).records)
    for bad in wrong:
        print(f"quote: {bad} (correct the page, or the snapshot: {snapshot.REFRESH})")
    if not wrong:
        print(f"{root}: {count} verdict quotes of hand-written pages hold in the snapshot")
    return len(wrong)


COMMANDS: list[Command] = [
    Command(
        "scenarios",
        "replay the hand-written scenario suite on every variant",
        _no_arguments,
        run_scenarios,
    ),
    Command(
        "docs",
        "generate docs/ from the registry and real runs (--check: fail if stale)",
        _docs_arguments,
        run_docs,
    ),
    Command(
        "conform",
        "lockstep conformance of an implementation (--adapter module:factory) to the spec",
        lazy("model_checks.conform.command", "add_arguments"),
        lazy("model_checks.conform.command", "run"),
    ),
    Command(
        "simulate",
        "Hypothesis state machines over the verdict matrix and the mutants (--profile)",
        lazy("model_checks.simulate.cli", "add_simulate_arguments"),
        lazy("model_checks.simulate.cli", "run_simulate"),
    ),
    Command(
        "replay",
        "re-run a counterexample trace file on the spec and print its step table",
        lazy("model_checks.simulate.cli", "add_replay_arguments"),
        lazy("model_checks.simulate.cli", "run_replay"),
    ),
    Command(
        "prove",
        "decide the matrix's safety cells with Z3 (bounded model checking, V3 for all depths)",
        lazy("model_checks.smt.cli", "add_arguments"),
        lazy("model_checks.smt.cli", "run_checked"),
    ),
    Command(
        "explore",
        "explore every reachable state of a small instance per matrix cell: shortest "
        "counterexamples, proofs for the instance at all depths, vacuous properties",
        lazy("model_checks.explore.command", "add_arguments"),
        lazy("model_checks.explore.command", "run"),
    ),
    Command(
        "mutants",
        MUTANTS_HELP + " (not in the main job)",
        lazy("model_checks.mutant_run.command", "add_arguments"),
        lazy("model_checks.mutant_run.command", "run_checked"),
    ),
]

COMMANDS.append(Command(
    "nightly",
    "the nightly job: the main job's checkers at their deep budgets, and every mutant "
    "(--dask ADDRESS: on a cluster)",
    lambda parser: _nightly_arguments(parser),
    lambda args: run_nightly(args),
))

SWEEPS = frozenset({"simulate", "prove", "explore", "mutants"})
"""Commands whose jobs go through the executor and that take `--dask ADDRESS` (the main and
nightly jobs pass it on to them). A new sweep joins here when it takes the flag
(`executor.add_dask_argument`, `executor.sweep(jobs, dask=args.dask)`)."""


REFERENCE_ADAPTER = "model_checks.conform.reference_adapter:factory"

PROVE_NIGHTLY_ONLY: tuple[tuple[str, ...], ...] = (("D5",), ("D5", "D7"), ("D6",))
"""The environments whose Z3 groups run in the nightly job only: two front ends (D5, D5+D7)
and two interleaved items (D6) made 50 % of the main job's `prove` CPU (368 of 723 s in a
clean-clone CI run). In the main job Hypothesis and the explorer still judge these cells, and
Z3 still encodes two front ends and two items in the combined environments; the docs snapshot
keeps their Z3 records across a refresh from a main job (`docs.snapshot.carried_over`)."""

PROVE_MAIN_ENVIRONMENTS: tuple[str, ...] = tuple(
    argument
    for env in (*ENVIRONMENTS, *ROUTER_ENVIRONMENTS) if env not in PROVE_NIGHTLY_ONLY
    for argument in ("--environment", "+".join(env) or "none")
)
"""`prove`'s selection in the main job: every main-matrix environment but PROVE_NIGHTLY_ONLY."""

MAIN_JOB: tuple[tuple[str, ...], ...] = (
    ("simulate", "--profile", "ci", "--no-mutants"),
    ("prove", *PROVE_MAIN_ENVIRONMENTS),
    ("explore", "--profile", "ci"),
    ("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "1"),
)
"""The main job after the scenario suite: every checker at its CI budget, in this order; what a
merge decision needs. Left to the nightly job (NIGHTLY) or to the test suite, where they run
already: Z3's groups of PROVE_NIGHTLY_ONLY, the spec mutants' Hypothesis cells
(`tests/simulate/test_sim_mutants.py` at the ci profile; nightly: `simulate --profile nightly`
and `mutants`) and conformance across two processes (`tests/conform/test_conform_remote.py`;
nightly: `conform --processes 2`). docs/running.md, "What runs where", lists them. `prove`
keeps its default depth 6 here: at depth 4 a group with a deep counterexample can cost more,
not less (V1 under D6: one incremental solver is asked other assumptions), while the small
groups save little."""

PAIR_ENV_ARGUMENTS: tuple[str, ...] = tuple(
    argument for env in PAIR_ENVIRONMENTS for argument in ("--env", "+".join(env))
)
"""`explore`'s selection of the pair cells (explore takes environments, not `--cells`)."""

PAIRS: tuple[tuple[str, ...], ...] = (
    ("simulate", "--profile", "ci", "--cells", "pairs", "--no-mutants"),
    ("prove", "--cells", "pairs"),
    ("explore", "--profile", "ci", *PAIR_ENV_ARGUMENTS),
)
"""The pair cells of the expected matrix (`matrix.PAIR_EXPECTED`, 212 cells) through every
checker at the main job's budgets. Not in the main job: explore alone visits 998,146 states
over them (ci profile), about twice the main job's whole explore phase, and prove's groups of
two front ends and two items are the dearest; the nightly job runs them.
explore judges their expectations only through the nightly's summary (`contradiction_count`
over every cell), so the nightly fails on any contradiction the summary marks."""

NIGHTLY_PARTS: dict[str, tuple[tuple[str, ...], ...]] = {
    **{
        f"simulate-{variant}": (("simulate", "--profile", "nightly", "--only", f"{variant}_"),)
        for variant in ("V0", "V1", "V2", "V3")
    },
    "simulate-mutants": (("simulate", "--profile", "nightly", "--only", "mutant"),),
    "prove-explore": (
        ("prove", "--depth", "8", "--search-depth", "14", "--rlimit", "1200000000",
         "--mirror", "all", "--rlimit-certificate", "1200000000"),
        ("explore", "--profile", "nightly"),
    ),
    "lattice": (("explore", "--lattice", "--profile", "nightly", "--parametric",
                 "--evidence", "docs/results/records.json"),),
    "pairs": PAIRS,
    "conform": (
        ("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "1", "--profile", "nightly"),
        ("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "2", "--profile", "nightly"),
    ),
    "mutants": (("mutants", "--processes", "2"),),
}
"""The nightly job in parts that each fit one 6-hour workflow job on a 2-core runner
(`nightly --part NAME`; the ready workflow runs one job per part, side by side). Hypothesis's
nightly profile is split by variant (`--only V0_` selects every V0 cell: labels are
`V0_D1_D7`, and the empty environment's is `V0_`) and the spec mutants' cells
(`--only mutant`): together they are exactly `simulate --profile nightly`'s cells, about
5 hours of the whole on 2 cores. The nightly `prove` also tries the mirror certificate on
two-item encodings (`--mirror all`: V3 under D8, 514 million units on its costliest query,
hence a certificate limit of 1.2 billion). `prove` comes before `explore`
in one part because explore cross-checks the Z3 records of the phases before it in the same
run."""

NIGHTLY: tuple[tuple[str, ...], ...] = tuple(
    phase for phases in NIGHTLY_PARTS.values() for phase in phases
)
"""The whole nightly job (`nightly` without `--part`), every part in order: every checker at
its deep budget (Hypothesis's nightly profile, Z3 two steps deeper than the main job and
counterexamples to 14 steps, the explorer's nightly profile: 3 requests, 2M states per graph,
conformance's nightly profile), the drift lattice at its nightly profile (environments of up
to 3 drift sources from 2 to 3 requests, pairs with D7 on to 4, every other checker's
replayed breaks of the docs snapshot and Z3's all-instance proof merged), the pair cells
of the expected matrix at the main job's budgets (`PAIRS`), and every mutant through every
checker (Z3's deep searches included)."""


LONG_ARGUMENTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("--adapter", REFERENCE_ADAPTER), "(reference)"),
    (PAIR_ENV_ARGUMENTS, "(every pair cell)"),
    (PROVE_MAIN_ENVIRONMENTS,
     "(all but " + ", ".join("+".join(e) for e in PROVE_NIGHTLY_ONLY) + ")"),
)
"""Argument runs too long for a progress line, and the words a phase's label uses instead."""

WIDTH = 100
"""The main job's default output stays within this many columns."""


@dataclass(frozen=True)
class Phase:
    """One part of the main job: its command line, a short label, and its details file."""

    number: int
    argv: tuple[str, ...]
    folder: Path

    @property
    def command(self) -> str:
        return "python -m model_checks " + " ".join(self.argv)

    @property
    def label(self) -> str:
        """The command line with each long selection (LONG_ARGUMENTS) said in a few words."""
        text = " ".join(self.argv)
        for arguments, short in LONG_ARGUMENTS:
            text = text.replace(" ".join(arguments), short)
        return text

    @property
    def details(self) -> Path:
        return self.folder / f"{self.number}-{self.argv[0]}.txt"


class _Tee(io.TextIOBase):
    """Writes to several text streams: the details file, and the terminal with --verbose."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def _progress(text: str) -> None:
    """A progress line (stderr, so the standard output leads with the summary)."""
    print(text[:WIDTH], file=sys.stderr, flush=True)


def _elapsed(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def _run_phase(phase: Phase, parser: argparse.ArgumentParser, parts: Path,
               verbose: bool) -> tuple[int, list[VerdictRecord]]:
    """Run one phase with its output in its details file (and on the terminal if verbose);
    return its exit code and verdict records."""
    phase.details.parent.mkdir(parents=True, exist_ok=True)
    with phase.details.open("w") as details:
        stream = cast(TextIO, _Tee(details, sys.stdout)) if verbose else details
        with contextlib.redirect_stdout(stream):
            print(f"$ {phase.command}", flush=True)
            if phase.argv == ("scenarios",):
                verdicts = replay_all()
                return report_scenarios(verdicts), scenario_records(verdicts)
            part_json = parts / f"{phase.number}-{phase.argv[0]}.json"
            # explore cross-checks the records of the phases before it (Hypothesis, Z3);
            # the drift lattice writes its own JSON (minimal sets), not verdict records
            lattice = "--lattice" in phase.argv
            cross = phase.argv[0] == "explore" and not lattice
            extra = ["--cross-check", str(parts)] if cross else []
            part = parser.parse_args([*phase.argv, *extra, "--json", str(part_json)])
            code = part.run(part)
    return code, read_records(part_json) if part_json.exists() and not lattice else []


def _tail(path: Path, lines: int = 8) -> list[str]:
    text = path.read_text().splitlines() if path.exists() else []
    return ["    " + line[: WIDTH - 4] for line in text[-lines:]]


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, subsequent_indent="  ",
                                   break_on_hyphens=False, break_long_words=False))


def main_job(args: argparse.Namespace) -> int:
    """The main job (no subcommand): the scenarios, then every part of MAIN_JOB, each with its
    output in a details file under the records' folder (`--verbose`: also on the terminal) and
    one progress line with its elapsed time on stderr; then the summary with its legend, the
    phases' exit codes and the records file, within WIDTH columns. Worst exit wins."""
    return run_phases("main job", MAIN_JOB, args)


def run_nightly(args: argparse.Namespace) -> int:
    """`nightly`: the main job's shape over NIGHTLY, the deep budgets (its own records file);
    it also fails (exit 1) on any cell the summary marks as contradicting the expected matrix,
    pair cells included (explore checks its own verdicts against the main matrix only).
    `--part NAME` runs only those parts of NIGHTLY_PARTS, in NIGHTLY's order."""
    chosen: list[str] | None = args.part
    phases = NIGHTLY if not chosen else tuple(
        phase for name, part in NIGHTLY_PARTS.items() if name in chosen for phase in part
    )
    name = "nightly" if not chosen else "nightly (" + ", ".join(
        part for part in NIGHTLY_PARTS if part in chosen) + ")"
    return run_phases(name, phases, args, fail_on_contradiction=True)


def run_phases(name: str, parts: Sequence[tuple[str, ...]], args: argparse.Namespace,
               fail_on_contradiction: bool = False) -> int:
    """The scenarios, then `parts`, each a phase (see `main_job`); `args.dask` sends the sweeps'
    jobs to that cluster (checked before any phase runs). Worst exit wins; with
    `fail_on_contradiction`, a contradiction of the expected matrix is at least exit 1."""
    out: Path = args.json
    folder = out.parent
    if args.dask is not None:  # an unreachable cluster is a usage error before any work
        backend_for(args.dask, 1).close()
    phases = [Phase(n, _with_dask(argv, args.dask), folder)
              for n, argv in enumerate((("scenarios",), *parts), start=1)]
    records: list[VerdictRecord] = []
    codes: list[tuple[Phase, int, float]] = []
    _progress(f"{name}: {len(phases)} phases, each one's output in {folder}/N-NAME.txt"
              + ("" if args.verbose else " (--verbose prints it)"))
    start, cpu_start = time.perf_counter(), cpu_seconds()
    for phase in phases:
        began, cpu_began = time.perf_counter(), cpu_seconds()
        code, found = _run_phase(phase, _parser(phase.argv[0]), folder / "parts", args.verbose)
        records += found
        codes.append((phase, code, time.perf_counter() - began))
        _progress(f"[{phase.number}/{len(phases)}] {phase.label}: exit {code}, "
                  f"{_elapsed(time.perf_counter() - began)}, CPU "
                  f"{_elapsed(cpu_seconds() - cpu_began)} "
                  f"(total {_elapsed(time.perf_counter() - start)}, CPU "
                  f"{_elapsed(cpu_seconds() - cpu_start)})")
    write_records(out, records)
    (folder / "summary-by-checker.txt").write_text(matrix_summary(records) + "\n")
    print(report(records, codes, out))
    worst = max(code for _, code, _ in codes)
    if fail_on_contradiction and contradiction_count(records)[0]:
        worst = max(worst, EXIT_MISMATCH)
    return worst


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of every child process it has waited
    for (a sweep's pool and job processes end within their phase), so that a phase's cost is
    measured apart from the machine's load. A cluster's workers are not counted."""
    own, children = (resource.getrusage(who)
                     for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _with_dask(argv: tuple[str, ...], dask: str | None) -> tuple[str, ...]:
    """A sweep's command line sent to the cluster at `dask` (others run here)."""
    return (*argv, "--dask", dask) if dask is not None and argv[0] in SWEEPS else argv


def report(records: list[VerdictRecord], codes: list[tuple[Phase, int, float]],
           out: Path) -> str:
    """The main job's standard output: the summary and its legend first, then each phase's
    exit code (with the tail of its details where it failed), then the files written."""
    wrong, judged = contradiction_count(records)
    lines = ["== summary: most decisive result per environment, variant and property", *LEGEND,
             "", summary(records), "",
             f"{judged} cells judged; {wrong} contradict the expected matrix"
             + (" (marked !)" if wrong else ""), "", "== phases"]
    for phase, code, seconds in codes:
        lines.append(f"  exit {code}  {_elapsed(seconds):>5}  {phase.label}")
        if code != 0:
            lines += [f"  the end of {phase.details}:", *_tail(phase.details)]
    lines += [
        _wrapped(f"{len(records)} verdict records in {out}; each checker's results per cell "
                 f"in {out.parent / 'summary-by-checker.txt'}; each phase's output in "
                 f"{out.parent}/N-NAME.txt"),
        _wrapped(snapshot_status(records, out)),
    ]
    return "\n".join(lines)


def snapshot_status(records: list[VerdictRecord], out: Path) -> str:
    """One line: whether docs/results/ (the docs' snapshot) has this run's verdict kinds."""
    from model_checks.docs import snapshot

    docs = Path(__file__).resolve().parent.parent / "docs"
    try:
        committed = snapshot.read_run(docs / snapshot.RECORDS)
    except snapshot.SnapshotError as error:
        return f"docs snapshot: {error}"
    lost = snapshot.undecided_here(records, committed)
    if lost:
        return (f"docs snapshot kept: this run leaves {len(lost)} cell(s) undecided that the "
                f"snapshot decides ({snapshot.label(lost[0])} first); do not refresh it from "
                "this run")
    differ = snapshot.differing_cells(records, committed)
    if not differ:
        return "docs snapshot is current: its verdicts are this run's"
    return (f"docs snapshot differs from this run in {differ} (checker, cell) verdicts; "
            f"refresh it: python -m model_checks docs --from-run {out}")


TOP_LEVEL_VALUES = ("--json", "--dask")
"""The main job's options that take a value (skipped when looking for the command's name)."""


def chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named in `argv`, if any (None: the main job, or a name argparse will
    reject)."""
    names = {c.name for c in COMMANDS}
    tokens = iter(argv)
    for token in tokens:
        if token in TOP_LEVEL_VALUES:
            next(tokens, None)
        elif not token.startswith("-"):
            return token if token in names else None
    return None


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every subcommand is listed; only `command`'s arguments are built (importing its
    module), so that parsing never imports the checkers of the others."""
    parser = argparse.ArgumentParser(
        prog="python -m model_checks",
        description="Model checks of the paired caches. Without a subcommand: the main job.",
        epilog="exit codes: 0 all verdicts as expected, 1 a verdict differs, 2 usage error, "
        "3 harness failure (conform), 4 a required property broken as its variant breaks it "
        "(conform: an inherited weakness)",
    )
    parser.add_argument(
        "--json", type=Path, default=Path("build/main-job/records.json"),
        help="main job only: where to write every checker's verdict records (each phase's "
             "output goes to the same folder)",
    )
    parser.add_argument(
        "--verbose", action="store_true",
        help="main job only: print each phase's full output too, not only the summary",
    )
    parser.add_argument("--dask", metavar="ADDRESS", default=None,
                        help="main job only: " + DASK_HELP)
    sub = parser.add_subparsers(dest="command")
    for entry in COMMANDS:
        child = sub.add_parser(entry.name, help=entry.help, description=entry.help)
        if entry.name == command:
            entry.add_arguments(child)
            parser.set_defaults(_chosen_parser=child)
        child.set_defaults(run=entry.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    parser = _parser(chosen(arguments))
    args, extra = parser.parse_known_args(arguments)
    if extra:  # the subcommand's own usage, not the top level's (argparse's default)
        owner: argparse.ArgumentParser = getattr(args, "_chosen_parser", None) or parser
        owner.error(f"unrecognized arguments: {' '.join(extra)}")
    run: Callable[[argparse.Namespace], int] = getattr(args, "run", main_job)
    try:
        return run(args)
    except (UsageError, ClusterError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
