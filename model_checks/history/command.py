"""`conform --threads N`, `conform --async-clients N` and `conform --check-log FILE`: the history
checks, on the conform command's parser (`model_checks.conform_command` adds their options,
`history.options`); the LRU design's entry in `designs.lockstep_bindings` runs `run` where
`wanted` says so.

Exit codes, one final `RESULT:` line each (as conform's):

- 0 `RESULT: EXPLAINED`: every history (every seeded schedule, or the log) is explained by
  spec steps in the environment checked, and no required property broke;
- 1 `RESULT: NOT EXPLAINED`: a history has no explanation; its shortest unexplained prefix is
  printed as swim lanes and written as a log that `--check-log` replays (also a run in which
  a client raised, e.g. a deadlock of the schedule);
- 2 usage error, one line on stderr (an unreadable or malformed log changes nothing);
- 3 `RESULT: UNDECIDED`: the search reached its node limit (never reported as explained), or
  the schedule stopped (a thread blocked outside it);
- 4 `RESULT: EXPLAINED, BUT INHERITED WEAKNESS`: explained, and a `--require`d property
  observed broken (S1 on the served tensors and placeholders, S3 a fault) as the variant's
  spec breaks it there too.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from model_checks.history.explain import Undecided, Unexplained, explain
from model_checks.history.log import History, LogError, read_log
from model_checks.history.report import (
    EXIT_FAIL,
    EXIT_UNDECIDED,
    LIMIT,
    drifts_text,
    final_explained,
    observed_breaks,
    report_unexplained,
    required_of,
    verdict_lines,
)
from model_checks.kernel.exits import usage_exit
from spec import ALL_DRIFT, DRIFT_IDS, BadEnvironment, Drift, Environment, environment

JUDGED = frozenset({"S1", "S3"})
"""The properties a history judges (`report.observed_breaks`)."""


def wanted(args: argparse.Namespace) -> bool:
    """Whether the history check answers this command (or conform's own missing adapter)."""
    return bool(args.threads or args.async_clients or args.check_log or args.adapter is None)


def _environment(env: Environment | None) -> frozenset[Drift] | None:
    return None if env is None else env.within(DRIFT_IDS).drift


def run(args: argparse.Namespace) -> int:
    """Parse and check the options, then the log check or the concurrent runs."""
    try:
        env = _environment(args.environment)
    except BadEnvironment as error:
        return usage_exit(str(error))
    unjudged = sorted(required_of(args) - JUDGED)
    if unjudged:
        return usage_exit(f"--require {','.join(unjudged)}: a history judges S1 and S3 only (S2 "
                     "needs byte counts; L1-L4 the client's own retry loop, which the "
                     "concurrent clients replace): run lockstep conformance for them")
    if args.check_log is not None:
        if args.threads or args.async_clients:
            return usage_exit("--check-log checks a log: give it without --threads or "
                         "--async-clients")
        return check_log(args.check_log, env, args)
    if args.adapter is None:
        return usage_exit("--adapter MODULE:FACTORY is required (except with --check-log)")
    if args.threads < 0 or args.async_clients < 0 or (args.threads and args.async_clients):
        return usage_exit(f"got --threads {args.threads} --async-clients {args.async_clients}, "
                     "expected one positive count")
    if getattr(args, "processes", 1) != 1:  # the clients share the engine object they call
        return usage_exit("--threads and --async-clients run in one process: give them without "
                     "--processes 2")
    from model_checks.history.run import run_concurrent

    return run_concurrent(args, ALL_DRIFT if env is None else env)


def _log_environment(history: History, env: frozenset[Drift] | None) -> frozenset[Drift]:
    if env is not None:
        return env
    if history.header.environment is not None:
        return environment(*history.header.environment)
    return ALL_DRIFT


def check_log(path: Path, env: frozenset[Drift] | None, args: argparse.Namespace) -> int:
    """`--check-log FILE`: the verdict on one log."""
    try:
        history = read_log(path)
    except LogError as error:
        return usage_exit(f"--check-log {path}: {error}")
    checked = _log_environment(history, env)
    if not history.calls:
        print(f"history check of {path}: the log holds no call")
        print(f"RESULT: NOTHING CHECKED: 0 calls (exit {EXIT_FAIL})")
        return EXIT_FAIL
    clients = len({c.client for c in history.calls})
    print(f"history check of {path}: {len(history.calls)} calls by {clients} clients "
          f"(variant {history.header.variant}, budget {history.header.budget}, "
          f"{drifts_text(checked)})")
    verdict = explain(history, checked, LIMIT)
    print("\n".join(verdict_lines(verdict)))
    if isinstance(verdict, Undecided):
        print(f"RESULT: UNDECIDED (exit {EXIT_UNDECIDED})")
        return EXIT_UNDECIDED
    if isinstance(verdict, Unexplained):
        where = (args.json.with_suffix(".unexplained.jsonl") if args.json else
                 Path("build/history") / f"{path.stem}.unexplained.jsonl")
        print("\n".join(report_unexplained(history, checked, verdict, where)))
        print(f"RESULT: NOT EXPLAINED by the spec in {drifts_text(checked)} (exit {EXIT_FAIL})")
        return EXIT_FAIL
    return final_explained(observed_breaks(history, verdict.unjudged), required_of(args),
                           "the log is")


