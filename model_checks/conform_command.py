"""`python -m model_checks conform --design NAME --adapter MODULE:FACTORY`: the one conform
command, for every design.

One parser (`add_arguments`: every design's options, each with one meaning), one path: the
design's entry in the one table (`designs.lockstep_bindings.BINDINGS`, a
`designs.conformance.Entry`) gives its runs; an option given that they do not read, or a
missing or bad `--adapter`, is a usage error in one line (`conformance.refused`), then the
runs answer with the one set of exit codes (`conform.exits`): a usage error they raise
(`UsageError`) is one line on stderr, exit 2, a `HarnessFailure` the `RESULT: HARNESS
FAILURE` line, exit 3; output cut short by a closed pipe (`| head`) ends quietly. Every
design's cases are taken by the one run loop and end on its one final line (`conform.run`):
the LRU design's (the default, `--design lru`) as its binding declares them
(`conform.lru_lockstep.command`: its cases per profile, its report; `history.command`: its
history checks), every other design's as the one lockstep driver's (`designs.conform`).

Importing this module imports no spec of a design, torch, Hypothesis or an adapter: the
options are parsed before any of them load.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

from model_checks.conform.exits import EXIT_FAIL, EXIT_HARNESS, HarnessFailure
from model_checks.conform.profiles import PROFILES
from model_checks.designs.conformance import DRIVER_OPTIONS, Entry, OwnRuns, refused
from model_checks.designs.lockstep_bindings import BINDINGS, entry_of
from model_checks.history import options as history
from model_checks.kernel.environment_arg import add_environment_argument, design_sources
from model_checks.kernel.exits import UsageError, usage_exit
from model_checks.kernel.options import add_processes_argument
from spec.drift import DRIFT_IDS

DEFAULT_DESIGN = "lru"
"""The design `--design` names when it is not given."""

USAGE = "python -m model_checks conform --adapter MODULE:FACTORY [options] (every option: --help)"
"""The one-line usage a usage error of argparse prints (its own lists every option)."""


def _variant_names() -> tuple[str, ...]:
    """The variants `--variant` names: the default design's (the one whose runs read it)."""
    from spec.designs.registry import design_named

    return design_named(DEFAULT_DESIGN).variants


def _design_names() -> list[str]:
    from spec.designs.registry import designs

    return [design.name for design in designs()]


def _spec_spelling(text: str) -> str:
    """A variant name in any case, spelled as the spec spells it (unchanged if none)."""
    return next((name for name in _variant_names() if name.upper() == text.upper()), text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every design's conformance options, then the history checks' (which make `--adapter`
    optional)."""
    parser.usage = USAGE
    parser.add_argument("--adapter", required=True, metavar="MODULE:FACTORY",
                        help="a callable returning a model_checks.conform.adapter.Adapter, e.g. "
                        "model_checks.conform.reference_adapter:factory")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="write the verdict records here, and every failing trace beside "
                        "it (PATH's stem + .<id>.trace.json and .trace.txt)")
    add_processes_argument(parser, detail="1, the engine in this process; 2, the engine in a "
                           "child process over zmq")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci",
                        help="budget: ci (small), dev, nightly (large)")
    parser.add_argument("--variant", action="append", type=_spec_spelling,
                        choices=_variant_names(),
                        help="check only these variants (repeatable; default: every variant "
                        "the adapter supports; one it does not support is a usage error); with "
                        "--replay, one variant: the trace's actions as a script under it")
    add_environment_argument(
        parser, allowed=(*DRIFT_IDS, *design_sources()), default="every source of the design",
        help="the deployment's drift sources, ids joined by '+' (e.g. D1+D2+D9), or 'none': "
        "drive the implementation only through them, checking no drift, each source alone "
        "and all of them together, and judge each property in this deployment")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated runs")
    parser.add_argument("--require", default=None, metavar="IDS",
                        help="comma-separated property ids (e.g. S1,S2,S3; any case): exit 1 "
                        "if the implementation breaks one where the spec keeps it, exit 4 "
                        "if it breaks one as its variant does (an inherited weakness)")
    parser.add_argument("--keep-going", action="store_true",
                        help="collect one shrunk disagreement per case instead of stopping at "
                        "the first")
    parser.add_argument("--emit-pytest", type=Path, metavar="DIR",
                        help="write each failure (a disagreement, a broken property; also of "
                        "--replay) as a standalone pytest file in the implementation's own "
                        "calls, shrunk, into DIR")
    parser.add_argument("--replay", type=Path, metavar="TRACE",
                        help="run one trace file (as written beside --json, or by simulate) "
                        "in lockstep against the implementation, print its step table, exit "
                        "non-zero if it reproduces a disagreement or the property it records; "
                        "with --design other than lru, a witness document of that design")
    parser.add_argument("--design", default=DEFAULT_DESIGN, choices=_design_names(),
                        help="the paired-cache design the implementation builds (default lru: "
                        "the key-replicated LRU, variants V0-V4); another design is checked "
                        "by the one design lockstep (model_checks.conform.design_lockstep) through "
                        "its binding, with its own adapter interface")
    parser.add_argument("--steps", type=int, metavar="N", default=None,
                        help="with --design other than lru: lockstep steps per environment "
                        "(seeded random runs)")
    history.add_arguments(parser)


@cache
def _defaults() -> dict[str, object]:
    """Each option's destination -> its value when not given (an option whose value differs
    was given)."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    return {a.dest: a.default for a in parser._actions if a.dest != argparse.SUPPRESS}


def run(args: argparse.Namespace) -> int:
    """The runs the chosen design's entry declares, after the options they do not read are
    refused; output cut short by a closed pipe ends quietly."""
    return quiet_on_closed_pipe(_run, args)


def _run(args: argparse.Namespace) -> int:
    entry = entry_of(args.design)
    if entry is None:
        return usage_exit(f"--design {args.design}: conform has no lockstep for it (it has "
                          f"one for {', '.join(sorted(BINDINGS))})")
    runs = runs_of(entry)
    error = refused(args, args.design, runs, _defaults(), _readers)
    if error is not None:
        return usage_exit(error)
    try:
        return runs.check(args)
    except UsageError as error:  # one line, whatever the message held
        return usage_exit(" ".join(str(error).split()))
    except HarnessFailure as error:
        print(f"RESULT: HARNESS FAILURE: {error} (not the implementation's; exit {EXIT_HARNESS})")
        return EXIT_HARNESS


def runs_of(entry: Entry) -> OwnRuns:
    """The runs an entry declares: its own, or the one driver's over its binding
    (`designs.conform`)."""
    if isinstance(entry, OwnRuns):
        return entry
    from model_checks.designs.conform import run

    return OwnRuns(run, DRIVER_OPTIONS)


def _readers(dest: str) -> list[str]:
    """The designs whose runs read the option stored as `dest`."""
    return [name for name, entry in BINDINGS.items() if dest in runs_of(entry()).options]


def quiet_on_closed_pipe(command: Callable[[argparse.Namespace], int],
                         args: argparse.Namespace) -> int:
    """`command(args)`; output cut short by a closed pipe (`| head`) ends it quietly, with
    `EXIT_FAIL`."""
    try:
        return command(args)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes at exit
        return EXIT_FAIL
