"""`--environment D1+D2+...`: the one option every command that takes a drift environment
declares (`explore`, `prove`, `simulate`, `conform`), typed by `spec.Environment`.

The value is an `Environment` (`Environment.parse`: ids joined by "+" in any order and case,
or `none`), always stored as `args.environment`; the help states the command's one default.
A bad or older spelling (`D2_D7`, `D5_router`, `ROUTER`) is a one-line usage error naming the
bad token and the allowed ids, before torch, z3 or Hypothesis is imported. A command whose
design is chosen by another option (`--design`) accepts every id some design declares here,
and checks the chosen design's with `Environment.within`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from model_checks.kernel.exits import UsageError
from spec.drift import DRIFT_IDS, ROUTER, BadEnvironment, Environment

MATRIX_SOURCES: tuple[str, ...] = (*DRIFT_IDS, ROUTER)
"""The sources of a command over the verdict matrix: D1-D11 and D5's router configuration."""


def design_sources() -> tuple[str, ...]:
    """Every source some design declares (`spec.designs`), in the designs' order: what a
    command whose design `--design` picks accepts here."""
    from spec.designs.registry import designs

    return tuple(dict.fromkeys(s.id for design in designs() for s in design.sources))


class EnvironmentType:
    """The argparse `type=` of `--environment`: text -> `Environment` among `allowed`; a bad
    one raises `UsageError` with `Environment.parse`'s one-line message, which argparse lets
    through and the command line prints as one line (exit 2), without argparse's usage."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = tuple(allowed)

    def __call__(self, text: str) -> Environment:
        try:
            return Environment.parse(text, self.allowed)
        except BadEnvironment as error:
            raise UsageError(str(error)) from None


def add_environment_argument(
    parser: argparse.ArgumentParser, *, default: str, help: str,
    allowed: Iterable[str] = DRIFT_IDS, repeatable: bool = False,
) -> None:
    """Add `--environment` to `parser`, stored as `environment` (None when not given; a list
    when `repeatable`). `default` states what the command does without it, and ends the
    help."""
    parser.add_argument(
        "--environment", dest="environment", metavar="D1+D2+...", default=None,
        type=EnvironmentType(allowed), action="append" if repeatable else "store",
        help=f"{help}{'; repeatable' if repeatable else ''} (default: {default})")
