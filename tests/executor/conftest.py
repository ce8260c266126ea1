"""A real dask.distributed cluster on this machine (127.0.0.1 only): a scheduler per module,
worker processes per test, every process killed when its fixture ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 90  # loaded 2-core machines start a Python process slowly; a bound, not a figure
HANG_SECONDS = 900
"""A bound that only catches a hang (far above any wait a loaded machine makes, below the
suite's per-test timeout): a test waits for the cluster's own event, never decides by time."""


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def _start(argv: list[str], log: Path, cwd: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([sys.executable, "-m", "dask", *argv], cwd=cwd, stdout=out,
                                stderr=subprocess.STDOUT, env=_environment(),
                                start_new_session=True)


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a running `dask scheduler` on 127.0.0.1."""
    pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("dask")
    file = folder / "scheduler.json"
    process = _start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                      "--scheduler-file", str(file)], folder / "scheduler.log", folder)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not file.exists():
            assert process.poll() is None, (folder / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        yield str(json.loads(file.read_text())["address"])
    finally:
        _stop(process)


Workers = Callable[[int], list[subprocess.Popen[bytes]]]


@pytest.fixture
def workers(scheduler: str, tmp_path: Path) -> Iterator[Workers]:
    """`workers(n)` starts n single-threaded worker processes (no nanny: killing one kills
    the worker) and waits until the scheduler has them all."""
    from distributed import Client

    started: list[subprocess.Popen[bytes]] = []

    def start(n: int) -> list[subprocess.Popen[bytes]]:
        new = [_start(["worker", scheduler, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                       "--host", "127.0.0.1", "--name", f"w{len(started) + i}",
                       "--local-directory", str(tmp_path)],
                      tmp_path / f"worker{len(started) + i}.log", tmp_path) for i in range(n)]
        started.extend(new)
        with Client(scheduler, timeout=START_SECONDS, set_as_default=False) as client:
            client.wait_for_workers(len(started), timeout=START_SECONDS)
        return new

    try:
        yield start
    finally:
        for process in started:
            _stop(process)


def in_hand(client: Any) -> dict[str, tuple[str, list[object]]]:
    """Per worker name, its address and the tasks the scheduler has assigned to it and not
    seen finish."""
    names = {a: str(w["name"]) for a, w in client.scheduler_info()["workers"].items()}
    return {names[a]: (a, list(tasks)) for a, tasks in client.processing().items()
            if a in names}


def removed(client: Any, address: str) -> bool:
    """Whether the scheduler has removed the worker at `address`: its own record of the
    event (the "remove-worker" entry it logs on the worker's topic), not a count of workers,
    which other workers coming and going would blur."""
    return any(event.get("action") == "remove-worker"
               for _, event in client.get_events(address))


def wait_removed(client: Any, address: str) -> None:
    """Wait for the scheduler to remove the worker at `address`: the verdict is the event;
    `HANG_SECONDS` only turns a hang into a failure naming it."""
    bound = time.monotonic() + HANG_SECONDS
    while not removed(client, address):
        if time.monotonic() > bound:
            raise AssertionError(f"hang: the scheduler never removed {address} "
                                 f"({HANG_SECONDS} s)")
        time.sleep(0.2)
