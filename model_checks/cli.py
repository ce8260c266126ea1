"""Command line of the model checks.

Exit codes: 0 every verdict matched its expectation; 1 some verdict differed (a finding or a
regression: the table marks it with "!"); 2 usage or input error (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys

from model_checks.scenario_run import replay_all, table

EXIT_OK, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m model_checks",
        description="Model checks of the paired caches. Without a subcommand: the main job.",
        epilog="exit codes: 0 all verdicts as expected, 1 a verdict differs, 2 usage error",
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser(
        "scenarios",
        help="replay the hand-written scenario suite on every variant",
        description="Replay every scenario on V0-V3; print which properties each run "
        "violated. A cell ending in '!' differs from the expectation.",
    )
    return parser


def run_scenarios() -> int:
    verdicts = replay_all()
    print("Scenario suite: properties violated per scenario and variant (ok: none)")
    print(table(verdicts))
    wrong = [v for v in verdicts if not v.as_expected]
    print(f"\n{len(verdicts) - len(wrong)} of {len(verdicts)} verdicts as expected")
    return EXIT_MISMATCH if wrong else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command in (None, "scenarios"):
        return run_scenarios()
    print(f"unknown command {args.command!r}", file=sys.stderr)
    return EXIT_USAGE
