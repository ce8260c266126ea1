"""Command line of the model checks.

Each subcommand lives in its own module and registers itself through a `Command`: a name, a
function adding its arguments, and a function running it. Adding a checker is one entry in
`COMMANDS`.

Exit codes: 0 every verdict matched its expectation; 1 some verdict differed (a finding or a
regression: the output marks it); 2 usage or input error (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from model_checks.conform import command as conform_command
from model_checks.mutant_run import command as mutants_command
from model_checks.records import VerdictRecord, read_records, write_records
from model_checks.scenario_run import ScenarioVerdict, replay_all, table
from model_checks.scenario_run import records as scenario_records
from model_checks.simulate import cli as simulate_cli
from model_checks.smt import cli as smt_cli
from model_checks.summary import matrix_summary

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad arguments or unreadable input: printed as one line, exit code 2."""


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


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
            fresh = snapshot.from_run(args.from_run, args.out, command)
            snapshot.write(fresh, args.out)
            print(f"snapshot: {len(fresh.records)} records, {len(fresh.traces)} traces "
                  f"in {args.out / snapshot.RESULTS}")
        for path in generate.write(args.out):
            print(f"wrote {path}")
    except snapshot.SnapshotError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK


def _check_docs(root: Path) -> int:
    from model_checks.docs.generate import check

    problems = check(root)
    for problem in problems:
        print(f"{problem.kind}: {root / problem.name} (run `python -m model_checks docs`)")
    if not problems:
        print(f"{root}: generated pages are fresh")
    return EXIT_MISMATCH if problems else EXIT_OK


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
        conform_command.add_arguments,
        conform_command.run,
    ),
    Command(
        "simulate",
        "Hypothesis state machines over the verdict matrix and the mutants (--profile)",
        simulate_cli.add_simulate_arguments,
        simulate_cli.run_simulate,
    ),
    Command(
        "replay",
        "re-run a counterexample trace file on the spec and print its step table",
        simulate_cli.add_replay_arguments,
        simulate_cli.run_replay,
    ),
    Command(
        "prove",
        "decide the matrix's safety cells with Z3 (bounded model checking, V3 for all depths)",
        smt_cli.add_arguments,
        smt_cli.run_checked,
    ),
    Command(
        "mutants",
        mutants_command.HELP + " (not in the main job)",
        mutants_command.add_arguments,
        mutants_command.run_checked,
    ),
]


REFERENCE_ADAPTER = "model_checks.conform.reference_adapter:factory"

MAIN_JOB: tuple[tuple[str, ...], ...] = (
    ("simulate", "--profile", "ci"),
    ("prove",),
    ("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "1"),
    ("conform", "--adapter", REFERENCE_ADAPTER, "--processes", "2"),
)
"""The main job after the scenario suite: every checker at its CI budget, in this order."""


def main_job(args: argparse.Namespace) -> int:
    """The main job (no subcommand): the scenarios, then every part of MAIN_JOB, each writing
    its records; then one summary table and one JSON file of all records. Worst exit wins."""
    out: Path = args.json
    parts = out.parent / "parts"
    parser = _parser()
    print("== python -m model_checks scenarios", flush=True)
    verdicts = replay_all()
    codes = [("python -m model_checks scenarios", report_scenarios(verdicts))]
    records = scenario_records(verdicts)
    for number, argv in enumerate(MAIN_JOB, start=1):
        command = "python -m model_checks " + " ".join(argv)
        print(f"\n== {command}", flush=True)
        part_json = parts / f"{number}-{argv[0]}.json"
        part = parser.parse_args([*argv, "--json", str(part_json)])
        codes.append((command, part.run(part)))
        if part_json.exists():
            records += read_records(part_json)
    write_records(out, records)
    print("\n== summary: strongest result per variant, environment and property")
    print(matrix_summary(records))
    print("\n== main job verdicts")
    for command, code in codes:
        print(f"  exit {code}: {command}")
    print(f"{len(records)} verdict records written to {out}")
    print(snapshot_status(records, out))
    return max(code for _, code in codes)


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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m model_checks",
        description="Model checks of the paired caches. Without a subcommand: the main job.",
        epilog="exit codes: 0 all verdicts as expected, 1 a verdict differs, 2 usage error",
    )
    parser.add_argument(
        "--json", type=Path, default=Path("build/main-job/records.json"),
        help="main job only: where to write every checker's verdict records",
    )
    sub = parser.add_subparsers(dest="command")
    for command in COMMANDS:
        child = sub.add_parser(command.name, help=command.help, description=command.help)
        command.add_arguments(child)
        child.set_defaults(run=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = getattr(args, "run", main_job)
    try:
        return run(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
