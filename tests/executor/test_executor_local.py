"""The executor with the local backend: results in submission order whatever finished first,
a failing task reported without losing the others, a dead worker process's tasks run again, and
progress lines (done/total, elapsed, estimate) per task."""

from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import HANG_SECONDS, ROOT

from model_checks import executor
from model_checks.executor import Done, Failed, LineProgress, LocalProcesses, Task
from model_checks.executor.tasks import start_order
from tests.executor.examples import exit_on, fail_on, kill_worker_once, square_after


def _tasks() -> list[Task[int]]:
    # the first task is the slowest: finishing order differs from submission order
    return [Task(f"n{n}", square_after, (n, 0.3 if n == 0 else 0.0)) for n in range(6)]


@pytest.mark.parametrize("processes", [1, 2])
def test_results_come_back_in_submission_order(processes: int) -> None:
    results = executor.run(_tasks(), LocalProcesses(processes))
    assert [r.label for r in results] == [f"n{n}" for n in range(6)]
    assert executor.values(results) == [n * n for n in range(6)]


def test_larger_costs_start_first_and_results_keep_submission_order() -> None:
    costs = [0.0, 3.0, 0.0, 7.0, 3.0, 0.0]
    tasks = [Task(f"n{n}", square_after, (n,), cost=c) for n, c in enumerate(costs)]
    assert start_order(tasks) == [3, 1, 4, 0, 2, 5]  # ties keep submission order
    assert start_order(_tasks()) == list(range(6))  # no cost: submission order
    results = executor.run(tasks, LocalProcesses(2))
    assert [r.label for r in results] == [f"n{n}" for n in range(6)]
    assert executor.values(results) == [n * n for n in range(6)]


def test_a_failing_job_keeps_the_others_results() -> None:
    tasks = [Task(f"n{n}", fail_on, (n, 2)) for n in range(4)]
    results = executor.run(tasks, LocalProcesses(2))
    failed = results[2]
    assert isinstance(failed, Failed)
    assert failed.error == "ValueError: got 2, expected anything but 2"
    assert "Traceback" in failed.detail
    assert [r.value for r in results if isinstance(r, Done)] == [0, 1, 3]
    with pytest.raises(executor.TaskFailed, match="task n2 failed: ValueError"):
        executor.values(results)


@pytest.mark.parametrize("processes", [1, 2])
def test_a_job_that_ends_its_process_fails_alone(processes: int) -> None:
    tasks = [Task(f"n{n}", exit_on, (n, 1)) for n in range(3)]
    results = executor.run(tasks, LocalProcesses(processes))
    failed = results[1]
    assert isinstance(failed, Failed)
    assert failed.error == "the task's process died (exit code 9)"
    assert [r.value for r in results if isinstance(r, Done)] == [0, 2]


def test_a_killed_worker_process_loses_no_job(tmp_path: Path) -> None:
    marker = str(tmp_path / "died")
    tasks = [Task(f"n{n}", kill_worker_once, (n, marker)) for n in range(5)]
    results = executor.run(tasks, LocalProcesses(2))
    assert Path(marker).exists()  # a worker process did die
    assert executor.values(results) == [n * 10 for n in range(5)]


WORKER = """
import sys
from model_checks.executor import tasks
from tests.executor.examples import announce_then_sleep
tasks.preload = lambda: None  # what the task's process imports first is not under test
if sys.argv[1] == "planted":  # the known-bad: a task's process that outlives its worker
    tasks.die_with_parent = lambda parent: None
tasks.call(tasks.Task("sleeper", announce_then_sleep, (float(sys.argv[2]),)))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="prctl and pidfd are Linux's")
@pytest.mark.parametrize("planted", [False, True])
def test_a_killed_workers_job_dies_with_it(planted: bool) -> None:
    """A worker process killed mid-task takes its task's process with it: nothing runs on for
    a result nobody reads, holding the worker's sockets open. The wait is for the task's
    process to end (its pidfd readable); `HANG_SECONDS` only turns a hang into a failure.
    Planted: without `die_with_parent` the task still sleeps once its worker is gone."""
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, "planted" if planted else "kept", str(HANG_SECONDS)],
        stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert worker.stdout is not None
    task = int(worker.stdout.readline())  # the task's process is running
    handle = os.pidfd_open(task)
    try:
        worker.kill()
        worker.wait(timeout=HANG_SECONDS)
        if planted:
            assert not select.select([handle], [], [], 0)[0], "the planted task outlives it"
        else:
            ended, _, _ = select.select([handle], [], [], HANG_SECONDS)
            assert ended, f"hang: the task's process outlived its worker ({HANG_SECONDS} s)"
    finally:
        with contextlib.suppress(ProcessLookupError):
            signal.pidfd_send_signal(handle, signal.SIGKILL)
        os.close(handle)
        worker.stdout.close()


def test_progress_prints_a_plain_line_per_job_with_counters() -> None:
    lines: list[str] = []
    executor.run(_tasks()[:3], LocalProcesses(1), LineProgress("squares", write=lines.append))
    assert lines[0] == "squares: 3 tasks on this process"
    assert lines[1].startswith("  [1/3, ") and "about" in lines[1] and "n0:" in lines[1]
    assert lines[3].startswith("  [3/3, ") and "left" not in lines[3]
    assert lines[-1].startswith("squares: 3/3, ")


def test_progress_on_a_terminal_keeps_a_status_line() -> None:
    screen = io.StringIO()
    progress = LineProgress("squares", terminal=screen)
    executor.run(_tasks()[:2], LocalProcesses(1), progress)
    text = screen.getvalue()
    assert "\r\x1b[K  n0: " in text and "squares: 1/2, " in text
    assert text.endswith("\n")


def test_a_failed_job_is_a_progress_line_too() -> None:
    lines: list[str] = []
    tasks = [Task(f"n{n}", fail_on, (n, 1)) for n in range(2)]
    executor.run(tasks, LocalProcesses(1), LineProgress("t", write=lines.append))
    assert any("FAILED n1: ValueError: got 1" in line for line in lines)
    assert lines[-1].endswith("1 failed")


def test_no_processes_is_refused() -> None:
    with pytest.raises(ValueError, match="got 0 processes, expected at least 1"):
        LocalProcesses(0)


def test_sweep_is_the_one_call_form(capsys: pytest.CaptureFixture[str]) -> None:
    results = executor.sweep(_tasks()[:3], processes=2, title="squares")
    assert executor.values(results) == [0, 1, 4]
    out = capsys.readouterr().out
    assert out.startswith("squares: 3 tasks on 2 local processes\n") and "[3/3, " in out


def test_each_job_reports_the_cpu_time_of_its_process() -> None:
    burn = Task("burn", sum, (range(3_000_000),))
    lines: list[str] = []
    [result] = executor.run([burn], LocalProcesses(1), LineProgress("t", write=lines.append))
    assert isinstance(result, Done) and result.cpu_seconds > 0
    assert "(CPU " in lines[1] and "the tasks' CPU time" in lines[-1]
