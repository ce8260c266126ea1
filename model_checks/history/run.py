"""`conform --threads N` / `--async-clients N`: seeded concurrent runs of an adapter, each history
checked against the spec; the first history with no explanation stops the run and is shown
(swim lanes) and written (a log `--check-log` replays; the same `--seed` replays the same
schedule where every side takes the yield hook)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from model_checks.conform.adapter import Adapter, AdapterError, load_adapter, supports
from model_checks.conform.lru_lockstep.unchecked import (
    CLIENT_RESENDS,
    END_TO_END,
    YIELD_HOOK,
    Part,
    absent,
)
from model_checks.conform.lru_lockstep.unchecked import lines as unchecked_lines
from model_checks.conform.notation import wrap
from model_checks.history import report as cmd
from model_checks.history.concurrent import (
    Run,
    ThreadRun,
    checked_environment,
    run_tasks,
    run_threads,
)
from model_checks.history.dtypes import sweep
from model_checks.history.explain import Explained, Undecided, Unexplained, explain
from model_checks.history.tested import Tested
from model_checks.kernel.exits import usage_exit
from spec import Drift


def _runner(args: argparse.Namespace, adapter: Adapter, variant: str, env: frozenset[Drift],
            seed: int) -> Run:
    if args.threads:
        return run_threads(adapter, variant, env, ThreadRun(args.threads, seed))
    return run_tasks(adapter, variant, env, args.async_clients, seed)


SMALLER = 2
"""Clients of the smaller schedule tried where a schedule's search is undecided."""


def _smaller(args: argparse.Namespace, adapter: Adapter, variant: str, env: frozenset[Drift],
             seed: int, tally: _Tally) -> int | str:
    """Where the search over a schedule's history is undecided, the same seed with `SMALLER`
    clients (a history the search decides): the exit code if that history is not explained
    or its run found a race (reported, with the command that runs it), else a line saying
    what it showed. Its verdict is its own; the larger schedule stays undecided."""
    small = argparse.Namespace(**{**vars(args), "threads": SMALLER if args.threads else 0,
                                  "async_clients": SMALLER if args.async_clients else 0})
    if (args.threads or args.async_clients) <= SMALLER:
        return "no smaller schedule to try"
    run = _runner(small, adapter, variant, env, seed)
    checked = checked_environment(env)
    verdict = explain(run.history, checked, cmd.LIMIT)
    mode = f"{SMALLER} {'threads' if args.threads else 'asyncio clients'}"
    if isinstance(verdict, Unexplained):
        print(f"the search over this schedule is undecided; the same seed with {mode}:")
        _report_unexplained(small, run, checked, verdict, (variant, seed))
        return cmd.EXIT_FAIL
    if run.watched is not None and run.watched.races and not isinstance(verdict, Undecided):
        print(f"the search over this schedule is undecided; the same seed with {mode}:")
        _report_races(small, run, (variant, seed), tally)
        return cmd.EXIT_FAIL
    shown = "explained" if isinstance(verdict, Explained) else "undecided too"
    return f"the same seed with {mode}: {shown}"


def _where(args: argparse.Namespace, variant: str, seed: int) -> Path:
    mode = f"threads{args.threads}" if args.threads else f"async-clients{args.async_clients}"
    stem = f"{mode}-{variant}-seed{seed}.unexplained.jsonl"
    if args.json:
        json_path: Path = args.json
        return json_path.with_name(f"{json_path.stem}.{stem}")
    return Path("build/history") / stem


@dataclass
class _Tally:
    """What the explained histories of a run showed: each verdict, the calls made, the
    histories whose schedule was not controlled, the code traced, the histories stopped at
    a fault, the parts no history ran, and per property the calls that broke it."""

    explained: list[Explained] = field(default_factory=list)
    breaks: dict[str, list[int]] = field(default_factory=dict)
    calls: int = 0
    uncontrolled: int = 0
    stopped: int = 0
    unjudged: int = 0
    traced: Counter[str] = field(default_factory=Counter)
    locks: int = 0
    histories: int = 0
    missing: tuple[Part, ...] = ()
    checked: frozenset[Drift] = frozenset()
    tested: Tested = field(default_factory=lambda: Tested(""))

    def unchecked(self) -> tuple[Part, ...]:
        """The parts no history ran: the client's loop always, the end-to-end call and the
        yield hook where absent."""
        hookless = (YIELD_HOOK,) if self.traced or self.uncontrolled else ()
        return (CLIENT_RESENDS, *self.missing, *hookless)

    def add(self, run: Run, seed: int) -> None:
        """A run's calls, how its schedule was controlled, what it exercised."""
        self.tested.add(run, seed)
        self.histories += 1
        self.calls += len(run.history.calls)
        self.uncontrolled += not run.controlled
        self.traced.update(dict(run.traced))
        self.locks += run.locks


def run_concurrent(args: argparse.Namespace, env: frozenset[Drift]) -> int:
    """Every variant asked for (default: every one the adapter supports), `SCHEDULES`
    seeded schedules each; the verdict and exit code (module `command`)."""
    loaded = _adapter_and_variants(args)
    if isinstance(loaded, int):
        return loaded
    adapter, variants = loaded
    checked = checked_environment(env)
    mode = f"{args.threads} threads" if args.threads else f"{args.async_clients} asyncio clients"
    print(f"history check of {adapter.name} ({mode}, profile {args.profile}, "
          f"{cmd.drifts_text(env)}; concurrent clients add D1: checked in "
          f"{cmd.drifts_text(checked)})")
    tally = _Tally(missing=absent(adapter, variants, (END_TO_END,)), checked=checked,
                   tested=Tested(f"{mode} ({', '.join(variants)})"))
    for variant in variants:
        sized = _sized(adapter, variant, tally)
        if sized is not None:
            return sized
        for seed in range(args.seed, args.seed + cmd.SCHEDULES[args.profile]):
            stopped = _check_schedule(args, adapter, variant, env, seed, tally)
            if stopped is not None:
                return stopped
    return _summary(args, tally)


def _sized(adapter: Adapter, variant: str, tally: _Tally) -> int | None:
    """The dtype sweep of `variant` (`dtypes.sweep`) into `tally`; the exit code (its
    mismatches printed) if a side sized a payload wrong or held more than the budget."""
    swept = sweep(adapter, variant)
    tally.tested.swept = swept.tried
    if not swept.mismatches:
        return None
    print(f"payloads across dtypes ({', '.join(swept.tried)}; {variant}): each side's size of "
          "an item against torch's byte count, and the bytes it holds against the budget")
    for mismatch in swept.mismatches[:RACES_SHOWN * 2]:
        print(f"SIZE: {mismatch.line()}")
    print(f"RESULT: SIZE MISMATCH: {len(swept.mismatches)} in {variant} (exit {cmd.EXIT_FAIL})")
    return cmd.EXIT_FAIL


def _adapter_and_variants(args: argparse.Namespace) -> tuple[Adapter, tuple[str, ...]] | int:
    """`--adapter` loaded and the variants to check, or the usage error's exit code (said)."""
    try:
        adapter = load_adapter(args.adapter)
        variants = cmd.variants_of(adapter, args.variant)
        missing = [v for v in variants if not supports(adapter, v)]
        if missing:
            return usage_exit(f"--variant: adapter {adapter.name} does not support "
                              f"{', '.join(missing)}")
    except AdapterError as error:
        return usage_exit(" ".join(str(error).split()))
    return adapter, variants


def _check_schedule(args: argparse.Namespace, adapter: Adapter, variant: str,
                    env: frozenset[Drift], seed: int, tally: _Tally) -> int | None:
    """One seeded schedule of `variant`, its history explained in `env` (with what
    concurrency adds) into `tally`; the exit code (its report printed) if it stops the run:
    a client raised, the search was undecided, or the history has no explanation."""
    checked = checked_environment(env)
    run = _runner(args, adapter, variant, env, seed)
    tally.add(run, seed)
    where = f"{variant}, seed {seed}"
    if run.errors:
        print(f"a client raised in {where}: {'; '.join(run.errors)}")
        print(f"RESULT: NOT EXPLAINED: the run failed in {where} (exit 1)")
        return cmd.EXIT_FAIL
    verdict = explain(run.history, checked, cmd.LIMIT)
    races = run.watched.races if run.watched is not None else ()
    if races and not isinstance(verdict, Unexplained):
        _report_races(args, run, (variant, seed), tally)
        return cmd.EXIT_FAIL
    if isinstance(verdict, Undecided):
        smaller = _smaller(args, adapter, variant, env, seed, tally)
        if isinstance(smaller, int):
            return smaller
        print("\n".join(cmd.verdict_lines(verdict)))
        searched = (f"searched: the history of {where}, {len(run.history.calls)} calls "
                    f"(events), {verdict.explored} nodes expanded, the limit "
                    f"{verdict.limit.nodes} nodes per history")
        print(searched)
        for split in run.watched.splits if run.watched is not None else ():
            print("\n".join(split.lines()))
        print(smaller)
        print("\n".join(wrap(tally.tested.lines())))
        if args.json:
            _write_summary(args.json, tally, {"result": "undecided", "where": where,
                                              "calls": len(run.history.calls),
                                              "explored": verdict.explored,
                                              "limit": verdict.limit.nodes})
        print(f"RESULT: UNDECIDED in {where} (exit {cmd.EXIT_UNDECIDED})")
        return cmd.EXIT_UNDECIDED
    if isinstance(verdict, Unexplained):
        _report_unexplained(args, run, checked, verdict, (variant, seed))
        return cmd.EXIT_FAIL
    tally.explained.append(verdict)
    tally.tested.explained(verdict)
    tally.stopped += verdict.stopped_by is not None
    tally.unjudged += len(verdict.unjudged)
    for prop, numbers in cmd.observed_breaks(run.history, verdict.unjudged).items():
        tally.breaks.setdefault(prop, []).extend(numbers)
    return None


def _report_unexplained(args: argparse.Namespace, run: Run, checked: frozenset[Drift],
                        verdict: Unexplained, schedule: tuple[str, int]) -> None:
    """The history of (variant, seed) that the spec does not explain: its swim lanes, the
    log written, and the command that runs the same schedule again."""
    variant, seed = schedule
    where = f"{variant}, seed {seed}"
    print(f"history of {where}: {len(run.history.calls)} calls, {run.preemptions} preemptions")
    if run.watched is not None:
        for race in run.watched.races[:RACES_SHOWN]:
            print("\n".join(race.lines()))
        for split in run.watched.splits:
            print("\n".join(split.lines()))
        if run.watched.windows:
            print(f"{run.watched.windows} clears of a front end ran in a split section's "
                  "window (between its two sections) in this history")
    print("\n".join(wrap(controlled_lines(args, run.traced, run.locks, run.controlled))))
    print("\n".join(cmd.verdict_lines(verdict)))
    print("\n".join(cmd.report_unexplained(run.history, checked, verdict,
                                           _where(args, variant, seed))))
    print(_again(args, variant, seed))
    print(f"RESULT: NOT EXPLAINED: the history of {where} (exit {cmd.EXIT_FAIL})")


def _again(args: argparse.Namespace, variant: str, seed: int) -> str:
    """The command that runs the same schedule."""
    again = "--threads" if args.threads else "--async-clients"
    scoped = f" --environment {args.environment}" if args.environment else ""
    return (f"the same schedule: python -m model_checks conform --adapter {args.adapter} "
            f"{again} {args.threads or args.async_clients} --seed {seed} --variant {variant}"
            f"{scoped}")


def _report_races(args: argparse.Namespace, run: Run, schedule: tuple[str, int],
                  tally: _Tally) -> None:
    """The races the watcher found in (variant, seed): each location with both accesses'
    clients, locks and stacks; whether or not the history went wrong."""
    variant, seed = schedule
    watched = run.watched
    assert watched is not None
    where = f"{variant}, seed {seed}"
    print(f"history of {where}: {len(run.history.calls)} calls, {run.preemptions} preemptions;"
          f" {len(watched.races)} races on the pair's shared state (found by their locks, "
          "whether or not this schedule interleaved them)")
    for race in watched.races[:RACES_SHOWN]:
        print("\n".join(race.lines()))
    if len(watched.races) > RACES_SHOWN:
        print(f"... and {len(watched.races) - RACES_SHOWN} more")
    print(_again(args, variant, seed))
    if args.json:
        _write_summary(args.json, tally, {"result": "race", "where": where,
                                          "races": [r.to_json() for r in watched.races]})
    print(f"RESULT: RACE: {len(watched.races)} unordered accesses with no common lock in "
          f"{where} (exit {cmd.EXIT_FAIL})")


RACES_SHOWN = 4


def _summary(args: argparse.Namespace, tally: _Tally) -> int:
    """The explained histories: the drift they show, the search's work; the exit code (a
    run that explained no history fails)."""
    explained = tally.explained
    explored = sum(v.explored for v in explained)
    print(f"{len(explained)} histories ({tally.calls} calls) explained; drift shown: "
          f"{cmd.drift_text(cmd.drift_total(explained))}; search: {explored} nodes expanded "
          f"(limit {cmd.LIMIT.nodes} per history)")
    print("\n".join(wrap([cmd.coverage_line(explained, tally.checked)])))
    if tally.stopped:
        print("\n".join(wrap([
            f"{tally.stopped} histories stopped at a fault (the engine's crash, a hang: the "
            f"spec has no step after one, so no call began after it); {tally.unjudged} calls "
            "open at the stop not judged"])))
    print("\n".join(wrap(controlled_lines(args, tuple(tally.traced.most_common()),
                                          tally.locks, not tally.uncontrolled))))
    print("\n".join(wrap(unchecked_lines(tally.unchecked()))))
    print("\n".join(wrap(tally.tested.lines())))
    if args.json:
        _write_summary(args.json, tally)
    if not explained:
        print("RESULT: NOTHING CHECKED: 0 histories (exit 1)")
        return cmd.EXIT_FAIL
    return cmd.final_explained(tally.breaks, cmd.required_of(args), "every history is")


def _write_summary(path: Path, tally: _Tally, stop: dict[str, object] | None = None) -> None:
    """`--json`: the histories explained, the parts unchecked, the code traced, what was
    tested, and `stop`: what ended the run early (a race, an undecided search)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "histories": tally.histories, "explained": len(tally.explained),
        "calls": tally.calls, "unchecked": [p.to_json() for p in tally.unchecked()],
        "traced": dict(tally.traced.most_common()), "locks": tally.locks,
        "tested": tally.tested.to_json(), "stopped": stop,
    }, indent=2, sort_keys=True) + "\n")


def controlled_lines(args: argparse.Namespace, traced: tuple[tuple[str, int], ...],
                     locks: int, controlled: bool) -> list[str]:
    """Which code ran under the controlled schedule, and how it was preempted."""
    if args.async_clients:
        return ["schedule: asyncio tasks on one loop, ordered by the seed (switches at the "
                "implementation's own awaits)"]
    if not controlled:
        return ["schedule: NOT controlled (a side took no hook and could not be traced): "
                "switches only between calls, not reproducible from the seed"]
    if not traced:
        return ["schedule: controlled by the seed; preemption points from the yield hook "
                "(every side hooked)"]
    files = ", ".join(f"{name} ({lines} lines)" for name, lines in traced[:6])
    more = f" and {len(traced) - 6} more files" if len(traced) > 6 else ""
    return [f"schedule: controlled by the seed; a side without a yield hook ran traced, a "
            f"preemption point at each of its lines: {files}{more}; {locks} of its locks "
            f"made the schedule's"]
