"""Shared by the history tests: a log recorded from the reference under drift, the
conform command run in this process, and the first seed whose threaded run a check kills."""

from __future__ import annotations

import contextlib
import io
from dataclasses import replace
from pathlib import Path

from model_checks.cli import main
from model_checks.conform.adapter import Adapter
from model_checks.conform.reference_adapter import factory
from model_checks.history import report as cmd
from model_checks.history.concurrent import ThreadRun, checked_environment, run_threads
from model_checks.history.explain import Unexplained, explain
from model_checks.history.log import Call, History, Input, Result, write_log
from spec import Drift, environment

REFERENCE = "model_checks.conform.reference_adapter:factory"
ASYNC_REFERENCE = "model_checks.conform.async_adapter:factory"
PAIR = "tests.history.user_pair:factory"
UNLOCKED_PAIR = "tests.history.user_pair:factory_unlocked_reply"


def conform(*argv: str) -> tuple[int, str, str]:
    """`python -m model_checks conform ARGV` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["conform", *argv])
    return code, out.getvalue(), err.getvalue()


def reference_log(seed: int = 0) -> History:
    """Four threads and a drift client on the reference V3 in environment D3 (one-sided
    clears): misses, invalidations and resends happen."""
    return run_threads(factory(), "V3", environment("D3"), ThreadRun(4, seed)).history


def with_result(history: History, number: int, result: Result) -> History:
    calls = list(history.calls)
    calls[number] = replace(calls[number], result=result)
    return History(history.header, tuple(calls))


def eviction_deleted(history: History) -> tuple[History, Call]:
    """The history with one eviction deleted from the first call that reports one."""
    call = next(c for c in history.calls if c.result.evicted_p1)
    assert call.result.evicted_p1 is not None
    result = replace(call.result, evicted_p1=call.result.evicted_p1[1:])
    return with_result(history, call.number, result), call


def stale_pairing(history: History) -> tuple[History, Call]:
    """The history with one served item paired with the placeholders of another content:
    the first served call's first item takes the placeholders of a content it is not."""
    call = next(c for c in history.calls if c.result.kind == "served")
    first = call.result.inputs[0]
    other = next(i.content for c in history.calls for i in c.items
                 if i.content != first.tensor)
    inputs = (Input(first.identity, first.tensor, other), *call.result.inputs[1:])
    return with_result(history, call.number, replace(call.result, inputs=inputs)), call


def written(tmp_path: Path, history: History, name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    write_log(path, history)
    return path


def first_unexplained_seed(adapter: Adapter, variant: str, env: frozenset[Drift],
                           threads: int, seeds: range) -> int | None:
    """The first seed of `seeds` whose threaded run has a race, or whose history the spec
    does not explain in `env` (with what concurrency adds), or None: how a mutant is killed
    by this check."""
    for seed in seeds:
        threaded = run_threads(adapter, variant, env, ThreadRun(threads, seed))
        if threaded.errors or (threaded.watched is not None and threaded.watched.races):
            return seed
        if isinstance(explain(threaded.history, checked_environment(env), cmd.LIMIT), Unexplained):
            return seed
    return None
