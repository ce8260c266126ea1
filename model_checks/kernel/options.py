"""Options that mean one thing on every command that takes them.

- `--jobs N`: worker processes (`add_jobs_argument`), on every command that spreads work;
- `--processes 1|2`: conformance's split, P0 and P1 in one process or in two
  (`add_processes_argument`), on `conform` and `mutants` only;
- a command's former spelling of an option (`explore --processes N`) is refused with a one-line
  hint naming the spelling to write (`add_renamed_argument`), not silently read.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from model_checks.kernel.exits import UsageError

JOBS = "worker processes"
"""What `--jobs` means: its help starts with these words on every command."""

PROCESSES = "P0 and P1 in one or two processes"
"""What `--processes` means: its help starts with these words on every command."""

WORKERS_ARE_JOBS = "write --jobs N for worker processes (--processes is conformance's split)"
"""The hint where `--processes` once meant worker processes (`explore`)."""


def add_jobs_argument(parser: argparse.ArgumentParser, *, default: int | None,
                      default_text: str = "") -> None:
    """`--jobs N`, stored as `jobs`."""
    parser.add_argument("--jobs", type=int, default=default, metavar="N",
                        help=f"{JOBS} (default: {default_text or default})")


def add_processes_argument(parser: argparse.ArgumentParser, *, detail: str,
                           choices: bool = True) -> None:
    """`--processes 1|2`, stored as `processes` (default 1); argparse checks the value unless
    the command does (`choices=False`)."""
    parser.add_argument("--processes", type=int, choices=(1, 2) if choices else None,
                        default=1, metavar="1|2",
                        help=f"{PROCESSES}: {detail} (default: 1)")


class _Renamed(argparse.Action):
    """Refuses its option with `UsageError` (one line on stderr, exit 2): the hint."""

    def __init__(self, option_strings: Sequence[str], dest: str, hint: str = "",
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, **kwargs)
        self.hint = hint

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        raise UsageError(f"{option_string}: {self.hint}")


def add_renamed_argument(parser: argparse.ArgumentParser, old: str, hint: str) -> None:
    """`old`, no longer read: giving it is a usage error saying `hint` (hidden in the help)."""
    parser.add_argument(old, action=_Renamed, hint=hint, nargs="?", dest=argparse.SUPPRESS,
                        default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def is_renamed(action: argparse.Action) -> bool:
    """Whether `action` only refuses a former spelling (`add_renamed_argument`)."""
    return isinstance(action, _Renamed)
