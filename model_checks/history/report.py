"""What the history checks print: verdicts, drift, the swim lanes of an unexplained history
and the final `RESULT:` line with its exit code (model_checks.history.command lists the
codes)."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from model_checks.history.explain import (
    Explained,
    Limit,
    Undecided,
    Unexplained,
    Verdict,
    shortest_unexplained,
)
from model_checks.history.lanes import mermaid_lanes, text_lanes
from model_checks.history.log import History, call_text, write_log
from spec import DRIFT_IDS, VARIANT_NAMES, Drift
from spec.drift import Environment

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_UNDECIDED, EXIT_WEAKNESS = 0, 1, 2, 3, 4
SCHEDULES = {"ci": 2, "dev": 10, "nightly": 50}
"""Seeded schedules per variant and profile (seeds S, S + 1, ...)."""
LIMIT = Limit()
"""The search's limit per history (expanded nodes)."""



def drifts_text(env: frozenset[Drift]) -> str:
    """`D1+D3` (`none` for no drift): as prose writes it and as `--environment` takes it."""
    return Environment.of(sorted((d.value for d in env), key=DRIFT_IDS.index)).text


def drift_text(drift: dict[Drift, int]) -> str:
    """`D3 (one side cleared alone) x2, D7 (...)`: each source the explanation needs."""
    if not drift:
        return "none"
    return ", ".join(f"{d.value} ({d.title}){f' x{n}' if n else ''}"
                     for d, n in sorted(drift.items(), key=lambda p: DRIFT_IDS.index(p[0].value)))


def observed_breaks(history: History, unjudged: tuple[int, ...] = ()
                    ) -> dict[str, list[int]]:
    """Properties the history shows broken, by the calls that show it: S1 (a served item
    whose tensor and placeholders come from different contents), S3 (a fault); calls
    `unjudged` (open when the system stopped) are left out."""
    found: dict[str, list[int]] = {}
    for call in history.calls:
        if call.number in unjudged:
            continue
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
                f"(limit {LIMIT.nodes})", *stop_lines(verdict)]
    if isinstance(verdict, Undecided):
        return [f"UNDECIDED: the search expanded its limit of {verdict.limit.nodes} nodes "
                "without deciding; not explained"]
    return [f"NOT EXPLAINED: {verdict.reason}; search: {verdict.explored} nodes expanded"]


def stop_lines(verdict: Explained) -> list[str]:
    """Where a fault stopped the system: the stopping call and the calls left unjudged."""
    if verdict.stopped_by is None:
        return []
    open_ = ", ".join(map(str, verdict.unjudged)) or "none"
    return [f"the system stopped at call {verdict.stopped_by}'s fault (the spec has no step "
            f"after one; no call began after it); calls open then, not judged: {open_}"]


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
    opened = len(shortest.open_calls)
    open_then = (f" and the {opened} open then (each free to have taken any of its parts)"
                 if opened else "")
    return [
        f"first unexplained event: call {first.number} by {first.client}: {call_text(first)}",
        f"shortest unexplained prefix: the first {len(shortest.history.calls) - opened} calls "
        f"to return{open_then}{exact}; {shortest.verdict.reason}",
        text_lanes(shortest.history, mark),
        f"written: {where} (mermaid lanes: {page}); replay: python -m model_checks conform "
        f"--check-log {where} --environment {drifts_text(env)}",
    ]


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


HISTORY_ACTIONS = ("Submit", "P0Handle", "P0HandleRejected", "P0HandleRejectedUndo",
                   "P0Process", "P0UpdateItem", "P1Receive",
                   "P0ReceiveReply", "P0Clear", "P1Clear", "P0Restart", "P1Restart")
"""The spec actions an explanation of a history can take (`model_checks.history.steps`)."""


def coverage_line(verdicts: list[Explained], env: frozenset[Drift]) -> str:
    """How much of the spec's behaviour the explanations covered: each action a history can
    take in `env`, with how often the explanations took it, and those never taken."""
    from spec.transitions import ACTION_TYPES

    taken: Counter[str] = Counter(type(a).__name__ for v in verdicts for _, a in v.steps)
    possible = [t.__name__ for t in ACTION_TYPES if t.__name__ in HISTORY_ACTIONS
                and (t.requires is None or t.requires in env)]
    counts = ", ".join(f"{name} x{taken[name]}" for name in possible if taken[name])
    never = ", ".join(name for name in possible if not taken[name]) or "none"
    return (f"spec actions the explanations took: {counts or 'none'}; never taken: {never} "
            f"(of the {len(possible)} a history can take in {drifts_text(env)})")


def drift_total(verdicts: list[Explained]) -> dict[Drift, int]:
    total: Counter[Drift] = Counter()
    for verdict in verdicts:
        total.update(verdict.drift)
    return dict(total)
