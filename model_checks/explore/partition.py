"""The worker's side of the owned-partition search (`partitioned`): one partition of the visited
set, kept in the worker process across the levels of one search of any design, moving only
through the design's `Moves` (built here from the search's `Searched`).

A `Partition` holds the visited table of its partition (the codes, `wire`, of the states
whose `partition_of` is its number), each state under a local index in the order it accepted
them, which is the order of their global numbers (`numbers`, sent by the client once a level
is ranked), and the states of its frontier only. Per level:

- `expand_level` expands its frontier (the states it accepted last), in number order and each
  state's actions in the design's `enabled` order, as `graph.build` does. Every successor it has
  never produced before gets a reference (`ref = item * parts + q`: the `item`-th distinct
  state it has sent to partition q) and goes, with its discovery key (`source number << 16 |
  action position`), into q's batch; a successor it has produced before keeps its reference
  and is sent again never. It keeps every edge (action, renaming, reference) for collection
  and returns the batches for the other partitions, states pickled; its own stays here.
- `merge_level` reads every partition's batch for it in partition order: a state it holds
  already resolves the item to its local index; the others are the level's new states, each
  under the smallest discovery key any batch gave it. They are accepted in key order (the
  order `build` meets them), and the keys and the new states go to the client, which ranks
  every partition's keys into global numbers.
- `collect` hands back the edges and the item resolutions, and forgets the search.

A partition lives only in its worker's memory: a worker lost mid-search takes it along, and
the client's next look at the cluster fails the search (`partitioned`). A task given to a process
that does not hold the partition (a restarted worker) raises `PartitionLost`.
"""

from __future__ import annotations

import pickle
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from model_checks.explore.distributed_common import (
    DistributedSearchFailed,
    Searched,
    check_sources,
    dumps,
)
from model_checks.explore.moves import Action, Interned, Renaming, State
from model_checks.explore.wire import PROBE, Channel, Code, Codec

KEY_BITS = 16
"""A discovery key is `source number << KEY_BITS | action position`: no state has 2**16
enabled actions (`expand_level` refuses one that has)."""

_HELD: dict[tuple[str, int], Partition] = {}
"""The partitions this process holds, by (search id, partition number)."""


class PartitionLost(DistributedSearchFailed):
    """A task reached a process that does not hold its partition: the worker that held it
    is gone (restarted, or the task was moved), and the states it held with it."""


def partition_of(code: Code, parts: int) -> int:
    """The partition of the state whose code is `code` (`wire`): the same in every process
    whose `hash(wire.PROBE)` is the client's."""
    return hash(code) % parts


def _held(search: str, part: int) -> Partition:
    try:
        return _HELD[(search, part)]
    except KeyError:
        raise PartitionLost(f"partition {part} of search {search} is not held by this "
                            "worker: the worker that held it was lost") from None


class Partition:
    """One partition's states, visited table, sent items and edges (see the module)."""

    def __init__(self, searched: Searched, part: int, parts: int) -> None:
        self.part, self.parts = part, parts
        self.moves = searched.moves()
        self.codec = Codec(type(self.moves.start()))
        self.channels = [Channel(self.codec) for _ in range(parts)]  # to each partition
        self.to_client = Channel(self.codec)
        self.size = 0  # states accepted so far
        self.pending: list[State] = []  # the frontier's states (the only ones kept)
        self.local: dict[Code, int] = {}  # the visited table: code to local index
        self.numbers = array("q")  # global number by local index, as the client ranks them
        self.frontier = range(0)
        self.known: dict[Code, int] = {}  # every successor produced here: its reference
        self.sent = [0] * parts  # items sent to each partition so far
        self.own: Batch = ([], [], {})  # this level's batch for this partition
        self.resolved = [array("q") for _ in range(parts)]  # item from p: its local index
        self.actions: Interned[Action] = Interned([])  # local codes
        self.renamings: Interned[Renaming | None] = Interned([None])
        self.edge_count, self.edge_ref = array("q"), array("q")
        self.edge_action, self.edge_renaming = array("q"), array("q")

    def accept(self, codes: Sequence[Code], states: Sequence[State]) -> None:
        """Take `states` (new to this partition, in discovery-key order) as the frontier."""
        base = self.size
        for offset, code in enumerate(codes):
            self.local[code] = base + offset
        self.size += len(codes)
        self.pending = list(states)
        self.frontier = range(base, self.size)

    def expand_level(self, numbers: array[int]) -> list[bytes]:
        """Number the frontier (`numbers`, in local order) and expand it; the batches for the
        other partitions, pickled (b"" for this one, which stays here)."""
        self.numbers.extend(numbers)
        parts, part, encode = self.parts, self.part, self.codec.encode
        moves, known, sent = self.moves, self.known, self.sent
        symmetric = bool(moves.groups)
        batches: list[Batch] = [([], [], {}) for _ in range(parts)]
        refs, actions, renamings = self.edge_ref, self.edge_action, self.edge_renaming
        action_codes, intern_action = self.actions.codes, self.actions.code
        renaming_code = self.renamings.code
        for index, state in zip(self.frontier, self.pending, strict=True):
            source = self.numbers[index] << KEY_BITS
            enabled = moves.enabled(state)
            if len(enabled) >= 1 << KEY_BITS:
                raise DistributedSearchFailed(f"a state has {len(enabled)} enabled actions")
            for position, (action, successor, renaming) in enumerate(
                    moves.successors(state, enabled)):
                code = encode(successor)  # keys `known`: a tuple of ints hashes cheaply
                ref = known.get(code)
                if ref is None:
                    q = partition_of(code, parts)
                    ref = known[code] = sent[q] * parts + q
                    sent[q] += 1
                    batches[q][0].append(code)
                    batches[q][1].append(source | position)
                refs.append(ref)
                local = action_codes.get(action)
                actions.append(intern_action(action) if local is None else local)
                if symmetric:
                    renamings.append(renaming_code(renaming))
            self.edge_count.append(len(enabled))
        for q, (codes, _, elements) in enumerate(batches):
            if q != part:
                elements.update(self.channels[q].elements(codes))
        self.own = batches[part]
        return [b"" if q == part else dumps(batch) for q, batch in enumerate(batches)]

    def merge_level(self, batches: Sequence[Batch]) -> tuple[bytes, bytes]:
        """Resolve every partition's items for this one (`batches[p]`, p's in order); accept
        the new states in key order. Their keys (an `array("q")`'s bytes), and their codes
        with the elements the client has not had from here, pickled."""
        local = self.local
        fresh: dict[Code, int] = {}
        keys: list[int] = []
        starts = [len(resolved) for resolved in self.resolved]
        for p, (codes, batch_keys, elements) in enumerate(batches):
            self.codec.learn(elements)
            resolved = self.resolved[p]
            for code, key in zip(codes, batch_keys, strict=True):
                index = local.get(code)
                if index is None:
                    candidate = fresh.setdefault(code, len(fresh))
                    if candidate == len(keys):
                        keys.append(key)
                    elif key < keys[candidate]:
                        keys[candidate] = key
                    index = -1 - candidate
                resolved.append(index)
        order = sorted(range(len(keys)), key=keys.__getitem__)
        candidates = list(fresh)
        base = self.size
        rank = [0] * len(order)
        for r, candidate in enumerate(order):
            rank[candidate] = base + r
        for resolved, start in zip(self.resolved, starts, strict=True):
            for at in range(start, len(resolved)):
                index = resolved[at]
                if index < 0:
                    resolved[at] = rank[-1 - index]
        codes = [candidates[c] for c in order]
        self.accept(codes, [self.codec.decode(code) for code in codes])
        return (array("q", [keys[c] for c in order]).tobytes(),
                dumps((codes, self.to_client.elements(codes))))

    def collection(self) -> bytes:
        """Everything the client needs to write the graph's edges, pickled."""
        return dumps((self.actions.values, self.renamings.values, self.edge_count.tobytes(),
                      self.edge_ref.tobytes(), self.edge_action.tobytes(),
                      self.edge_renaming.tobytes(),
                      [r.tobytes() for r in self.resolved]))


Batch = tuple[list[Code], list[int], dict[int, Any]]
"""What one partition sends another in a level: codes, their discovery keys, and the
elements of the codes the receiver has not had from the sender."""


@dataclass(frozen=True)
class PartitionKey:
    """Which partition a task opens: number `part` of the `parts` of the search named
    `search`."""

    search: str
    part: int
    parts: int


def open_task(key: PartitionKey, searched: Searched, start: State | None, source: str | None
              ) -> int:
    """Create partition `key.part` of `key.search` (of `searched`) here, holding `start`
    (state 0) if it is its own; `hash(wire.PROBE)` here. With `source`, a worker whose
    sources differ from the submitter's refuses."""
    search, part, parts = key.search, key.part, key.parts
    check_sources(source)
    partition = _HELD[(search, part)] = Partition(searched, part, parts)
    if start is not None:
        partition.accept([partition.codec.encode(start)], [start])
    return hash(PROBE)


def expand_task(search: str, part: int, level: int, numbers: bytes) -> list[bytes]:
    """`Partition.expand_level` of the partition held here (`level`: only for the key)."""
    return _held(search, part).expand_level(array("q", numbers))


def merge_task(search: str, part: int, level: int, *expansions: list[bytes]
               ) -> tuple[bytes, bytes]:
    """`Partition.merge_level` on the batches for `part` in every partition's expansion."""
    partition = _held(search, part)
    batches: list[Batch] = [partition.own if p == part else pickle.loads(out[part])
                            for p, out in enumerate(expansions)]
    return partition.merge_level(batches)


def collect_task(search: str, part: int) -> bytes:
    """`Partition.collection` of the partition held here; the partition is then dropped."""
    partition = _held(search, part)
    del _HELD[(search, part)]
    return partition.collection()


def release(search: str) -> None:
    """Drop every partition of `search` this process holds (a failed or finished search)."""
    for key in [k for k in _HELD if k[0] == search]:
        del _HELD[key]
