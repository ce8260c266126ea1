"""`python -m model_checks replay FILE`: re-run a trace file, written by any checker, on the spec
and print its step table; `--itf OUT` also writes its ITF document (`model_checks.kernel.itf`; an
old-format file converted). Exit code 0 when the property breaks where the file says (or, for a
conformance disagreement, when the spec replays every step), 1 when it does not, 2 for a file that
cannot be read (one line on stderr)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from model_checks.kernel import itf, lru_notation
from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, EXIT_USAGE, usage_exit
from model_checks.kernel.trace_file import BadTraceFile, replay_file, table, upgraded


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a trace file written by a checker (simulate, "
                        "explore, prove, conform)")
    parser.add_argument("--itf", type=Path, metavar="OUT",
                        help="also write the replayed trace to OUT in the Informal Trace Format "
                             "that Apalache and Quint read (docs/checkers.md, \"ITF\")")


def _wrote_itf(path: Path, source: Path) -> bool:
    """Write the ITF file, or say in one line why it cannot be written."""
    try:
        itf.write_trace(path, upgraded(itf.load(source)))
    except OSError as error:
        print(f"error: cannot write the ITF trace to {path}: {error.strerror}", file=sys.stderr)
        return False
    print(f"ITF trace written to {path}")
    return True


def run_replay(args: argparse.Namespace) -> int:
    try:
        replayed = replay_file(args.file)
    except BadTraceFile as error:
        return usage_exit(error)
    if args.itf is not None and not _wrote_itf(args.itf, args.file):
        return EXIT_USAGE
    if replayed.property_id == "disagreement":  # conformance's: the spec alone cannot judge
        print(lru_notation.step_text(replayed.trace))
        print(f"a conformance disagreement at step {replayed.recorded_step}: the spec replays "
              "every step; run it against the implementation with `python -m model_checks "
              "conform --adapter MODULE:FACTORY --replay FILE`")
        return EXIT_OK
    print(table(replayed.trace, replayed.property_id, replayed.step, replayed.reason,
                replayed.fair_from))
    if replayed.step != replayed.recorded_step:
        print(f"the file says {replayed.property_id} breaks at step {replayed.recorded_step}")
        return EXIT_MISMATCH
    return EXIT_OK
