"""`conform --threads N`, `conform --tasks N` and `conform --check-log FILE`: the history
checks, reached from the conform command (`add_arguments`, `wanted`, `run`).

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
import sys
from collections import Counter
from pathlib import Path

from model_checks.cells import environment_text
from model_checks.environment_arg import BadEnvironment, parse_environment
from model_checks.history.explain import (
    Explained,
    Limit,
    Undecided,
    Unexplained,
    Verdict,
    explain,
    shortest_unexplained,
)
from model_checks.history.lanes import mermaid_lanes, text_lanes
from model_checks.history.record import History, LogError, call_text, read_log, write_log
from spec import ALL_DRIFT, DRIFT_IDS, VARIANT_NAMES, Drift, environment

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNDECIDED, EXIT_WEAKNESS = 0, 1, 2, 3, 4
SCHEDULES = {"ci": 2, "dev": 10, "nightly": 50}
"""Seeded schedules per variant and profile (seeds S, S + 1, ...)."""
LIMIT = Limit()


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
    parser.add_argument("--tasks", type=int, metavar="N", default=0,
                        help="the same with N asyncio tasks on one event loop")
    parser.add_argument("--check-log", type=Path, metavar="FILE",
                        help="check a recorded history (JSON lines, docs/history.md): "
                        "explained by the spec, which drift it shows, what broke")


def wanted(args: argparse.Namespace) -> bool:
    """Whether the history check answers this command (or conform's own missing adapter)."""
    return bool(args.threads or args.tasks or args.check_log or args.adapter is None)


def usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _environment(text: str | None) -> frozenset[Drift] | None:
    return None if text is None else environment(*parse_environment(text))


def run(args: argparse.Namespace) -> int:
    """Parse and check the options, then the log check or the concurrent runs."""
    try:
        env = _environment(args.environment)
    except BadEnvironment as error:
        return usage(str(error))
    if args.check_log is not None:
        if args.threads or args.tasks:
            return usage("--check-log checks a log: give it without --threads or --tasks")
        return check_log(args.check_log, env, args)
    if args.adapter is None:
        return usage("--adapter MODULE:FACTORY is required (except with --check-log)")
    if args.threads < 0 or args.tasks < 0 or (args.threads and args.tasks):
        return usage(f"got --threads {args.threads} --tasks {args.tasks}, expected one "
                      "positive count")
    from model_checks.history.run import run_concurrent

    return run_concurrent(args, ALL_DRIFT if env is None else env)


def ids_text(env: frozenset[Drift]) -> str:
    """`D1+D3` (`none` for no drift): what `--environment` takes."""
    return "+".join(sorted((d.value for d in env), key=DRIFT_IDS.index)) or "none"


def env_text(env: frozenset[Drift]) -> str:
    return environment_text(sorted((d.value for d in env), key=DRIFT_IDS.index))


def drift_text(drift: dict[Drift, int]) -> str:
    """`D3 (one side cleared alone) x2, D7 (...)`: each source the explanation needs."""
    if not drift:
        return "none"
    return ", ".join(f"{d.value} ({d.title}){f' x{n}' if n else ''}"
                     for d, n in sorted(drift.items(), key=lambda p: DRIFT_IDS.index(p[0].value)))


def observed_breaks(history: History) -> dict[str, list[int]]:
    """Properties the history shows broken, by the calls that show it: S1 (a served item
    whose tensor and placeholders come from different contents), S3 (a fault)."""
    found: dict[str, list[int]] = {}
    for call in history.calls:
        if call.result.kind == "fault":
            found.setdefault("S3", []).append(call.number)
        if any(i.tensor != i.placeholders for i in call.result.inputs):
            found.setdefault("S1", []).append(call.number)
    return found


def verdict_lines(verdict: Verdict) -> list[str]:
    """What the search found and how much it explored."""
    if isinstance(verdict, Explained):
        return [f"explained by {len(verdict.steps)} spec steps; drift the explanation "
                f"shows: {drift_text(verdict.drift)}; replies taken out of the queue's "
                f"order: {verdict.reordered}; search: {verdict.explored} nodes expanded "
                f"(limit {LIMIT.nodes})"]
    if isinstance(verdict, Undecided):
        return [f"UNDECIDED: the search expanded its limit of {verdict.limit.nodes} nodes "
                "without deciding; not explained"]
    return [f"NOT EXPLAINED: {verdict.reason}; search: {verdict.explored} nodes expanded"]


def report_unexplained(history: History, env: frozenset[Drift], verdict: Unexplained,
                       where: Path) -> list[str]:
    """The shortest unexplained prefix as swim lanes, written as a log (and its mermaid
    page) at `where`; the lines to print."""
    shortest = shortest_unexplained(history, env, verdict, LIMIT)
    first = history.calls[shortest.first_unexplained]
    write_log(where, shortest.history)
    mark = next(c.number for c in shortest.history.calls
                if (c.client, c.invoked) == (first.client, first.invoked))
    page = where.with_suffix(".md")
    page.write_text("# An unexplained history\n\n```mermaid\n"
                    + mermaid_lanes(shortest.history, mark) + "\n```\n")
    exact = "" if shortest.exact else (" (a prefix search was undecided: the whole history "
                                       "is shown)")
    return [
        f"first unexplained event: call {first.number} by {first.client}: {call_text(first)}",
        f"shortest unexplained prefix: the first {len(shortest.history.calls)} calls to "
        f"return{exact}; {shortest.verdict.reason}",
        text_lanes(shortest.history, mark),
        f"written: {where} (mermaid lanes: {page}); replay: python -m model_checks conform "
        f"--check-log {where} --environment {ids_text(env)}",
    ]


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
        return usage(f"--check-log {path}: {error}")
    checked = _log_environment(history, env)
    if not history.calls:
        print(f"history check of {path}: the log holds no call")
        print(f"RESULT: NOTHING CHECKED: 0 calls (exit {EXIT_FAIL})")
        return EXIT_FAIL
    clients = len({c.client for c in history.calls})
    print(f"history check of {path}: {len(history.calls)} calls by {clients} clients "
          f"(variant {history.header.variant}, budget {history.header.budget}, "
          f"{env_text(checked)})")
    verdict = explain(history, checked, LIMIT)
    print("\n".join(verdict_lines(verdict)))
    if isinstance(verdict, Undecided):
        print(f"RESULT: UNDECIDED (exit {EXIT_UNDECIDED})")
        return EXIT_UNDECIDED
    if isinstance(verdict, Unexplained):
        where = (args.json.with_suffix(".unexplained.jsonl") if args.json else
                 Path("build/history") / f"{path.stem}.unexplained.jsonl")
        print("\n".join(report_unexplained(history, checked, verdict, where)))
        print(f"RESULT: NOT EXPLAINED by the spec in {env_text(checked)} (exit {EXIT_FAIL})")
        return EXIT_FAIL
    return final_explained(observed_breaks(history), required_of(args), "the log is")


def required_of(args: argparse.Namespace) -> frozenset[str]:
    return frozenset(p.strip().upper() for p in (args.require or "").split(",") if p.strip())


def final_explained(breaks: dict[str, list[int]], required: frozenset[str], what: str) -> int:
    """Print what the history shows broken and the final line of an explained run."""
    for prop, calls in sorted(breaks.items()):
        print(f"{prop} broken in {what} (calls {', '.join(map(str, calls[:8]))}), as the "
              "variant's spec breaks it in the explanation: an inherited weakness")
    judged = "S1 (served tensors and placeholders), S3 (faults); S2 needs byte counts, " \
             "which a history does not carry"
    print(f"judged on the history: {judged}")
    weak = sorted(required & set(breaks))
    if weak:
        print(f"RESULT: EXPLAINED, BUT INHERITED WEAKNESS: required {', '.join(weak)} "
              f"(exit {EXIT_WEAKNESS})")
        return EXIT_WEAKNESS
    print(f"RESULT: EXPLAINED: {what} explained by the spec (exit {EXIT_OK})")
    return EXIT_OK


def variants_of(adapter: object, asked: list[str] | None) -> tuple[str, ...]:
    from model_checks.conform.adapter import supports

    return tuple(asked) if asked else tuple(
        v for v in VARIANT_NAMES if supports(adapter, v))  # type: ignore[arg-type]


def drift_total(verdicts: list[Explained]) -> dict[Drift, int]:
    total: Counter[Drift] = Counter()
    for verdict in verdicts:
        total.update(verdict.drift)
    return dict(total)
