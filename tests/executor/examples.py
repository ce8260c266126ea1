"""Small pure tasks for the executor's own tests (importable by name on any worker, as tasks
must be): no checker behind them, so a test of the executor tests the executor alone."""

from __future__ import annotations

import os
import signal
import time


def square_after(n: int, seconds: float = 0.0) -> int:
    """n * n, after sleeping `seconds` (to keep a worker busy in a test)."""
    time.sleep(seconds)
    return n * n


def fail_on(n: int, bad: int) -> int:
    if n == bad:
        raise ValueError(f"got {n}, expected anything but {bad}")
    return n


def exit_on(n: int, bad: int) -> int:
    """Ends its own process (exit code 9) on `bad`: the task fails, the others do not."""
    if n == bad:
        os._exit(9)
    return n


def kill_worker_once(n: int, marker: str) -> int:
    """The first task to find `marker` missing creates it and kills the worker process that runs
    it (the parent of the task's own process): that worker's tasks must be run again elsewhere and
    give the same values. Only for a pool of worker processes, never this process."""
    if not os.path.exists(marker):
        with open(marker, "w") as file:
            file.write(str(n))
        os.kill(os.getppid(), signal.SIGKILL)
        os._exit(9)
    return n * 10


def announce_then_sleep(seconds: float) -> int:
    """Prints the pid of the process running it (a task's own process) on a line of its own,
    then sleeps `seconds`: a task that outlives a test unless something ends it."""
    print(os.getpid(), flush=True)
    time.sleep(seconds)
    return os.getpid()
