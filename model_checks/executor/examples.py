"""Small pure jobs for the executor's own tests (importable by name on any worker, as jobs
must be): no checker behind them, so a test of the executor tests the executor alone."""

from __future__ import annotations

import os
import time


def square_after(n: int, seconds: float = 0.0) -> int:
    """n * n, after sleeping `seconds` (to keep a worker busy in a test)."""
    time.sleep(seconds)
    return n * n


def fail_on(n: int, bad: int) -> int:
    if n == bad:
        raise ValueError(f"got {n}, expected anything but {bad}")
    return n


def die_once(n: int, marker: str) -> int:
    """Kills its own process the first time any job sees `marker` missing (then creates it):
    the job that was running there must be run again, and give the same value."""
    if not os.path.exists(marker):
        with open(marker, "w") as file:
            file.write(str(n))
        os._exit(9)
    return n * 10
