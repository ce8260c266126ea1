"""One exploration of any design spread over a Dask cluster: a level-synchronous breadth-first
search whose frontier is partitioned across the workers. Both modes move only through the
design's `Moves` (`search_core.moves_for`, built again on each worker from the design's name
and the configuration), as `graph.build` does.

Two modes, one result (`build`'s `Graph`). By default (`owned`) each partition of the visited
set lives on one worker for the whole search (`partitioned` the client's side, `partition` the
worker's, `wire` the states' encoding): the workers expand and deduplicate their own
partitions and send each other only the successors they own, and the client ranks each
level's new states and writes the graph; a worker lost mid-search fails the search. With
`owned=False`, this module's stateless search: the workers only expand, the client keeps the
visited tables and merges every successor, and a lost worker only delays its tasks. The rest
of this docstring describes the stateless mode.

The design of distributed TLC and of LTSmin's distributed backend, cut to what a lost worker
cannot break:

- **Partitions.** Every state has the fingerprint the search deduplicates it on
  (`Moves.fingerprint`, computed by the client, in whose process the visited table lives).
  State s belongs to partition `fingerprint(s) % P`, P fixed when the search starts (the
  number of workers then, by default). Partition p's frontier goes to the worker that owns p
  (a preference: the scheduler moves the task elsewhere if that worker is gone).
- **Levels.** Level d's frontier (the states first reached at depth d) is cut into tasks, one
  or more per partition, each `expand_chunk(searched, states)`: a pure function
  of its arguments that returns, per state, its (action, successor, renaming) in the design's
  `enabled` order, from the successor function `graph.build` calls (`Moves.successors`). A
  level is done when every task of it has returned; the successors are then merged into the
  visited table (the exchange), and the states new to it form level d + 1. Keeping levels
  synchronous keeps breadth-first depths exact, hence shortest counterexamples and the
  diameter.
- **Where the state lives.** The visited tables and the graph are kept by the submitting
  process (the client), which the judge needs anyway: liveness and the monitors' product
  searches walk the whole graph. A worker keeps nothing between tasks, so a worker killed
  mid-search loses only the tasks it had in hand, and Dask runs them again on another worker
  from their arguments (which the scheduler holds); a result computed twice is the same.
  The client fetches each result as soon as it is done, so no worker ever holds the only
  copy of anything the search still needs.
- **Same graph.** The client merges each level in the order of its state numbers and each
  state's successors in `enabled`'s order, as `build` does, so the states are numbered as
  `build` numbers them and the `Graph` is equal to `build`'s, field by field (edges, depths,
  parents, renamings, `steps_taken`, and where the state limit cuts it): every verdict,
  counterexample and diameter the judge derives from it is the local one
  (`tests/executor/test_explore_distributed.py`). How the frontier is partitioned or which
  worker ran what changes only where the work was done.

What is distributed is the expansion (`enabled`, each action, the design's reductions): the
cost of a search. The merge (a fingerprint and one dictionary look-up per edge) and the
judging run on the client.
"""

from __future__ import annotations

import pickle
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from model_checks.executor import waits
from model_checks.explore.distributed_common import (
    DistributedSearchFailed,
    Searched,
    check_sources,
    dumps,
)
from model_checks.explore.graph import Graph, GraphOptions
from model_checks.explore.moves import Action, GraphWriter, Renaming, State
from spec.designs.base import DEFAULT_DESIGN

if TYPE_CHECKING:
    from model_checks.executor.cluster import DaskCluster

NO_WORKER_SECONDS = 60.0
"""How long the search waits with unfinished tasks and no worker at all before it gives up
(an error, never a verdict: a hang guard)."""

POLL_SECONDS = 1.0

Edge = tuple[Action, int, Renaming]
"""An expanded edge: the action, the successor's position in its chunk's `successors`, and
the renaming applied to reach the representative (None: none)."""


@dataclass(frozen=True)
class Expansion:
    """One task's result. `successors[j]`: a distinct successor state; `edges[k]`: the k-th
    input state's edges, in `enabled`'s order."""

    successors: tuple[State, ...]
    edges: tuple[tuple[Edge, ...], ...]


def expand_chunk(searched: Searched, states: Sequence[State], source: str | None = None
                 ) -> Expansion:
    """Every edge of every state of `states`, as `graph.build` takes them (the design's
    `Moves`). A pure function of its arguments (a task Dask may run twice). With `source`, a
    worker whose sources differ from the submitter's refuses the task."""
    check_sources(source)
    moves = searched.moves()
    position: dict[State, int] = {}
    successors: list[State] = []
    edges: list[tuple[Edge, ...]] = []
    for state in states:
        out: list[Edge] = []
        for action, successor, renaming in moves.successors(state, moves.enabled(state)):
            at = position.setdefault(successor, len(successors))
            if at == len(successors):
                successors.append(successor)
            out.append((action, at, renaming))
        edges.append(tuple(out))
    return Expansion(tuple(successors), tuple(edges))


def expand_task(payload: bytes, source: str | None = None) -> bytes:
    """`expand_chunk` on a payload `dumps((searched, states))`, its result as
    `dumps(expansion)`: what the client submits (bytes cross Dask untouched)."""
    searched, states = pickle.loads(payload)
    return dumps(expand_chunk(searched, states, source))


_DEFAULTS = GraphOptions()


def build_distributed(config: Any, cluster: DaskCluster, options: GraphOptions = _DEFAULTS,
                      design: str = DEFAULT_DESIGN) -> Graph:
    """`graph.build(config, options, design)`, its expansion done by the workers of
    `cluster`: the same `Graph` (the options `build` alone reads do not apply). With
    `options.owned` (the default) each partition of the visited set lives on one worker for
    the whole search (`partitioned`: fast, but a worker lost mid-search fails it); without,
    the workers keep nothing and the client merges every successor (this module: a lost
    worker only delays its tasks). `options.chunk_states` applies to the latter."""
    if options.chunk_states < 1:
        raise ValueError(f"chunk_states must be >= 1, got {options.chunk_states}")
    if options.partitions is not None and options.partitions < 1:
        raise ValueError(f"partitions must be >= 1, got {options.partitions}")
    searched = Searched(design, config, options.reduce, options.symmetry)
    if options.owned:
        from model_checks.explore.partitioned import build_owned

        return build_owned(searched, cluster, options)
    partitions = options.partitions or max(1, len(waits.workers(cluster)))
    return _Search(searched, cluster, options, partitions).run()


class _Search:
    """The client's side: the graph (`GraphWriter`), the visited table (fingerprint to
    number, as `build`'s), each state's partition, and the level loop."""

    def __init__(self, searched: Searched, cluster: DaskCluster, options: GraphOptions,
                 partitions: int) -> None:
        from model_checks.executor.sources import source_digest

        self.searched, self.cluster = searched, cluster
        self.max_states, self.partitions = options.max_states, partitions
        self.chunk_states, self.progress = options.chunk_states, options.progress
        self.source = source_digest()
        self.run_id = uuid.uuid4().hex[:8]
        moves = searched.moves()
        self.fingerprint = moves.fingerprint
        self.graph = Graph.empty(moves, self.max_states, searched.design)
        self.writer = GraphWriter(self.graph)
        self.states: list[State] = []  # held by the graph when the search ends (the judge's)
        self.visited: dict[int, int] = {}
        self.partition: list[int] = []
        start = moves.start()
        self.visited[self.fingerprint(start)] = self._add(start, self.fingerprint(start), -1,
                                                          (-1, 0), 0)

    def _add(self, state: State, fingerprint: int, parent: int, via: tuple[int, int],
             depth: int) -> int:
        """Number `state`, reached from `parent` by the action and renaming of codes `via`
        (the caller enters it in the visited table)."""
        self.partition.append(fingerprint % self.partitions)
        self.states.append(state)
        return self.writer.add_state(fingerprint, depth, parent, *via)

    def run(self) -> Graph:
        low, high, level = 0, 1, 0
        complete = True
        while low < high:
            chunks = self._chunks(low, high)
            results = self._expand(level, chunks)
            if not self._merge(low, high, level, chunks, results):
                complete = False
                break
            low, high, level = high, self.graph.size, level + 1
        return self.writer.finish(self.graph.steps_taken, complete, self.states)

    def _chunks(self, low: int, high: int) -> list[tuple[int, list[int]]]:
        """The level's tasks: per partition, its frontier states in number order, cut into
        runs of at most `chunk_states`."""
        members: list[list[int]] = [[] for _ in range(self.partitions)]
        for number in range(low, high):
            members[self.partition[number]].append(number)
        size = self.chunk_states
        return [(part, numbers[at:at + size]) for part, numbers in enumerate(members)
                for at in range(0, len(numbers), size)]

    def _expand(self, level: int, chunks: list[tuple[int, list[int]]]) -> list[Expansion]:
        """Submit the level's tasks, each to its partition's worker (a preference), and
        collect every result (in chunk order) as it finishes."""
        client = self.cluster.client
        owners = sorted(waits.workers(self.cluster))
        futures = []
        for n, (part, numbers) in enumerate(chunks):
            payload = dumps((self.searched, [self.states[i] for i in numbers]))
            # A preference only: with no worker known at this instant (one restarting), the
            # scheduler places the task when a worker joins.
            placement: dict[str, Any] = (
                {"workers": [owners[part % len(owners)]], "allow_other_workers": True}
                if owners else {})
            futures.append(client.submit(
                expand_task, payload, self.source,
                key=f"explore-{self.run_id}-level{level}-{n}", pure=False, **placement))
        try:
            return _collect(self.cluster, futures, lambda done: self._report(level, done,
                                                                             len(futures)))
        finally:
            client.cancel(futures)

    def _report(self, level: int, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(level, done, total)

    def _order(self, low: int, high: int) -> range:
        """The order the level's states are merged in: their numbers' (`build`'s)."""
        return range(low, high)

    def _merge(self, low: int, high: int, level: int, chunks: list[tuple[int, list[int]]],
               results: list[Expansion]) -> bool:
        """The exchange: every edge of the level, in state-number order and each state's in
        `enabled`'s order (`build`'s order), into the visited table. False when the state
        limit stops it (where `build` stops)."""
        graph, writer, visited = self.graph, self.writer, self.visited
        fingerprint = self.fingerprint
        where: dict[int, tuple[Expansion, int]] = {}
        for (_, numbers), result in zip(chunks, results, strict=True):
            for k, number in enumerate(numbers):
                where[number] = (result, k)
        for number in self._order(low, high):
            result, k = where[number]
            for action, at, renaming in result.edges[k]:
                successor = result.successors[at]
                graph.steps_taken += 1
                key = fingerprint(successor)
                fresh = graph.size
                target = visited.setdefault(key, fresh)  # one look-up, not two
                code = writer.actions.code(action)  # first, as `build` does
                if target == fresh and fresh >= self.max_states:
                    writer.end_edges()  # as `build` stops
                    return False
                rcode = writer.renamings.code(renaming) if graph.symmetric else 0
                if target == fresh:
                    self._add(successor, key, number, (code, rcode), level + 1)
                writer.add_edge(target, code, rcode)
            writer.end_edges()
        return True


def _collect(cluster: DaskCluster, futures: list[Any], finished: Callable[[int], None]
             ) -> list[Expansion]:
    """Every future's value, in submission order, fetched as each finishes (a result is
    fetched from its worker at once, so a worker that dies later holds nothing needed).
    A worker lost with tasks in hand only delays them: the scheduler reruns them."""
    results: dict[int, Expansion] = {}
    position = {future.key: n for n, future in enumerate(futures)}
    guard = waits.NoWorkerGuard(cluster, POLL_SECONDS, NO_WORKER_SECONDS,
                                   DistributedSearchFailed)
    for future in waits.as_finished(cluster, futures, POLL_SECONDS, guard.poll):
        try:
            value = waits.fetch(future, POLL_SECONDS, guard.poll)
            results[position[future.key]] = pickle.loads(value)
        except DistributedSearchFailed:
            raise
        except Exception as error:  # e.g. KilledWorker: it died on every worker it had
            from model_checks.executor.tasks import one_line

            raise DistributedSearchFailed(
                f"task {future.key} failed: {one_line(error)}") from None
        finished(len(results))
    return [results[n] for n in range(len(futures))]
