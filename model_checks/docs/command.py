"""`docs`: render docs/ from the committed results snapshot (`--from-run` refreshes the
snapshot from a run's records first; `--check` compares instead of writing, and also checks
every verdict a hand-written page quotes against the answer store)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from model_checks.kernel.exits import EXIT_MISMATCH, EXIT_OK, UsageError

if TYPE_CHECKING:
    from model_checks.docs.bundle import Bundle


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--check", action="store_true",
                        help="fail (exit 1) if a generated page is stale, missing or extra")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="output folder")
    parser.add_argument("--from-run", type=Path, default=None, metavar="RECORDS",
                        help="first refresh the results snapshot (OUT/results/) from a run's "
                             "records file, e.g. build/main-job/records.json")


def run(args: argparse.Namespace) -> int:
    """Render docs/ from the committed results snapshot; --from-run refreshes the snapshot
    first; --check compares instead of writing. A snapshot or run file that cannot be read is
    a usage error (exit 2), and nothing is written."""
    from model_checks.docs import generate, snapshot

    try:
        if args.check:
            if args.from_run is not None:
                raise UsageError("--check renders from the committed snapshot: drop --from-run")
            return _check_docs(args.out)
        if args.from_run is not None:
            command = f"python -m model_checks docs --from-run {args.from_run}"
            committed = args.out / snapshot.RECORDS
            previous = snapshot.read_run(committed) if committed.is_file() else []
            before = snapshot.read_command(committed) if committed.is_file() else ""
            fresh = snapshot.from_run(args.from_run, args.out, command, previous, before)
            snapshot.write(fresh, args.out)
            print(f"snapshot: {len(fresh.records)} records, {len(fresh.traces)} traces "
                  f"in {args.out / snapshot.RESULTS}")
        for path in generate.write(args.out):
            print(f"wrote {path}")
    except snapshot.SnapshotError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK


def _check_docs(root: Path) -> int:
    """Generated pages (and the answer store) fresh, and every verdict a hand-written page
    quotes held by the answer store (`docs.quotes`): either failing is exit 1, each problem
    on its line. The results are read once."""
    from model_checks.docs.bundle import Bundle
    from model_checks.docs.generate import check

    bundle = Bundle.load(root)
    problems = check(root, bundle)
    for problem in problems:
        print(f"{problem.kind}: {root / problem.name} (run `python -m model_checks docs`)")
    if not problems:
        print(f"{root}: generated pages are fresh")
    wrong = _check_quotes(root, bundle)
    return EXIT_MISMATCH if problems or wrong else EXIT_OK


def _check_quotes(root: Path, bundle: Bundle) -> int:
    """Print every verdict quote the answer store does not hold; return how many."""
    from model_checks.docs import snapshot
    from model_checks.docs.quotes import check_quotes

    count, wrong = check_quotes(root, bundle.answers)
    for bad in wrong:
        print(f"quote: {bad} (correct the page, or the evidence: {snapshot.REFRESH})")
    if not wrong:
        print(f"{root}: {count} verdict quotes of hand-written pages hold in the answer store")
    return len(wrong)
