"""The `explore` command as the command line registers it, for every design (`--design`,
default lru): the LRU design's explorer (`model_checks.explore.command`: the matrix cells,
`--lattice`, `--instance`) and, for any other design, the design-generic explorer and
lattice (`model_checks.designs.command`), on one parser; `--lattice --check` re-derives
every design's committed answers.

This module is where the two meet, so that neither package imports the other. An option of
one side given to the other is a usage error naming it (one line, exit 2), before a search
starts.
"""

from __future__ import annotations

import argparse

from model_checks.designs import command as designs
from model_checks.explore import command as lru
from model_checks.kernel.environment_arg import MATRIX_SOURCES
from model_checks.kernel.exits import UsageError
from spec.drift import BadEnvironment

LRU = "lru"
"""The design `model_checks.explore` searches (the key-replicated LRU of V0-V4)."""

LRU_ONLY = (("--instance", "instance"), ("--property", "property"),
            ("--forget-ended", "forget_ended"), ("--distributed", "distributed"),
            ("--por", "por"), ("--cross-check", "cross_check"), ("--sources", "sources"),
            ("--max-size", "max_size"), ("--evidence", "evidence"),
            ("--parametric", "parametric"), ("--resume", "resume"),
            ("--no-explore", "no_explore"), ("--items", "items"),
            ("--duplicates", "duplicates"), ("--reused-bytes", "reused_bytes"),
            ("--max-requests", "max_requests"), ("--unfinished", "unfinished"),
            ("--retries", "retries"), ("--identities", "identities"), ("--dask", "dask"))
"""The LRU explorer's options (flag, destination) no other design's search reads."""

OTHER_ONLY = (("--rung", "rung"), ("--sizes", "sizes"))
"""The design-generic options the LRU explorer does not read (its rungs are its bounds)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    lru.add_arguments(parser)
    designs.add_design_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """The LRU explorer for `--design lru` (the default), else the design-generic job;
    `--lattice --check` for every design with committed answers."""
    if args.check and not args.lattice:
        raise UsageError("--check re-derives the lattice's committed answers: write "
                         "explore --lattice --check")
    design = args.design or LRU
    if design == LRU and not args.check:
        _refuse(design, OTHER_ONLY, args)
        for environment in args.environment or []:
            try:
                environment.within(MATRIX_SOURCES)
            except BadEnvironment as error:
                raise UsageError(f"{error} (design lru)") from None
        return lru.run(args)
    _refuse(design, LRU_ONLY, args)
    return designs.run(args)


def _refuse(design: str, options: tuple[tuple[str, str], ...],
            args: argparse.Namespace) -> None:
    given = [flag for flag, dest in options if getattr(args, dest, None) not in (None, False)]
    if given:
        whose = "another design's options" if design == LRU else "the LRU design's options"
        raise UsageError(f"--design {design}: {whose} only: {', '.join(given)}")

