"""A design's conformance as the one `conform` command runs it: what its entry in the one
table (`designs.lockstep_bindings.BINDINGS`) declares.

An entry is either a `design_lockstep.Binding`, whose runs are the one driver's seeded walks
and committed witnesses (`designs.conform`, reading `--steps`), or `OwnRuns`: a binding that
declares its own cases, profiles and report, and the options they read (the LRU design's:
its cases and configurations per profile, its report and weakness judgement,
`conform.lru_lockstep.command`, and its history checks, `history.command`); both kinds of
runs take their cases by the one run loop (`conform.run`). The command
(`conform_command`) parses one set of options for every design and refuses, in one line, an
option the chosen design's runs do not read (`refused`): an option has one meaning, and a
design either reads it or refuses it.
"""

from __future__ import annotations

import argparse
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from model_checks.conform.design_lockstep import Binding

COMMON = frozenset({"adapter", "design", "environment", "seed", "emit_pytest", "replay"})
"""The options every design's runs read: the implementation, the design, the deployment, the
seed, where failures are written as pytest files, and a trace to replay."""
DRIVER_OPTIONS = frozenset({"steps"})
"""What the one driver's runs (`designs.conform`) read beyond `COMMON`: the steps per
environment."""


@dataclass(frozen=True)
class OwnRuns:
    """A binding that declares its own runs: the command's `check(args) -> exit code` (its
    runs, profiles, cases and report), the options it reads beyond `COMMON`, and whether it
    runs without `--adapter` (a check of a recorded log)."""

    check: Callable[[argparse.Namespace], int]
    options: frozenset[str]
    without_adapter: bool = False


Entry = Binding | OwnRuns
"""What the table holds per design."""


def refused(args: argparse.Namespace, name: str, runs: OwnRuns,
            defaults: Mapping[str, object],
            readers: Callable[[str], list[str]]) -> str | None:
    """The one-line usage error for the options given (different from their `defaults`) that
    the runs of design `name` do not read, naming the designs that read them (`readers`), or
    for a missing or bad `--adapter`; None where the runs can start."""
    given = sorted(dest for dest, default in defaults.items()
                   if dest not in COMMON | runs.options and getattr(args, dest, default)
                   != default)
    if given:
        flags = ", ".join(f"--{dest.replace('_', '-')}" for dest in given)
        by = sorted({d for dest in given for d in readers(dest)})
        return (f"--design {name}: {flags} apply to design {', '.join(by) or 'none'} "
                f"only")
    if args.adapter is None:
        return None if runs.without_adapter else f"--design {name} needs --adapter MODULE:FACTORY"
    return adapter_error(args.adapter)


def adapter_error(path: str) -> str | None:
    """Why `--adapter path` cannot name a factory (not `module:factory`, or no such module:
    found before the module is imported), or None."""
    module, sep, factory = path.partition(":")
    if not sep or not module or not factory:
        return f"--adapter: got {path!r}, expected module:factory"
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = None
    return None if found else f"--adapter: cannot import {module!r}: no module named {module!r}"
