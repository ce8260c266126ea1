"""The `conform` subcommand as the command line registers it: the lockstep check
(`model_checks.conform.command`) and the history checks (`model_checks.history.command`:
`--threads N`, `--async-clients N`, `--check-log FILE`) on one parser.

This module is where the two meet, so that the dependency between the packages runs one way:
the history checks use conform's adapter interface and codec, and conform knows nothing of
them. Importing it imports nothing heavy (both commands parse before torch, Hypothesis or an
adapter is imported).
"""

from __future__ import annotations

import argparse

from model_checks.conform import command as lockstep
from model_checks.history import command as history


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Conform's options, then the history options (which make `--adapter` optional)."""
    lockstep.add_arguments(parser)
    history.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """The one design lockstep (`model_checks.designs.conform`, through the design's binding)
    where `--design` names a design other than the LRU's; else the history check where its
    options (or a missing adapter) ask for it, else the LRU design's lockstep check; a closed
    pipe ends each quietly."""
    if getattr(args, "design", "lru") != "lru":
        return lockstep.quiet_on_closed_pipe(_design_run, args)
    if history.wanted(args):
        return lockstep.quiet_on_closed_pipe(history.run, args)
    return lockstep.run(args)


def _design_run(args: argparse.Namespace) -> int:
    """`model_checks.designs.conform.run`, refusing the history check's options."""
    from model_checks.conform.exits import EXIT_USAGE
    from model_checks.designs import conform as designs

    if args.threads or args.async_clients or args.check_log or args.adapter is None:
        import sys

        print(f"error: --design {args.design} needs --adapter MODULE:FACTORY; --threads, "
              f"--async-clients and --check-log apply to the LRU design only", file=sys.stderr)
        return EXIT_USAGE
    return designs.run(args)
