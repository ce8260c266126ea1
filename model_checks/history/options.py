"""The history checks' options (`--threads N`, `--async-clients N`, `--check-log FILE`), on the
one conform command's parser (`model_checks.conform_command`); importing this imports no spec
and no checker (the checks themselves are `history.command`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from model_checks.kernel.options import add_renamed_argument


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The history options, on conform's parser (`--adapter` becomes optional: a log needs
    none)."""
    for action in parser._actions:  # argparse offers no public way to relax a required flag
        if action.dest == "adapter":
            action.required = False
    parser.add_argument("--threads", type=int, metavar="N", default=0,
                        help="N client threads call the implementation end to end at once, "
                        "with drift events, under seeded schedules (--seed); check the "
                        "history against the spec")
    parser.add_argument("--async-clients", type=int, metavar="N", default=0,
                        help="the same with N asyncio clients (each a task on one event loop)")
    add_renamed_argument(parser, "--tasks", "write --async-clients N for N asyncio clients "
                         "(a task is one unit of the executor's work)")
    parser.add_argument("--check-log", type=Path, metavar="FILE",
                        help="check a recorded history (JSON lines, docs/history.md): "
                        "explained by the spec, which drift it shows, what broke")
