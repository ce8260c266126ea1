"""Command line of the model checks: the command registry and the parser.

Each subcommand lives in its own module and registers itself through a `Command`: a name, a
function adding its arguments, and a function running it. Adding a checker is one entry in
`COMMANDS`. Start-up is cheap: a checker's module (and torch, z3 or Hypothesis behind it) is
imported only when its command is the one chosen (`lazy`), and only the chosen command's
arguments are built, so a usage error answers before any of them is imported. Without a
subcommand the main job runs (`model_checks.jobs`).

Exit codes: 0 every verdict matched its expectation; 1 some verdict differed (a finding or a
regression: the output marks it); 2 usage or input error (one line on stderr): `exits`
holds them and `UsageError`, for the commands to read without importing this module.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from model_checks.executor import DASK_HELP, ClusterError
from model_checks.kernel.exits import UsageError, usage_exit
from model_checks.mutant_run.command import HELP as MUTANTS_HELP


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


COMMANDS: list[Command] = [
    Command(
        "scenarios",
        "replay the hand-written scenario suite on every variant",
        _no_arguments,
        lazy("model_checks.scenarios.run", "run"),
    ),
    Command(
        "docs",
        "generate docs/ from the registry and real runs (--check: fail if stale)",
        lazy("model_checks.docs.command", "add_arguments"),
        lazy("model_checks.docs.command", "run"),
    ),
    Command(
        "conform",
        "lockstep conformance of an implementation (--adapter module:factory) to the spec",
        lazy("model_checks.conform_command", "add_arguments"),
        lazy("model_checks.conform_command", "run"),
    ),
    Command(
        "simulate",
        "Hypothesis state machines over the verdict matrix and the mutants (--profile)",
        lazy("model_checks.simulate.command", "add_simulate_arguments"),
        lazy("model_checks.simulate.command", "run_simulate"),
    ),
    Command(
        "replay",
        "re-run a counterexample trace file on the spec and print its step table",
        lazy("model_checks.replay_command", "add_replay_arguments"),
        lazy("model_checks.replay_command", "run_replay"),
    ),
    Command(
        "prove",
        "decide the matrix's safety cells with Z3 (bounded model checking; V3, V4 all depths)",
        lazy("model_checks.smt.command", "add_arguments"),
        lazy("model_checks.smt.command", "run_checked"),
    ),
    Command(
        "explore",
        "explore every reachable state of a small instance per matrix cell (--design NAME: "
        "of any design): shortest counterexamples, proofs for the instance at all depths, "
        "vacuous properties; --lattice: every environment's minimal breaking sets",
        lazy("model_checks.explore_command", "add_arguments"),
        lazy("model_checks.explore_command", "run"),
    ),
    Command(
        "mutants",
        MUTANTS_HELP + " (not in the main job)",
        lazy("model_checks.mutant_run.command", "add_arguments"),
        lazy("model_checks.mutant_run.command", "run_checked"),
    ),
]

COMMANDS.append(Command(
    "doctor",
    "a vLLM deployment's paired-cache risks from its facts (--client-uuids yes, --sleep-mode, "
    "--api-servers N, --serve 'vllm serve ...'): drift sources, the project's answers, remedies",
    lazy("model_checks.doctor.command", "add_arguments"),
    lazy("model_checks.doctor.command", "run"),
))

COMMANDS.append(Command(
    "server",
    "witnesses replayed over HTTP on a real `vllm serve` of a tiny model (--replay WITNESS; "
    "set up by scripts/setup-vllm-server)",
    lazy("model_checks.server.command", "add_arguments"),
    lazy("model_checks.server.command", "run"),
))

COMMANDS.append(Command(
    "nightly",
    "the nightly job: the main job's checkers at their deep budgets, and every mutant "
    "(--dask ADDRESS: on a cluster)",
    lazy("model_checks.jobs.run", "nightly_arguments"),
    lazy("model_checks.jobs.run", "run_nightly"),
))

RETIRED = {
    "design": "`design` is now `explore --design NAME` (--checker lattice: `explore --lattice "
              "--design NAME`; --check: `explore --lattice --check`)",
}
"""Former commands, each refused in one line naming its new spelling."""

MAIN_JOB = lazy("model_checks.jobs.run", "main_job")
"""What runs without a subcommand."""

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


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every subcommand is listed; only `command`'s arguments are built (importing its
    module), so that parsing never imports the checkers of the others."""
    parser = argparse.ArgumentParser(
        prog="python -m model_checks", allow_abbrev=False,
        description="Model checks of the paired caches. Without a subcommand: the main job.",
        epilog="exit codes: 0 all verdicts as expected, 1 a verdict differs, 2 usage error, "
        "3 harness failure (conform), 4 a required property broken as its variant breaks it "
        "(conform: an inherited weakness) or at risk in the deployment (doctor --require), "
        "5 a cache design the project does not model (doctor; every cache type of the "
        "supported vLLM releases is modelled: shm is answered as design shm)",
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
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for entry in COMMANDS:
        child = sub.add_parser(entry.name, help=entry.help, description=entry.help,
                               allow_abbrev=False)
        if entry.name == command:
            entry.add_arguments(child)
            parser.set_defaults(_chosen_parser=child)
        child.set_defaults(run=entry.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    retired = next((RETIRED[a] for a in arguments if not a.startswith("-")
                    and a in RETIRED), None)
    if retired is not None and chosen(arguments) is None:
        return usage_exit(retired)
    parser = build_parser(chosen(arguments))
    try:
        args, extra = parser.parse_known_args(arguments)
    except UsageError as error:  # a typed option's bad value (`environment_arg`): one line
        return usage_exit(error)
    if extra:  # the subcommand's own usage, not the top level's (argparse's default)
        owner: argparse.ArgumentParser = getattr(args, "_chosen_parser", None) or parser
        owner.error(f"unrecognized arguments: {' '.join(extra)}")
    run: Callable[[argparse.Namespace], int] = getattr(args, "run", MAIN_JOB)
    try:
        return run(args)
    except (UsageError, ClusterError) as error:
        return usage_exit(error)
