"""The client's side of the owned-partition search of any design: each partition of the
visited set lives on one worker for the whole search (`partition`), and the client only ranks
each level's new states into global numbers and writes the graph.

Per level, every partition's worker expands its frontier and sends the other partitions only
the successors it has never sent them before (worker to worker, through Dask's data
transfer); each partition then resolves the successors it owns against its own visited
table and returns to the client the discovery keys of its new states (`source number << 16 |
action position`, sorted) and the states. The client merges the keys of all partitions: a
new state's rank in that merge is its rank in `build`'s numbering of the level (`build`
meets the level's new states in the order of their first edge, which is the order of their
keys), so the state gets number `first number of the level + rank`, and where the state
limit cuts the search, the first key past it is the edge `build` stops at. The numbers go
back to the partitions with the next level's tasks. At the end the client collects every
partition's edges and writes them, source by source in number order, into the graph's
arrays, interning actions and renamings in that order: the `Graph` is `build`'s, field by
field (`tests/executor/test_explore_distributed.py`).

What does cross the client: per state its key and the state itself, once (the judge reads
every state; the graph holds them as `build`'s does); per edge a few integers, at the end.

A worker lost mid-search takes its partitions with it: the client notices when a level does
not finish within `POLL_SECONDS` and one of the search's workers has left the
scheduler, or when a task fails, and raises `DistributedSearchFailed`: no graph, no verdict.
"""

from __future__ import annotations

import heapq
import pickle
import uuid
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from model_checks.executor import waits
from model_checks.explore.distributed_common import DistributedSearchFailed, Searched
from model_checks.explore.graph import Graph, GraphOptions
from model_checks.explore.moves import GraphWriter, State
from model_checks.explore.partition import (
    KEY_BITS,
    PartitionKey,
    collect_task,
    expand_task,
    merge_task,
    open_task,
    partition_of,
    release,
)
from model_checks.explore.wire import PROBE, Codec

if TYPE_CHECKING:
    from model_checks.executor.cluster import DaskCluster

_POSITION = (1 << KEY_BITS) - 1

POLL_SECONDS = 1.0
"""How often a level still running makes the client look for lost workers."""


def build_owned(searched: Searched, cluster: DaskCluster, options: GraphOptions) -> Graph:
    """`graph.build` of `searched` with the visited set partitioned over the workers of
    `cluster` (see the module): the same `Graph` (of the options, `max_states`,
    `partitions` and `progress` apply)."""
    owners = sorted(waits.workers(cluster))
    if not owners:
        raise DistributedSearchFailed(f"no Dask worker at {cluster.address}")
    return _OwnedSearch(searched, cluster, options, options.partitions or len(owners),
                        owners).run()


class _OwnedSearch:
    """The client's numbering (per state its partition, key, depth and the state) and the
    level loop; `_write` turns the partitions' edges into the graph."""

    def __init__(self, searched: Searched, cluster: DaskCluster, options: GraphOptions,
                 parts: int, owners: list[str]) -> None:
        from model_checks.executor.sources import source_digest

        self.searched, self.cluster = searched, cluster
        self.max_states, self.parts, self.progress = options.max_states, parts, options.progress
        self.where = [owners[p % len(owners)] for p in range(parts)]
        self.search = f"owned-{uuid.uuid4().hex[:8]}"
        self.source = source_digest()
        self.moves = searched.moves()
        start = self.moves.start()
        self.start, self.codec = start, Codec(type(start))
        self.owner = array("q", [partition_of(self.codec.encode(start), parts)])  # by number
        self.key = array("q", [-1])
        self.depth = array("i", [0])
        self.states: list[State] = [start]
        self.global_of = [array("q") for _ in range(parts)]  # per partition, by local index
        self.global_of[self.owner[0]].append(0)
        self.cut: int | None = None  # the key of the edge the state limit stops at

    def _submit(self, function: Any, *args: Any, part: int, key: str) -> Any:
        return self.cluster.client.submit(function, *args, key=f"{self.search}-{key}",
                                          workers=[self.where[part]],
                                          allow_other_workers=False, pure=False)

    def run(self) -> Graph:
        try:
            probes = self._wait([self._submit(
                open_task, PartitionKey(self.search, p, self.parts), self.searched,
                self.start if p == self.owner[0] else None, self.source, part=p,
                key=f"open-{p}") for p in range(self.parts)])
            if any(probe != hash(PROBE) for probe in probes):
                raise DistributedSearchFailed(
                    "a worker hashes tuples of ints otherwise than this process (another "
                    "Python?): the partitions would not agree")
            numbers = [array("q", [0] if p == self.owner[0] else []) for p in range(self.parts)]
            merges: list[Any] | None = self._level(0, numbers)
            level = 0
            while merges is not None:
                results = self._wait(merges)
                if self.progress is not None:
                    self.progress(level, len(results), len(results))
                high = len(self.states)
                numbers = self._rank([array("q", keys) for keys, _ in results], high)
                last = self.cut is not None or not any(numbers)
                merges = None if last else self._level(level + 1, numbers)
                self._read(results, numbers, high, level + 1)  # while the workers expand
                level += 1
            collected = self._wait([self._submit(collect_task, self.search, p, part=p,
                                                 key=f"collect-{p}")
                                    for p in range(self.parts)])
        except BaseException:
            self._release()
            raise
        return self._write([pickle.loads(c) for c in collected])

    def _level(self, level: int, numbers: list[array[int]]) -> list[Any]:
        """Submit the level's tasks: each partition's expansion, then each partition's merge
        of every expansion's batch for it (Dask moves the batches between workers)."""
        expansions = [self._submit(expand_task, self.search, p, level, numbers[p].tobytes(),
                                   part=p, key=f"L{level}-expand-{p}")
                      for p in range(self.parts)]
        return [self._submit(merge_task, self.search, q, level, *expansions, part=q,
                             key=f"L{level}-merge-{q}") for q in range(self.parts)]

    def _rank(self, keys: list[array[int]], high: int) -> list[array[int]]:
        """Number the level's new states: per partition, the numbers of its new states (in
        its order, which is key order), up to the state limit."""
        numbers = [array("q") for _ in range(self.parts)]
        room = self.max_states - high
        merged = heapq.merge(*[[(key, p) for key in part_keys]
                               for p, part_keys in enumerate(keys)])
        number = high
        for rank, (key, p) in enumerate(merged):
            if rank >= room:
                self.cut = key
                break
            numbers[p].append(number)
            self.owner.append(p)
            self.key.append(key)
            number += 1
        for p, part_numbers in enumerate(numbers):
            self.global_of[p].extend(part_numbers)
        return numbers

    def _read(self, results: list[tuple[bytes, bytes]], numbers: list[array[int]], high: int,
              depth: int) -> None:
        """The level's new states, into number order."""
        level: list[State | None] = [None] * sum(len(n) for n in numbers)
        codec = self.codec
        for (_, payload), part_numbers in zip(results, numbers, strict=True):
            codes, elements = pickle.loads(payload)
            codec.learn(elements)
            for code, number in zip(codes, part_numbers, strict=False):
                level[number - high] = codec.decode(code)
        self.states.extend(level)  # every slot is filled
        self.depth.extend([depth] * len(level))

    def _wait(self, futures: list[Any]) -> list[Any]:
        """Every future's value, in order; a worker of the search gone, or a task failed:
        `DistributedSearchFailed`."""
        for _ in waits.as_finished(self.cluster, futures, POLL_SECONDS, self._check_owners):
            pass  # every task has finished or failed; their values are fetched in order below
        try:
            return [waits.fetch(future, POLL_SECONDS, self._check_owners)
                    for future in futures]
        except DistributedSearchFailed:
            raise
        except Exception as error:  # e.g. KilledWorker, CancelledError
            from model_checks.executor.tasks import one_line

            self._check_owners()
            raise DistributedSearchFailed(f"a task of {self.search} failed: "
                                          f"{one_line(error)}") from None

    def _check_owners(self) -> None:
        present = set(waits.workers(self.cluster))
        lost = sorted({w for w in self.where if w not in present})
        if lost:
            held = [p for p, w in enumerate(self.where) if w in lost]
            raise DistributedSearchFailed(
                f"the Dask worker(s) {', '.join(lost)} left the cluster mid-search, and with "
                f"them partition(s) {held} of the visited set: no graph (run it again)")

    def _release(self) -> None:
        try:
            present = set(waits.workers(self.cluster))
            self.cluster.client.run(release, self.search,
                                    workers=[w for w in set(self.where) if w in present])
        except Exception:  # best effort: the search has failed already
            pass

    def _write(self, collected: list[tuple[Any, ...]]) -> Graph:
        """The graph's arrays from every partition's edges (see the module): per partition
        its edges' targets as global numbers, then every source's edges in number order,
        actions and renamings interned in the order of their first edge, as `build` does."""
        writer = GraphWriter(Graph.empty(self.moves, self.max_states, self.searched.design))
        graph, parts, cut = writer.graph, self.parts, self.cut
        counts, refs, actions, renamings = (
            [array("q", c[i]) for c in collected] for i in (2, 3, 4, 5))
        resolved = [[array("q", r) for r in c[6]] for c in collected]
        expanded = len(self.states) if cut is None else (cut >> KEY_BITS) + 1
        # per partition: where its edges go in the graph's edge order (only those it keeps)
        position: list[array[int]] = [array("q") for _ in range(parts)]
        state_at, edge_at, total = [0] * parts, [0] * parts, 0
        slices: list[tuple[int, int, int]] = []
        for number in range(expanded):
            p = self.owner[number]
            count = counts[p][state_at[p]]
            if number == expanded - 1 and cut is not None:
                count = cut & _POSITION
            state_at[p] += 1
            slices.append((p, edge_at[p], edge_at[p] + count))
            position[p].extend(range(total, total + count))
            edge_at[p] += count
            total += count
        # the edge `build` stops at: its action is interned, nothing else of it kept
        stop = None if cut is None else (total, self.owner[expanded - 1],
                                         edge_at[self.owner[expanded - 1]])
        action_of = self._codes([c[0] for c in collected], actions, position, stop,
                                writer.actions.code)
        targets = []
        for p in range(parts):
            number_of = [self._numbers(resolved[q][p], q) for q in range(parts)]
            targets.append([number_of[r % parts][r // parts] for r in refs[p][:edge_at[p]]])
        for p, first, end in slices:
            graph.edge_target.extend(targets[p][first:end])
            graph.edge_action.extend(action_of[p][first:end])
            writer.end_edges()
        if graph.symmetric:
            renaming_of = self._codes([c[1] for c in collected], renamings, position, None,
                                      writer.renamings.code)
            for p, first, end in slices:
                graph.edge_renaming.extend(renaming_of[p][first:end])
        self._rows(writer)
        return writer.finish(total + (cut is not None), cut is None, self.states)

    def _numbers(self, items: array[int], q: int) -> list[int]:
        """The global numbers of partition q's local indices `items` (-1: past the limit)."""
        known = self.global_of[q]
        size = len(known)
        return [known[i] if i < size else -1 for i in items]

    @staticmethod
    def _codes(tables: list[list[Any]], codes: list[array[int]], position: list[array[int]],
               stop: tuple[int, int, int] | None, intern: Callable[[Any], int]
               ) -> list[list[int]]:
        """Per partition, its kept edges' codes in the graph's tables: each partition's
        values (`tables[p]`, by local code) interned (`intern(value)`) in the
        order of the edge that first carries them, `stop` (the edge the state limit stops
        at: its position in the graph, partition, local edge) included."""
        first: list[tuple[int, int, int]] = []
        for p, (local, where) in enumerate(zip(codes, position, strict=True)):
            seen: dict[int, int] = {}
            for at in range(len(where)):
                seen.setdefault(local[at], at)
            first.extend((where[at], p, code) for code, at in seen.items())
        if stop is not None:
            at, p, local_at = stop
            first.append((at, p, codes[p][local_at]))
        mapping = [[-1] * len(table) for table in tables]
        for _, p, code in sorted(first):
            if mapping[p][code] < 0:
                mapping[p][code] = intern(tables[p][code])
        return [[mapping[p][c] for c in codes[p][:len(position[p])]] for p in range(len(codes))]

    def _rows(self, writer: GraphWriter) -> None:
        """Per state: its fingerprint (`Moves.fingerprint` in this process, as `build`
        keeps), depth, parent, and the action and renaming of its first edge (its key's),
        written after the edges they are read from."""
        graph, states, fingerprint = writer.graph, self.states, self.moves.fingerprint
        starts, symmetric = graph.edge_start, graph.symmetric
        writer.add_state(fingerprint(states[0]), 0, -1, -1, 0)
        for number in range(1, len(states)):
            key = self.key[number]
            source = key >> KEY_BITS
            edge = starts[source] + (key & _POSITION)
            writer.add_state(fingerprint(states[number]), self.depth[number], source,
                             graph.edge_action[edge],
                             graph.edge_renaming[edge] if symmetric else 0)
