"""A real dask.distributed cluster on this machine (127.0.0.1 only): a scheduler per module,
worker processes per test, every process killed when its fixture ends."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
        if started:  # the next test's wait_for_workers must not count these as its own
            with Client(scheduler, timeout=START_SECONDS, set_as_default=False) as client:
                deadline = time.monotonic() + START_SECONDS  # only catches a hang
                # a synchronous client's scheduler_info is fetched afresh
                while client.scheduler_info()["workers"] and time.monotonic() < deadline:
                    time.sleep(0.05)


def in_hand(client: Any) -> dict[str, tuple[str, list[object]]]:
    """Per worker name, its address and the tasks the scheduler has assigned to it and not
    seen finish."""
    names = {a: str(w["name"]) for a, w in client.scheduler_info()["workers"].items()}
    return {names[a]: (a, list(tasks)) for a, tasks in client.processing().items()
            if a in names}


@dataclass(frozen=True)
class Killed:
    """A worker `kill_a_busy_worker` killed: its name, address, the tasks it had in hand and
    its (ended) process."""

    name: str
    address: str
    tasks: list[object]
    process: subprocess.Popen[bytes]


def kill_a_busy_worker(processes: dict[str, subprocess.Popen[bytes]], client: Any
                       ) -> Killed | None:
    """Stop every worker of `processes` (SIGSTOP: nothing more finishes while one is chosen,
    however loaded the machine), kill the first by name that has tasks in hand (`in_hand`),
    and let the others go on. None when no worker holds a task (all finished theirs): the
    caller tries again at its next progress callback. Why not a fixed worker: it may have
    finished its tasks and hold none when killed, and the test would prove nothing."""
    for process in processes.values():
        process.send_signal(signal.SIGSTOP)
    try:
        for name, (address, tasks) in sorted(in_hand(client).items()):
            if tasks and name in processes:
                processes[name].kill()
                processes[name].wait(timeout=HANG_SECONDS)
                return Killed(name, address, tasks, processes[name])
        return None
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)


class Removals:
    """The scheduler's removals of workers, as it announces them: subscribed to its "all"
    topic, on which it logs a "remove-worker" event naming each worker it removes (a killed
    worker as soon as its connection drops). Made before any worker is killed, so no removal
    is missed; `wait_removed` returns on the announcement (no clock decides)."""

    TOPIC = "all"
    PROBE = "paired-caches-probe"
    PROBE_SECONDS = 1.0
    """How long a probe waits for its echo before another is sent: a pace, never a verdict."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._heard: set[str] = set()
        self._changed = threading.Condition()
        client.subscribe_topic(self.TOPIC, self._hear)
        self._wait_subscribed()

    def _hear(self, event: tuple[float, Any]) -> None:
        """The client's handler of the topic's events (run on its event loop's thread)."""
        _, message = event
        if not isinstance(message, dict):
            return
        if message.get("action") == "remove-worker":
            heard = str(message.get("worker"))
        elif message.get("action") == self.PROBE:
            heard = str(message.get("token"))
        else:
            return
        with self._changed:
            self._heard.add(heard)
            self._changed.notify_all()

    def _wait(self, what: str, seconds: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: what in self._heard, timeout=seconds)

    def _wait_subscribed(self) -> None:
        """Return once the subscription is in place: a probe event this client logged on the
        topic came back through it. The subscription travels on the client's stream and a
        probe by a call, so a probe may overtake it and be lost: then another is sent."""
        token = uuid.uuid4().hex
        bound = time.monotonic() + HANG_SECONDS
        while True:
            self._client.log_event(self.TOPIC, {"action": self.PROBE, "token": token})
            if self._wait(token, self.PROBE_SECONDS):
                return
            if time.monotonic() > bound:
                raise AssertionError(f"hang: the scheduler never echoed a probe on the "
                                     f"topic {self.TOPIC!r} ({HANG_SECONDS} s)")

    def wait_removed(self, address: str) -> None:
        """Wait for the scheduler to announce removing the worker at `address`: the verdict is
        the event (not a count of workers, which other workers coming and going would blur);
        `HANG_SECONDS` only turns a hang into a failure naming it."""
        if not self._wait(address, HANG_SECONDS):
            raise AssertionError(f"hang: the scheduler never removed {address} "
                                 f"({HANG_SECONDS} s)")
