"""Seeded preemption without hooks: a pair with no yield hook (`hookless_pair.py`) runs
traced under the seeded scheduler (a preemption point at each of its lines, its locks the
schedule's). With one lock removed from any method that shares state, `conform --threads 4`
with a fixed seed reports the race, the same way on every run; with its locks the same seed
passes. The report names the code that ran under the controlled scheduler."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from history_helpers import reference_log

from model_checks.history.concurrent import ThreadRun, checked_environment, run_threads
from model_checks.history.explain import Explained, Unexplained, explain
from model_checks.history.log import History, log_lines, read_log, write_log
from model_checks.history.preempt import LineTracer, install_locks
from model_checks.history.schedule import SchedLock, Scheduler
from spec import environment
from tests.history.hookless_pair import TARGETS, factory_unlocked

SEED = 1
"""Any seed: a lock removed is a race by the locks each access held, whatever the schedule
(tests/history/test_history_watch.py runs seeds 1-5)."""

PAIR = "tests.history.hookless_pair:factory"
ROOT = Path(__file__).resolve().parents[2]


def fresh_conform(*argv: str) -> tuple[int, str, str]:
    """`python -m model_checks conform ARGV` in a fresh interpreter with a fixed hash seed:
    a traced schedule counts the lines the implementation runs, so it replays from the seed
    in a process of its own, not after whatever an earlier test left warm in this one."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-m", "model_checks", "conform", *argv], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("target", TARGETS)
def test_a_lock_removed_is_caught_with_a_fixed_seed(target: str) -> None:
    planted = f"tests.history.hookless_pair:factory_unlocked_{target.replace('.', '_')}"
    code, out, _ = fresh_conform("--adapter", planted, "--threads", "4", "--seed", str(SEED),
                                 "--environment", "D3")
    assert code == 1, out
    assert "RACE on " in out and "holding no lock" in out
    assert "RESULT: RACE" in out or "RESULT: NOT EXPLAINED" in out
    assert f"--seed {SEED}" in out and "--environment D3" in out  # the same schedule
    if target == "fe.clear":  # the whole command again, the same output
        again = fresh_conform("--adapter", planted, "--threads", "4", "--seed", str(SEED),
                              "--environment", "D3")
        assert again[:2] == (code, out)
    code, out, _ = fresh_conform("--adapter", PAIR, "--threads", "4", "--seed", str(SEED),
                                 "--environment", "D3")
    assert code == 0, out
    assert "ran traced" in out and "tests/history/hookless_pair.py" in out


def test_a_seed_replays_the_same_traced_history() -> None:
    adapter = factory_unlocked("fe.handle_reply")
    runs = [run_threads(adapter, "V2", environment("D3"), ThreadRun(4, 6)) for _ in range(2)]
    assert log_lines(runs[0].history) == log_lines(runs[1].history)
    assert runs[0].controlled and runs[0].preemptions > 0 and runs[0].locks == 2
    assert {name for name, _ in runs[0].traced} >= {"tests/history/hookless_pair.py",
                                                    "tests/conform/ordered_pair.py"}


class _Holder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inner = {"x": _Inner()}


class _Inner:
    def __init__(self) -> None:
        self.rlock = threading.RLock()


def test_locks_reachable_from_a_side_become_the_schedules() -> None:
    scheduler = Scheduler(0)
    holder = _Holder()
    assert install_locks(holder, scheduler) == 2
    assert isinstance(holder.lock, SchedLock)
    rlock = holder.inner["x"].rlock
    assert isinstance(rlock, SchedLock)
    with rlock, rlock:  # reentrant, as the RLock it replaced
        assert rlock.locked()
    assert not rlock.locked()


def test_the_harness_and_the_standard_library_are_not_traced() -> None:
    tracer = LineTracer(Scheduler(0))
    assert not tracer.traced(threading.__file__)
    assert not tracer.traced(run_threads.__code__.co_filename)
    assert tracer.traced(__file__)


def written(history: History) -> Path:
    path = Path(tempfile.mkdtemp()) / "log.jsonl"
    write_log(path, history)
    return path


def test_the_caches_left_must_be_the_explanations() -> None:
    history = reference_log()
    final = history.header.final
    assert final is not None and any(ids for _, ids in final)
    assert isinstance(explain(history, checked_environment(environment("D3"))), Explained)
    side = next(s for s, i in final if i)
    wrong = tuple((s, i[1:] if s == side else i) for s, i in final)
    changed = History(replace(history.header, final=wrong), history.calls)
    verdict = explain(changed, checked_environment(environment("D3")))
    assert isinstance(verdict, Unexplained) and "leaves the caches" in verdict.reason
    assert changed.prefix(len(history.calls) - 1).header.final is None
    assert read_log(written(changed)).header.final == wrong
