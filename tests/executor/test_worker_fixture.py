"""The cluster tests' worker fixture (`conftest.running_workers`, behind `workers`) ends a
test only once the scheduler has let the test's workers go, so that the next test's wait for
its own workers does not count a worker still leaving. Run over a stand-in scheduler that
lists a stopped worker for a few more queries (as a loaded machine's scheduler does while it
notices the connection drop): no process starts and no clock decides. A planted teardown
that stops waiting leaves the next test counting the leaving workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import conftest
import pytest

LAG = 3
"""How many queries the stand-in scheduler still lists a stopped worker in."""


class _Scheduler:
    """Stand-in for the scheduler: the running workers, and the stopped ones it still
    lists (each for `LAG` queries after its stop)."""

    def __init__(self) -> None:
        self.running: set[str] = set()
        self.leaving: dict[str, int] = {}
        self.queries = 0

    def info(self) -> dict[str, Any]:
        self.queries += 1
        listed = sorted(self.running | set(self.leaving))
        for name in list(self.leaving):
            self.leaving[name] -= 1
            if not self.leaving[name]:
                del self.leaving[name]
        return {"workers": {f"tcp://{name}": {"name": name} for name in listed}}


class _Client:
    """Stand-in for `distributed.Client` over `scheduler`: the calls the fixture makes."""

    def __init__(self, scheduler: _Scheduler) -> None:
        self.scheduler = scheduler

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def wait_for_workers(self, n: int, timeout: float) -> None:
        assert len(self.scheduler.running) >= n

    def scheduler_info(self) -> dict[str, Any]:
        return self.scheduler.info()


class _Process:
    def __init__(self, name: str) -> None:
        self.name = name


def _stand_in(monkeypatch: pytest.MonkeyPatch) -> _Scheduler:
    """Route the fixture's processes and client to a fresh `_Scheduler`."""
    distributed = pytest.importorskip("distributed")
    scheduler = _Scheduler()

    def start(argv: list[str], log: Path, cwd: Path) -> _Process:
        name = argv[argv.index("--name") + 1]
        scheduler.running.add(name)
        return _Process(name)

    def stop(process: _Process) -> None:
        scheduler.running.discard(process.name)
        scheduler.leaving[process.name] = LAG

    monkeypatch.setattr(distributed, "Client", lambda address, **options: _Client(scheduler))
    monkeypatch.setattr(conftest, "_start", start)
    monkeypatch.setattr(conftest, "_stop", stop)
    return scheduler


def _workers_the_next_test_sees(scheduler: _Scheduler, tmp_path: Path) -> int:
    """Run a test's worth of the fixture (two workers), then count the workers the next
    test's first query finds."""
    with conftest.running_workers("tcp://stand-in", tmp_path) as start:
        assert len(start(2)) == 2
    return len(scheduler.info()["workers"])


def test_the_next_test_counts_no_leaving_worker(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    scheduler = _stand_in(monkeypatch)
    assert _workers_the_next_test_sees(scheduler, tmp_path) == 0
    assert scheduler.queries > LAG  # the teardown did wait: the workers were still listed


def test_a_teardown_that_stops_waiting_leaves_them_counted(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The test above can fail: without the wait, the next test counts both workers."""
    scheduler = _stand_in(monkeypatch)
    monkeypatch.setattr(conftest, "wait_let_go", lambda client: None)
    assert _workers_the_next_test_sees(scheduler, tmp_path) == 2


def test_a_scheduler_that_never_lets_go_is_a_hang_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The wait's bound turns a hang into a failure naming it (not a teardown that goes on
    as if the workers had gone)."""
    scheduler = _Scheduler()
    monkeypatch.setattr(conftest, "START_SECONDS", 0)
    scheduler.running.add("stuck")
    with pytest.raises(AssertionError, match=r"^hang: the scheduler still lists workers"):
        conftest.wait_let_go(_Client(scheduler))
