"""One exploration spread over a real Dask cluster (a scheduler and two worker processes on
127.0.0.1, `conftest.py`), in both modes (the partitions owned by the workers, the default,
and stateless workers): the graph is `build`'s, field by field, hence the same states,
diameter, verdicts and shortest counterexamples; a worker killed with tasks in hand loses
nothing to the stateless search and fails the owned one (no graph); a cell explored with
`explore --dask ADDRESS --distributed` writes the local run's records and traces; bad input
is one line and exit code 2."""

from __future__ import annotations

import dataclasses
import json
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import HANG_SECONDS, Killed, Removals, Workers, kill_a_busy_worker

from model_checks.cli import main
from model_checks.executor import cluster, waits
from model_checks.explore import cell_tasks, distributed, partitioned
from model_checks.explore.cell_tasks import CellTask, explore_cell
from model_checks.explore.command import PROFILES
from model_checks.explore.distributed import build_distributed
from model_checks.explore.distributed_common import DistributedSearchFailed
from model_checks.explore.exploration import breaks, explore
from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.instance import explore_config, shapes_for
from model_checks.explore.lru_judging.judge import Status, judge_all
from model_checks.kernel.verdict_records import VerdictRecord, read_records
from spec import Config, variant_named
from spec.designs import design_named
from spec.designs.base import Design


def _config(variant: str, *env: str) -> Config:
    return explore_config(variant_named(variant), env, max_requests=2)


V2_D3 = _config("V2", "D3")
"""472 states under symmetry (a and b interchangeable), with counterexamples."""
V3_D7 = _config("V3", "D7")
"""691 states, diameter 9: levels of up to 138 states, many tasks each at 20 states a task."""


@pytest.fixture
def dask_cluster(scheduler: str, workers: Workers) -> Iterator[cluster.DaskCluster]:
    workers(2)
    backend = cluster.DaskCluster(scheduler)
    try:
        yield backend
    finally:
        backend.close()


def _verdicts(graph: Graph) -> list[tuple[str, Status, int]]:
    """Per property and lemma: the status and the counterexample's length."""
    return [(j.property_id, j.status, len(j.actions)) for j in judge_all(graph)]


V0_D6 = _config("V0", "D6")
"""1,810 states, 128 of them with P0's probe hits {a, b}, whose repr depends on the hash seed
(`test_explore_fingerprint.py`): the two workers must still put each in one partition."""


@pytest.mark.parametrize("owned", [True, False])
def test_the_distributed_graph_is_builds(dask_cluster: cluster.DaskCluster, owned: bool
                                         ) -> None:
    local = build(V2_D3)
    for partitions, chunk in ((None, 500), (3, 7), (1, 50)):
        options = GraphOptions(partitions=partitions, chunk_states=chunk, owned=owned)
        remote = build_distributed(V2_D3, dask_cluster, options)
        assert remote == local, (partitions, chunk)
    assert local.symmetric and local.complete
    assert _verdicts(remote) == _verdicts(local)
    assert any(status is Status.COUNTEREXAMPLE for _, status, _ in _verdicts(local))
    assert build_distributed(V0_D6, dask_cluster,
                             GraphOptions(chunk_states=100, owned=owned)) == build(V0_D6)


@pytest.mark.parametrize("owned", [True, False])
def test_unreduced_and_cut_graphs_are_builds(dask_cluster: cluster.DaskCluster, owned: bool
                                             ) -> None:
    unreduced = GraphOptions(reduce=False, chunk_states=40, owned=owned)
    assert build_distributed(V2_D3, dask_cluster, unreduced) == build(
        V2_D3, GraphOptions(reduce=False))
    for limit in (300, 1, 2, 472, 473):  # inside a level, at the first states, at the end
        cut = build_distributed(V2_D3, dask_cluster,
                                GraphOptions(max_states=limit, chunk_states=40, owned=owned))
        assert cut == build(V2_D3, GraphOptions(max_states=limit)), limit
    cut = build_distributed(V2_D3, dask_cluster, GraphOptions(max_states=300, owned=owned))
    assert not cut.complete and len(cut.states) == 300
    assert _verdicts(cut) == _verdicts(build(V2_D3, GraphOptions(max_states=300)))


def _broken(design: Design, config: Any, graph: Graph) -> set[str]:
    """The properties some transition of `graph` breaks, judged on arrival as `explore`
    judges them (each edge's successor stepped again from its source state)."""
    props = design.properties
    broken = {p.id for p, _ in breaks(design, config, graph.states[0], props)}
    for number, state in enumerate(graph.states):
        for action, _ in graph.edges[number]:
            after = design.step(config, state, action)
            broken |= {p.id for p, _ in breaks(design, config, after, props)}
    return broken


@pytest.mark.parametrize("owned", [True, False])
@pytest.mark.parametrize(("name", "source"), [("shm", "D2"), ("encoder", "D7")])
def test_another_designs_distributed_graph_is_builds(
    dask_cluster: cluster.DaskCluster, owned: bool, name: str, source: str,
) -> None:
    """A design searched through `moves.DesignMoves` (no reductions): the same graph, hence
    the same states and verdicts, as the one-process search (`exploration.explore`)."""
    design = design_named(name)
    config = design.instance(design.variants[0], frozenset({source}))
    local = build(config, GraphOptions(reduce=False), name)
    remote = build_distributed(config, dask_cluster,
                               GraphOptions(reduce=False, chunk_states=500, owned=owned), name)
    assert remote == local and remote.design == name and remote.complete
    explored = explore(design, config)
    assert len(remote.states) == explored.states
    assert _broken(design, config, remote) == {w.property_id for w in explored.witnesses}
    assert explored.witnesses, "the instance breaks a property: the verdicts can differ"


def test_the_equality_can_fail(
    dask_cluster: cluster.DaskCluster, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The known-bad merge: a level's edges taken partition by partition (the order the
    results arrive in, not the state numbers') reach the same states but number them
    otherwise, and the test above tells."""
    def by_partition(search: Any, low: int, high: int) -> list[int]:
        return sorted(range(low, high), key=lambda n: (search.partition[n], n))

    monkeypatch.setattr(distributed._Search, "_order", by_partition)
    remote = build_distributed(V2_D3, dask_cluster, GraphOptions(partitions=2, owned=False))
    local = build(V2_D3)
    assert len(remote.states) == len(local.states) and remote.diameter == local.diameter
    assert remote != local


def test_the_owned_equality_can_fail(
    dask_cluster: cluster.DaskCluster, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The known-bad ranking: a level's new states numbered partition by partition (each in
    key order) instead of by the merge of every partition's keys: the same states, numbered
    otherwise, and the owned graph is not `build`'s."""
    rank = partitioned._OwnedSearch._rank

    def by_partition(search: Any, keys: list[array[int]], high: int) -> list[array[int]]:
        shifted = [array("q", [(n << 40) | key for key in part])
                   for n, part in enumerate(keys)]
        numbers = rank(search, shifted, high)
        search.key[high:] = array("q", [key & ((1 << 40) - 1) for key in search.key[high:]])
        if search.cut is not None:
            search.cut &= (1 << 40) - 1
        return numbers

    monkeypatch.setattr(partitioned._OwnedSearch, "_rank", by_partition)
    remote = build_distributed(V2_D3, dask_cluster, GraphOptions(partitions=2))
    local = build(V2_D3)
    assert len(remote.states) == len(local.states) and remote.diameter == local.diameter
    assert remote != local


def test_no_worker_known_at_submission_still_builds(
    dask_cluster: cluster.DaskCluster, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no worker known when a level is submitted (one restarting), the stateless
    search's tasks carry no placement preference and the scheduler places them: the same
    graph, no error. The owned search needs its owners at the start: one line, no graph."""
    monkeypatch.setattr(waits, "workers", lambda _cluster: [])
    assert build_distributed(V2_D3, dask_cluster,
                             GraphOptions(partitions=2, owned=False)) == build(V2_D3)
    with pytest.raises(DistributedSearchFailed, match="no Dask worker at"):
        build_distributed(V2_D3, dask_cluster)


def test_a_worker_killed_mid_search_loses_nothing(scheduler: str, workers: Workers) -> None:
    """At a finished task of level 4 or later (levels of up to 138 states, in tasks of 5
    states), stop both workers (SIGSTOP: nothing more finishes, however loaded the machine),
    kill one that has tasks of the level in hand and let the other go on; the scheduler reruns
    the killed worker's tasks on the other, and the graph is still `build`'s. A callback at
    which no worker holds a task lets both go on and waits for the next one."""
    processes = dict(zip(("w0", "w1"), workers(2), strict=True))
    backend = cluster.DaskCluster(scheduler)
    removals = Removals(backend.client)
    killed: list[Killed] = []

    def progress(level: int, done: int, total: int) -> None:
        if killed or level < 4:
            return
        victim = kill_a_busy_worker(processes, backend.client)
        if victim is not None:
            killed.append(victim)

    try:
        remote = build_distributed(V3_D7, backend,
                                   GraphOptions(chunk_states=5, progress=progress, owned=False))
        if killed:  # the scheduler's own announcement of removing it (no clock decides)
            removals.wait_removed(killed[0].address)
    finally:
        backend.close()
    assert killed and killed[0].process.returncode is not None, "no worker had a task in hand"
    assert killed[0].tasks, "the killed worker had tasks in hand"
    local = build(V3_D7)
    assert remote == local
    assert _verdicts(remote) == _verdicts(local)


def test_a_worker_killed_mid_search_fails_the_owned_search(
    scheduler: str, workers: Workers,
) -> None:
    """Kill one of the two workers at level 4: its partition of the visited set is gone, and
    the owned search fails with the worker and the partitions named (never a graph)."""
    processes = workers(2)
    backend = cluster.DaskCluster(scheduler)

    def progress(level: int, done: int, total: int) -> None:
        if level == 4 and processes[1].poll() is None:
            processes[1].kill()
            processes[1].wait(timeout=HANG_SECONDS)

    try:
        with pytest.raises(DistributedSearchFailed,
                           match=r"left the cluster mid-search, and with them partition"):
            build_distributed(V3_D7, backend, GraphOptions(progress=progress))
    finally:
        backend.close()
    assert processes[1].returncode is not None, "the worker was killed"


def test_workers_hashing_codes_otherwise_fail_the_owned_search(
    dask_cluster: cluster.DaskCluster, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Partitions are chosen by the hash of a tuple of ints: a worker whose hash of the probe
    differs from the client's (here the client's probe is changed) fails the search."""
    monkeypatch.setattr(partitioned, "PROBE", (1, 2, 3, 4))
    with pytest.raises(DistributedSearchFailed, match="hashes tuples of ints otherwise"):
        build_distributed(V2_D3, dask_cluster)


def test_a_worker_with_other_sources_fails_the_search(
    dask_cluster: cluster.DaskCluster, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from model_checks.executor import sources

    monkeypatch.setattr(sources, "source_digest", lambda: "0" * 64)
    for owned_mode in (True, False):
        with pytest.raises(DistributedSearchFailed, match="a worker runs other sources"):
            build_distributed(V2_D3, dask_cluster, GraphOptions(owned=owned_mode))


@pytest.mark.parametrize("limits", [{"chunk_states": 0}, {"partitions": 0}])
def test_bad_limits_are_refused_before_any_work(limits: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be >= 1"):
        build_distributed(V2_D3, None, GraphOptions(**limits))  # type: ignore[arg-type]


def _comparable(record: VerdictRecord) -> dict[str, Any]:
    fields = dataclasses.asdict(record)
    del fields["seconds"], fields["counterexample_path"]
    return fields


def _trace(path: str | None) -> Any:
    return None if path is None else json.loads(Path(path).read_text())


def test_explore_distributed_writes_the_local_records(
    scheduler: str, workers: Workers, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The command's records and traces against `explore_cell` run here (what `explore
    --jobs 1` runs in a child process, which would first import every checker)."""
    workers(2)
    ci = PROFILES["ci"]
    limit, shapes, large = ci.max_states, ci.shapes, ci.large_shapes
    local = explore_cell(CellTask(variant_named("V0"), ("D1",), tmp_path / "local", limit,
                                 shapes_for(("D1",), shapes, large)))
    out = tmp_path / "spread"
    assert main(["explore", "--variant", "V0", "--environment", "D1", "--dask", scheduler,
                 "--distributed", "--json", str(out / "records.json"),
                 "--out", str(out)]) == 0
    assert "states/s spread over the Dask cluster at" in capsys.readouterr().out
    remote = read_records(out / "records.json")
    assert [_comparable(r) for r in remote] == [_comparable(r) for r in local.records]
    traces = [_trace(r.counterexample_path) for r in remote]
    assert any(traces)
    assert traces == [_trace(r.counterexample_path) for r in local.records]


@pytest.mark.parametrize("argv, message", [
    (["--distributed"], "error: --distributed needs --dask ADDRESS"),
    (["--distributed", "--lattice"], "error: --distributed applies to the matrix cells"),
])
def test_distributed_without_a_cluster_is_one_line_and_exit_2(
    argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["explore", "--variant", "V2", "--environment", "D3", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert not list(tmp_path.iterdir()), "nothing ran, nothing was written"


def test_a_search_the_cluster_cannot_finish_is_one_line_and_exit_1(
    scheduler: str, workers: Workers, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    workers(1)

    def fails(*_: object) -> None:
        raise DistributedSearchFailed("task explore-x-level3-0 failed: KilledWorker: ...")

    monkeypatch.setattr(cell_tasks, "explore_cells", fails)
    records = tmp_path / "records.json"
    assert main(["explore", "--variant", "V0", "--environment", "D1", "--dask", scheduler,
                 "--distributed", "--json", str(records), "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the distributed search failed: task explore-x-level3-0")
    assert err.count("\n") == 1
    assert not records.exists(), "no records for a search that did not finish"


def test_a_search_left_without_workers_fails(
    scheduler: str, workers: Workers, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hang guard: the only worker killed at level 2, the search gives up once the
    scheduler has had no worker for NO_WORKER_SECONDS (shortened here)."""
    (process,) = workers(1)
    monkeypatch.setattr(distributed, "NO_WORKER_SECONDS", 2.0)
    monkeypatch.setattr(distributed, "POLL_SECONDS", 0.2)
    backend = cluster.DaskCluster(scheduler)

    def progress(level: int, done: int, total: int) -> None:
        if level == 2 and process.poll() is None:
            process.kill()
            process.wait(timeout=HANG_SECONDS)

    try:
        with pytest.raises(DistributedSearchFailed, match="no Dask worker left at"):
            build_distributed(V3_D7, backend,
                              GraphOptions(chunk_states=20, progress=progress, owned=False))
    finally:
        backend.close()
