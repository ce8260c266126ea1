"""The Dask backend against a real scheduler and worker processes on 127.0.0.1: a sweep sent
with `--dask` gives the local run's records, task for task; a worker killed mid-sweep loses no
task and changes no result; an unreachable scheduler or a cluster without workers is one
error line and exit code 2."""

from __future__ import annotations

import dataclasses
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HANG_SECONDS, Killed, Removals, Workers, kill_a_busy_worker

from model_checks.cli import main
from model_checks.executor import ClusterError, cluster
from model_checks.executor.tasks import Task
from model_checks.kernel.verdict_records import VerdictRecord, read_records

SWEEP = ["prove", "--variant", "V0", "--variant", "V1", "--environment", "D1",
         "--environment", "D2", "--depth", "3", "--search-depth", "5"]
"""Four (variant, environment) groups, four tasks, each with counterexamples: small, and
decided well within the solver's rlimit (a verdict is a function of the query)."""


def _comparable(record: VerdictRecord) -> dict[str, Any]:
    """A record without what legitimately differs between runs: its time and file location."""
    fields = dataclasses.asdict(record)
    del fields["seconds"], fields["counterexample_path"]
    return fields


def _trace(path: str | None) -> Any:
    return None if path is None else json.loads(Path(path).read_text())


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> list[VerdictRecord]:
    """The local run, from a fresh interpreter as a user starts it: a task forked from this
    test process would inherit the z3 terms earlier tests created, and z3's answers (a
    Spacer invariant, a model) can depend on them; the cluster's workers are fresh too."""
    out = tmp_path_factory.mktemp("local") / "records.json"
    subprocess.run([sys.executable, "-m", "model_checks", *SWEEP, "--jobs", "2",
                    "--json", str(out)], check=True, capture_output=True)
    return read_records(out)


def test_a_sweep_through_dask_equals_the_local_run(
    scheduler: str, workers: Workers, local_run: list[VerdictRecord], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    workers(2)
    out = tmp_path / "records.json"
    assert main([*SWEEP, "--dask", scheduler, "--json", str(out)]) == 0
    assert f"4 tasks on the Dask cluster at {scheduler} (2 workers)" in capsys.readouterr().out
    remote = read_records(out)
    assert [_comparable(r) for r in remote] == [_comparable(r) for r in local_run]
    traces = [_trace(r.counterexample_path) for r in remote]
    assert any(traces), "the sweep must find counterexamples, written here by the submitter"
    assert traces == [_trace(r.counterexample_path) for r in local_run]


def test_a_worker_killed_mid_sweep_loses_no_job(
    scheduler: str, workers: Workers, local_run: list[VerdictRecord],
) -> None:
    """At the first finished task, kill a worker that has a task in hand. Which one is chosen
    then, because a fixed worker may already have finished its tasks and hold none when it is
    killed (nothing would be lost and the test would prove nothing); if no worker holds a task
    at one progress line, the next line tries again."""
    from model_checks.smt.command import _selected, add_arguments
    from model_checks.smt.runner import SmtRun, run_cells

    processes = dict(zip(("w0", "w1"), workers(2), strict=True))
    parser = __import__("argparse").ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(SWEEP[1:])
    lines: list[str] = []
    killed: list[Killed] = []
    backend = cluster.DaskCluster(scheduler)
    removals = Removals(backend.client)

    def progress(line: str) -> None:
        lines.append(line)
        if killed or not line.startswith("  ["):  # a task is done: the sweep is under way
            return
        victim = kill_a_busy_worker(processes, backend.client)
        if victim is not None:
            killed.append(victim)

    try:
        run = SmtRun(args.depth, args.rlimit, args.search_depth)
        outcomes = run_cells(_selected(args), run, progress, backend=backend)
        if killed:  # the scheduler's own announcement of removing it (no clock decides)
            removals.wait_removed(killed[0].address)
    finally:
        backend.close()
    assert killed and killed[0].process.returncode is not None, "no worker had a task in hand"
    assert killed[0].tasks, "the killed worker had tasks in hand"
    assert sum(line.startswith("  [") for line in lines) == 4
    assert all(o.status != "failed" for o in outcomes)
    assert [_comparable(o.record) for o in outcomes] == [_comparable(r) for r in local_run]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("argv", [SWEEP, ["simulate", "--only", "V0_D1"], ["nightly"],
                                  ["mutants", "--checkers", "z3"], []])
def test_an_unreachable_scheduler_is_one_line_and_exit_2(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)
    monkeypatch.chdir(tmp_path)
    address = f"tcp://127.0.0.1:{_free_port()}"
    assert main([*argv, "--dask", address]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: cannot reach the Dask scheduler at {address}: ")
    assert captured.err.count("\n") == 1
    assert not list(tmp_path.iterdir()), "nothing ran, nothing was written"


def test_a_scheduler_without_workers_is_one_line_and_exit_2(
    scheduler: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1)
    assert main([*SWEEP, "--dask", scheduler]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: no Dask worker joined the scheduler at {scheduler}")
    assert err.count("\n") == 1


def test_a_sweep_left_without_workers_fails(
    scheduler: str, workers: Workers, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hang guard: the only worker killed once a first task is done, the sweep gives up
    (`ClusterError`, a line and exit 2 on the command line) once the scheduler has had no
    worker for NO_WORKER_SECONDS (shortened here), instead of waiting for ever."""
    (process,) = workers(1)
    monkeypatch.setattr(cluster, "NO_WORKER_SECONDS", 2.0)
    monkeypatch.setattr(cluster, "POLL_SECONDS", 0.2)
    backend = cluster.DaskCluster(scheduler)
    # the first task ends at once, the others only after a hang bound: however slow the
    # machine, no task but the first can finish before the worker is killed; the one the
    # worker has started dies with it (`tasks.die_with_parent`), so the scheduler sees the
    # worker leave at once and the sweep is left with no worker
    tasks = [Task(f"sleep-{n}", time.sleep, (0.0 if n == 0 else HANG_SECONDS,))
            for n in range(4)]
    results = []
    try:
        with pytest.raises(ClusterError, match="no Dask worker left at"):
            for result in backend.results(tasks):
                results.append(result)
                if process.poll() is None:
                    process.kill()
                    process.wait(timeout=HANG_SECONDS)
    finally:
        backend.close()
    assert len(results) == 1
