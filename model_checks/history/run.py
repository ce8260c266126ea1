"""`conform --threads N` / `--tasks N`: seeded concurrent runs of an adapter, each history
checked against the spec; the first history with no explanation stops the run and is shown
(swim lanes) and written (a log `--check-log` replays; the same `--seed` replays the same
schedule where every side takes the yield hook)."""

from __future__ import annotations

import argparse
from pathlib import Path

from model_checks.conform.adapter import Adapter, AdapterError, load_adapter, supports
from model_checks.history import report as cmd
from model_checks.history.concurrent import Run, checked_environment, run_tasks, run_threads
from model_checks.history.explain import Explained, Undecided, Unexplained, explain
from spec import Drift


def _runner(args: argparse.Namespace, adapter: Adapter, variant: str, env: frozenset[Drift],
            seed: int) -> Run:
    if args.threads:
        return run_threads(adapter, variant, env, args.threads, seed)
    return run_tasks(adapter, variant, env, args.tasks, seed)


def _where(args: argparse.Namespace, variant: str, seed: int) -> Path:
    mode = f"threads{args.threads}" if args.threads else f"tasks{args.tasks}"
    stem = f"{mode}-{variant}-seed{seed}.unexplained.jsonl"
    if args.json:
        json_path: Path = args.json
        return json_path.with_name(f"{json_path.stem}.{stem}")
    return Path("build/history") / stem


def run_concurrent(args: argparse.Namespace, env: frozenset[Drift]) -> int:
    """Every variant asked for (default: every one the adapter supports), `SCHEDULES`
    seeded schedules each; the verdict and exit code (module `command`)."""
    try:
        adapter = load_adapter(args.adapter)
        variants = cmd.variants_of(adapter, args.variant)
        missing = [v for v in variants if not supports(adapter, v)]
        if missing:
            return cmd.usage(f"--variant: adapter {adapter.name} does not support "
                              f"{', '.join(missing)}")
    except AdapterError as error:
        return cmd.usage(" ".join(str(error).split()))
    checked = checked_environment(env)
    mode = f"{args.threads} threads" if args.threads else f"{args.tasks} asyncio tasks"
    print(f"history check of {adapter.name} ({mode}, profile {args.profile}, "
          f"{cmd.drifts_text(env)}; concurrent clients add D1: checked in "
          f"{cmd.drifts_text(checked)})")
    explained: list[Explained] = []
    breaks: dict[str, list[int]] = {}
    calls = uncontrolled = 0
    for variant in variants:
        for seed in range(args.seed, args.seed + cmd.SCHEDULES[args.profile]):
            run = _runner(args, adapter, variant, env, seed)
            calls += len(run.history.calls)
            uncontrolled += not run.controlled
            where = f"{variant}, seed {seed}"
            if run.errors:
                print(f"a client raised in {where}: {'; '.join(run.errors)}")
                print(f"RESULT: NOT EXPLAINED: the run failed in {where} (exit 1)")
                return cmd.EXIT_FAIL
            verdict = explain(run.history, checked, cmd.LIMIT)
            if isinstance(verdict, Undecided):
                print("\n".join(cmd.verdict_lines(verdict)))
                print(f"RESULT: UNDECIDED in {where} (exit {cmd.EXIT_UNDECIDED})")
                return cmd.EXIT_UNDECIDED
            if isinstance(verdict, Unexplained):
                print(f"history of {where}: {len(run.history.calls)} calls, "
                      f"{run.preemptions} preemptions")
                print("\n".join(cmd.verdict_lines(verdict)))
                lines = cmd.report_unexplained(run.history, checked, verdict,
                                               _where(args, variant, seed))
                print("\n".join(lines))
                again = "--threads" if args.threads else "--tasks"
                print(f"the same schedule: python -m model_checks conform --adapter "
                      f"{args.adapter} {again} {args.threads or args.tasks} --seed {seed} "
                      f"--variant {variant}")
                print(f"RESULT: NOT EXPLAINED: the history of {where} (exit {cmd.EXIT_FAIL})")
                return cmd.EXIT_FAIL
            explained.append(verdict)
            for prop, numbers in cmd.observed_breaks(run.history).items():
                breaks.setdefault(prop, []).extend(numbers)
    explored = sum(v.explored for v in explained)
    print(f"{len(explained)} histories ({calls} calls) explained; drift shown: "
          f"{cmd.drift_text(cmd.drift_total(explained))}; search: {explored} nodes expanded "
          f"(limit {cmd.LIMIT.nodes} per history)")
    if uncontrolled:
        print(f"{uncontrolled} histories ran unhooked (a side without a yield hook): "
              "switches only between calls, not reproducible from the seed")
    if not explained:
        print("RESULT: NOTHING CHECKED: 0 histories (exit 1)")
        return cmd.EXIT_FAIL
    return cmd.final_explained(breaks, cmd.required_of(args), "every history is")


def first_unexplained_seed(adapter: Adapter, variant: str, env: frozenset[Drift],
                           threads: int, seeds: range) -> int | None:
    """The first seed of `seeds` whose threaded history the spec does not explain in
    `env` (with what concurrency adds), or None: how a mutant is killed by this check."""
    for seed in seeds:
        run = run_threads(adapter, variant, env, threads, seed)
        if run.errors or isinstance(explain(run.history, checked_environment(env), cmd.LIMIT),
                                    Unexplained):
            return seed
    return None
